// Escaping (src/report/escape.cpp): whatever bytes a subject sends — markup,
// CDATA terminators, quotes, control characters, ANSI escape sequences,
// invalid or hostile UTF-8 — each escaper's output is inert where it lands.
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "pecheck/core/escape.h"
#include "support/cli.h"

BOOST_AUTO_TEST_SUITE(test_escape)

using namespace pecheck;

namespace {

// Every kind of hostile text, one per entry.
const std::vector<std::string>& hostile() {
  static const std::vector<std::string> all = {
      "<script>alert(1)</script>",
      "]]><![CDATA[",
      "\"quoted\" 'single' & ampersand",
      std::string("nul\0byte", 8),
      "\x1b[31mred\x1b[0m \x1b]0;title\x07 \x1b[2J",
      "bell\x07 backspace\x08 formfeed\x0c vtab\x0b del\x7f",
      "lone continuation \x80 and lead \xC3",
      "overlong \xC0\xAF \xE0\x80\xAF \xF0\x80\x80\xAF",
      "surrogate \xED\xA0\x80 high \xF4\x90\x80\x80 beyond \xF5\x80\x80\x80 \xFF\xFE",
      "truncated \xE2\x82",
      "noncharacters \xEF\xBF\xBE \xEF\xBF\xBF",
      "C1 CSI \xC2\x9B" "31m and NEL \xC2\x85",
      "bidi \xE2\x80\xAE" "override \xE2\x81\xA6isolate",
      "pipes | and `backticks` and *stars* _under_ [link](http://x) \\ back",
      "line\nbreak\r\ncarriage",
      "valid UTF-8: ω_i · ‖p‖ ≤ 1 — 日本語 🙂",
  };
  return all;
}

// Decodes UTF-8 strictly; false on any invalid sequence.
bool strictly_valid_utf8(const std::string& s, std::vector<char32_t>* out = nullptr) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    char32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
    for (size_t k = 1; k < n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3F);
    }
    const char32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    if (out) out->push_back(cp);
    i += n;
  }
  return true;
}

bool xml_char(char32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
         (c >= 0x10000 && c <= 0x10FFFF);
}

}  // namespace

