// The viewer page: the template and the bundle the binary embeds (viewer/CMakeLists.txt),
// with the document inlined (export: one file that opens from disk with no server and no
// network) or fetched from the local server.
#pragma once

#include <string>

namespace lt::viewer {

// A standalone page whose document is the base64 of `encoded` (EncodeViewerDocument).
std::string ExportedPage(const std::string& title, const std::string& encoded);

// A standalone page that fetches its document from `document_url` (the server's).
std::string ServedPage(const std::string& title, const std::string& document_url);

// For pages that hold several viewers (the report): the bundle as a <script> element, once per
// page, and one viewer mounted in a div of the given height with its document inlined.
// `id` must be unique in the page (letters, digits, '-').
std::string ViewerScriptElement();
std::string EmbeddedViewer(const std::string& id, const std::string& encoded, int height_px);

// Base64 (RFC 4648, no line breaks).
std::string Base64(const std::string& bytes);

}  // namespace lt::viewer
