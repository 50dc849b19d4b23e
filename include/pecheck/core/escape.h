#pragma once
// Escaping for every place a subject's text (its name, errors, stderr) lands:
// XML/HTML, Markdown tables and terminals. A subject controls those bytes.
#include <string>
#include <string_view>

namespace pecheck {

// &, <, >, ", ' as entities; control characters other than \t \n \r and
// invalid UTF-8 become U+FFFD (XML 1.0 cannot carry them, even escaped).
std::string escape_xml(std::string_view text);
// Text safe inside a CDATA section: "]]>" is split across two sections.
std::string escape_cdata(std::string_view text);
// One Markdown table cell, readable as plain text and rendering as the same
// text: newlines become " ⏎ ", and every character Markdown or HTML could
// act on (| ` * _ [ ] \\ < > & ~) is backslash-escaped, never an entity.
std::string escape_markdown_cell(std::string_view text);
// An inline code span holding `text` verbatim: a backtick fence longer than
// any run inside, newlines and control characters as spaces, and (in a table
// cell) pipes as \| — GitHub processes that escape even inside code spans.
std::string markdown_code(std::string_view text, bool in_table = false);
// Terminal-safe: control characters (ESC included) shown as \xNN, C1 controls
// and bidirectional overrides as \uNNNN, invalid UTF-8 replaced.
std::string escape_terminal(std::string_view text);
// Replaces invalid UTF-8 (truncated, overlong, surrogates, above U+10FFFF) with U+FFFD.
std::string valid_utf8(std::string_view text);
// `text` cut to at most `max_bytes` at a character boundary (never inside a
// UTF-8 sequence) and `marker` appended, where it is longer; else `text`.
std::string clip_utf8(std::string_view text, std::size_t max_bytes, std::string_view marker = " …");

}  // namespace pecheck