BOOST_AUTO_TEST_CASE(valid_utf8_replaces_every_invalid_sequence_and_keeps_valid_text) {
  for (const auto& text : hostile()) {
    const std::string clean = valid_utf8(text);
    BOOST_TEST(strictly_valid_utf8(clean), "input: " << text);
  }
  const std::string ok = "ω_i · ‖p‖ ≤ 1 — 日本語 🙂";
  BOOST_TEST(valid_utf8(ok) == ok);
  BOOST_TEST(valid_utf8("\xE0\x80\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong: 3 replacements
  BOOST_TEST(valid_utf8("\xED\xA0\x80").find("\xED") == std::string::npos);        // surrogate
  BOOST_TEST(valid_utf8("\xF4\x90\x80\x80").find("\xF4") == std::string::npos);    // above U+10FFFF
}

BOOST_AUTO_TEST_CASE(escape_xml_output_is_xml_text_without_markup) {
  for (const auto& text : hostile()) {
    const std::string x = escape_xml(text);
    std::vector<char32_t> cps;
    BOOST_REQUIRE_MESSAGE(strictly_valid_utf8(x, &cps), "input: " << text);
    for (char32_t c : cps) BOOST_TEST(xml_char(c), "U+" << std::hex << static_cast<unsigned>(c) << " from " << text);
    for (char bad : {'<', '>', '"', '\''}) BOOST_TEST(x.find(bad) == std::string::npos, "input: " << text);
    // Every & starts an entity this escaper writes.
    for (size_t at = x.find('&'); at != std::string::npos; at = x.find('&', at + 1)) {
      const std::string rest = x.substr(at, 6);
      BOOST_TEST((rest.rfind("&amp;", 0) == 0 || rest.rfind("&lt;", 0) == 0 || rest.rfind("&gt;", 0) == 0 ||
                  rest.rfind("&quot;", 0) == 0 || rest.rfind("&#39;", 0) == 0),
                 rest);
    }
  }
  BOOST_TEST(escape_xml("<script>alert(1)</script>") == "&lt;script&gt;alert(1)&lt;/script&gt;");
}

BOOST_AUTO_TEST_CASE(xml_escaped_text_is_well_formed_for_xmllint_in_text_and_attributes) {
  std::string doc = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<root>\n";
  for (const auto& text : hostile()) {
    doc += "<item name=\"" + escape_xml(text) + "\" other='" + escape_xml(text) + "'>" + escape_xml(text) +
           "<![CDATA[" + escape_cdata(text) + "]]></item>\n";
  }
  doc += "</root>\n";
  const std::string path = pecheck::testing::temp_dir("pecheck-escape") + "/doc.xml";
  std::ofstream(path, std::ios::binary) << doc;
  BOOST_TEST(std::system(("xmllint --noout " + path).c_str()) == 0, "xmllint rejected " << path);
}

BOOST_AUTO_TEST_CASE(cdata_never_closes_early) {
  const std::string text = "a]]>b]]>]]>";
  const std::string c = escape_cdata(text);
  // Split into the CDATA sections a parser sees: none holds "]]>", and together they are the text.
  std::string joined;
  size_t from = 0;
  for (size_t at; (at = c.find("]]><![CDATA[", from)) != std::string::npos; from = at + 12) {
    BOOST_TEST(c.substr(from, at - from).find("]]>") == std::string::npos);
    joined += c.substr(from, at - from);
  }
  BOOST_TEST(c.substr(from).find("]]>") == std::string::npos);
  joined += c.substr(from);
  BOOST_TEST(joined == text);
}

BOOST_AUTO_TEST_CASE(markdown_cells_stay_one_cell_and_render_no_markup) {
  for (const auto& text : hostile()) {
    const std::string m = escape_markdown_cell(text);
    BOOST_TEST(m.find('\n') == std::string::npos, text);
    BOOST_TEST(m.find('\r') == std::string::npos, text);
    // Every character Markdown or HTML acts on is backslash-escaped (and so
    // is every backslash, so an escape cannot be cancelled): no tag, no
    // entity, no code span, no cell split.
    for (size_t at = 0; at < m.size(); ++at) {
      if (std::string_view("|`*_[]<>&~").find(m[at]) == std::string_view::npos) continue;
      size_t slashes = 0;
      while (slashes < at && m[at - 1 - slashes] == '\\') ++slashes;
      BOOST_TEST(slashes % 2 == 1, text << " at " << at << ": " << m);
    }
    BOOST_TEST(strictly_valid_utf8(m), text);
  }
  BOOST_TEST(escape_markdown_cell("a|b\nc") == "a\\|b \u23CE c");
  BOOST_TEST(escape_markdown_cell("<script>") == "\\<script\\>");
  BOOST_TEST(escape_markdown_cell("cmd:python3 'x.py' \"a\"") == "cmd:python3 'x.py' \"a\"");  // plain text stays plain
}

BOOST_AUTO_TEST_CASE(markdown_code_spans_hold_text_verbatim_on_one_line) {
  BOOST_TEST(markdown_code("pe.offset_only_dot") == "`pe.offset_only_dot`");
  BOOST_TEST(markdown_code("a`b") == "``a`b``");
  BOOST_TEST(markdown_code("`x`") == "`` `x` ``");
  BOOST_TEST(markdown_code("a|b", true) == "`a\\|b`");
  for (const auto& text : hostile()) {
    const std::string m = markdown_code(text, true);
    BOOST_TEST(m.find('\n') == std::string::npos, text);
    BOOST_TEST(strictly_valid_utf8(m), text);
  }
}

BOOST_AUTO_TEST_CASE(terminal_output_carries_no_control_sequences) {
  for (const auto& text : hostile()) {
    const std::string t = escape_terminal(text);
    std::vector<char32_t> cps;
    BOOST_REQUIRE_MESSAGE(strictly_valid_utf8(t, &cps), text);
    for (char32_t c : cps) {
      const bool control = (c < 0x20 && c != '\n' && c != '\t') || c == 0x7F || (c >= 0x80 && c <= 0x9F) ||
                           (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
      BOOST_TEST(!control, "U+" << std::hex << static_cast<unsigned>(c) << " from " << text);
    }
  }
  BOOST_TEST(escape_terminal("\x1b[31mred") == "\\x1b[31mred");
  BOOST_TEST(escape_terminal("\xC2\x9B" "31m") == "\\u009b31m");
  BOOST_TEST(escape_terminal("a\xE2\x80\xAE" "b") == "a\\u202eb");
  BOOST_TEST(escape_terminal("ω ≤ 1\n") == "ω ≤ 1\n");
}

BOOST_AUTO_TEST_CASE(clipping_cuts_at_a_character_boundary) {
  BOOST_TEST(clip_utf8("short", 10) == "short");
  BOOST_TEST(clip_utf8("abcdef", 3) == "abc …");
  // "ω" is two bytes, "≤" three: a cut inside either drops the whole character.
  BOOST_TEST(clip_utf8("aω", 2) == "a …");
  BOOST_TEST(clip_utf8("ab≤c", 3) == "ab …");
  BOOST_TEST(clip_utf8("ab≤c", 4) == "ab …");
  BOOST_TEST(clip_utf8("ab≤c", 5) == "ab≤ …");
  BOOST_TEST(clip_utf8("ab≤c", 2, "") == "ab");
  for (const auto& text : hostile()) {
    for (std::size_t n : {0, 1, 2, 3, 5, 8}) {
      const std::string clipped = clip_utf8(valid_utf8(text), n, "");
      BOOST_TEST(clipped.size() <= n);
      BOOST_TEST(strictly_valid_utf8(clipped, nullptr), text << " at " << n);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()  // test_escape
