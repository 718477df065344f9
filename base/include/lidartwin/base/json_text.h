// JSON text read into a document, with the error a person can act on: the file, the byte
// offset where the text stops being JSON and the parser's reason (issue 36: a truncated
// metrics.json said only "not a JSON object"). Header-only: nlohmann::json is header-only too,
// and only the libraries that read JSON include this.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "lidartwin/base/message_text.h"
#include "lidartwin/base/status.h"

namespace lt {

inline Expected<nlohmann::json> ParseJsonText(const std::string& text, const std::string& file) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte counts from 1 (the character read last); ours are offsets from 0. what():
    // "[json.exception.parse_error.101] parse error at line 3, column 1: syntax error while
    // parsing object - unexpected end of input; expected string literal", whose "last read:"
    // part may quote a long token: cut.
    const size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    std::string why = e.what();
    const size_t at = why.find(": ");
    why = ShortenedForMessage(at == std::string::npos ? why : why.substr(at + 2), 160);
    return Error{file + ": byte " + std::to_string(offset) +
                 (offset >= text.size() ? " (the end: the file is cut short?)" : "") +
                 ": not valid JSON (" + why + ")"};
  } catch (const nlohmann::json::exception& e) {  // a number beyond double range, and the like
    return Error{file + ": not readable JSON: " + ShortenedForMessage(e.what(), 160)};
  }
}

}  // namespace lt
