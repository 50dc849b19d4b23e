#include "pecheck/core/escape.h"

#include <fmt/format.h>

#include <algorithm>

namespace pecheck {

namespace {
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Length of the valid UTF-8 sequence starting at s[i], or 0 if invalid
// (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
size_t utf8_length(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  const size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  }
  const auto c1 = static_cast<unsigned char>(s[i + 1]);
  if (c == 0xE0 && c1 < 0xA0) return 0;  // overlong
  if (c == 0xED && c1 > 0x9F) return 0;  // UTF-16 surrogate
  if (c == 0xF0 && c1 < 0x90) return 0;  // overlong
  if (c == 0xF4 && c1 > 0x8F) return 0;  // above U+10FFFF
  return n;
}

// The code point of the valid sequence at s[i] of length n.
char32_t code_point(std::string_view s, size_t i, size_t n) {
  const auto b = [&](size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(s[i + k])); };
  if (n == 1) return b(0);
  if (n == 2) return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
  if (n == 3) return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
  return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
}

// Code points a terminal may act on beyond C0: the C1 controls (U+009B is
// CSI on 8-bit terminals) and the bidirectional overrides and isolates that
// reorder what is shown ("Trojan Source").
bool terminal_control(char32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}
}  // namespace

std::string clip_utf8(std::string_view text, std::size_t max_bytes, std::string_view marker) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t end = max_bytes;
  // Back over continuation bytes to the lead byte of the cut sequence, which goes too.
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  std::string out(text.substr(0, end));
  out += marker;
  return out;
}

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

namespace {
// U+FFFE and U+FFFF are valid UTF-8 but not XML characters.
std::string xml_chars(std::string text) {
  for (size_t at = 0; (at = text.find("\xEF\xBF", at)) != std::string::npos; at += 3) {
    if (at + 2 < text.size() && (text[at + 2] == '\xBE' || text[at + 2] == '\xBF')) text.replace(at, 3, kReplacement);
  }
  return text;
}
}  // namespace

std::string escape_xml(std::string_view text) {
  const std::string clean = xml_chars(valid_utf8(text));
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
  for (char ch : xml_chars(valid_utf8(text))) {
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
  for (char ch : xml_chars(valid_utf8(text))) {
    switch (ch) {
      case '\n': out += " \u23CE "; break;  // ⏎: the cell stays one line, read as text or rendered
      case '\r': break;
      case '|': case '`': case '*': case '_': case '[': case ']': case '\\': case '<': case '>': case '&': case '~':
        out += '\\';  // CommonMark's backslash escape: the character itself, never markup or an entity
        out += ch;
        break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\t') out += kReplacement;  // no terminal escape in a file
        else if (ch == '\x7F') out += kReplacement;
        else out += ch;
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
  const std::string clean = valid_utf8(text);
  std::string out;
  for (size_t i = 0; i < clean.size();) {
    const size_t n = utf8_length(clean, i);
    const char32_t cp = code_point(clean, i, n);
    if ((cp < 0x20 && cp != '\n' && cp != '\t') || cp == 0x7F) out += fmt::format("\\x{:02x}", static_cast<unsigned>(cp));
    else if (terminal_control(cp)) out += fmt::format("\\u{:04x}", static_cast<unsigned>(cp));
    else out.append(clean, i, n);
    i += n;
  }
  return out;
}

}  // namespace pecheck
