#include "lidartwin/viewer/viewer_page.h"

#include <fmt/core.h>

#include <cctype>
#include <cstddef>

#include "lidartwin/reports/svg_plot.h"

namespace lt::viewer {

// viewer_assets.cpp, generated at build time.
extern const char kViewerBundle[];
extern const size_t kViewerBundle_size;
extern const char kViewerPageTemplate[];
extern const size_t kViewerPageTemplate_size;

namespace {

void Replace(std::string& page, const std::string& placeholder, const std::string& with) {
  const size_t at = page.find(placeholder);
  if (at != std::string::npos) page.replace(at, placeholder.size(), with);
}

// The bundle inside a <script> element: a "</script" in it (in a string of the minified code;
// HTML end tags ignore case) would end the element early, so "</" before "script" in any
// case is written "<\/", the same string to JavaScript.
std::string ScriptElement() {
  std::string code(kViewerBundle, kViewerBundle_size);
  auto is_end_tag = [&](size_t at) {
    static constexpr char kScript[] = "script";
    if (at + 8 > code.size() || code[at] != '<' || code[at + 1] != '/') return false;
    for (size_t k = 0; k < 6; ++k)
      if (std::tolower(static_cast<unsigned char>(code[at + 2 + k])) != kScript[k]) return false;
    return true;
  };
  for (size_t at = code.find("</"); at != std::string::npos; at = code.find("</", at + 2))
    if (is_end_tag(at)) code.replace(at, 2, "<\\/");
  return "<script>" + code + "</script>";
}

std::string Page(const std::string& title, const std::string& data_element) {
  std::string page(kViewerPageTemplate, kViewerPageTemplate_size);
  Replace(page, "<!--LTV_TITLE-->", reports::EscapeXml(title));
  Replace(page, "<!--LTV_DATA-->", data_element);
  Replace(page, "<!--LTV_SCRIPT-->", ScriptElement());
  return page;
}

}  // namespace

std::string Base64(const std::string& bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v =
        (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8) | uint8_t(bytes[i + 2]);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i + 1 == bytes.size()) {
    const uint32_t v = uint8_t(bytes[i]) << 16;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    const uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

std::string ExportedPage(const std::string& title, const std::string& encoded) {
  return Page(title, "<script id=\"lidartwin-data\" type=\"application/octet-stream\">" +
                         Base64(encoded) + "</script>");
}

std::string ServedPage(const std::string& title, const std::string& document_url) {
  return Page(title, "<meta name=\"lidartwin-document-url\" content=\"" +
                         reports::EscapeXml(document_url) + "\">");
}

std::string ViewerScriptElement() {
  return ScriptElement();
}

std::string EmbeddedViewer(const std::string& id, const std::string& encoded, int height_px) {
  // The div and its data block are found by id, so several viewers live in one page.
  return fmt::format(
      "<div class=\"ltv-embedded\" id=\"{0}\" style=\"position:relative;height:{1}px\"></div>\n"
      "<script id=\"{0}-data\" type=\"application/octet-stream\">{2}</script>\n"
      "<script>LidartwinViewer.mount(document.getElementById(\"{0}\"), "
      "{{elementId: \"{0}-data\"}});</script>\n",
      id, height_px, Base64(encoded));
}

}  // namespace lt::viewer
