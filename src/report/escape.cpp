#include "report/escape.h"

#include <fmt/format.h>

#include <algorithm>

namespace pecheck {

namespace {
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Length of the valid UTF-8 sequence starting at s[i], or 0 if invalid.
size_t utf8_length(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  }
  if (n == 2 && c < 0xC2) return 0;  // overlong
  return n;
}
}  // namespace

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8_length(text, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string escape_xml(std::string_view text) {
  const std::string clean = valid_utf8(text);
  std::string out;
  out.reserve(clean.size());
  for (char ch : clean) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if (c < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') out += kReplacement;
        else if (c == 0x7F) out += kReplacement;
        else out += ch;
    }
  }
  return out;
}

std::string escape_cdata(std::string_view text) {
  std::string clean;
  for (char ch : valid_utf8(text)) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') || c == 0x7F) clean += kReplacement;
    else clean += ch;
  }
  std::string out;
  size_t pos = 0;
  while (true) {
    const size_t hit = clean.find("]]>", pos);
    if (hit == std::string::npos) break;
    out += clean.substr(pos, hit - pos) + "]]]]><![CDATA[>";
    pos = hit + 3;
  }
  return out + clean.substr(pos);
}

std::string escape_markdown_cell(std::string_view text) {
  std::string out;
  for (char ch : escape_xml(text)) {
    switch (ch) {
      case '|': out += "\\|"; break;
      case '\n': out += "<br>"; break;
      case '\r': break;
      case '`': out += "&#96;"; break;
      case '*': case '_': case '[': case ']': case '\\':
        out += '\\';
        out += ch;
        break;
      default: out += ch;
    }
  }
  return out;
}

std::string markdown_code(std::string_view text, bool in_table) {
  std::string body;
  size_t run = 0, longest = 0;
  for (char ch : valid_utf8(text)) {
    const auto c = static_cast<unsigned char>(ch);
    run = ch == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
    if (c < 0x20 || c == 0x7F) body += ' ';
    else if (ch == '|' && in_table) body += "\\|";
    else body += ch;
  }
  const std::string fence(longest + 1, '`');
  const bool pad = body.empty() || body.front() == '`' || body.back() == '`';
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::string escape_terminal(std::string_view text) {
  std::string out;
  for (char ch : valid_utf8(text)) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && ch != '\n' && ch != '\t') || c == 0x7F) out += fmt::format("\\x{:02x}", c);
    else out += ch;
  }
  return out;
}

}  // namespace pecheck
