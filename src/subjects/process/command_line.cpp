#include "subjects/process/command_line.h"

#include <algorithm>
#include <iterator>

namespace pecheck::process {

namespace {

// Characters that mean something to a shell wherever they stand unquoted.
constexpr std::string_view kShellSyntax = "|&;<>()$`*?[]{}!\n\r";

// Reserved words and builtins that are not programs: running them needs the shell.
constexpr std::string_view kShellWords[] = {
    "!",     "{",       "}",      "case",     "do",       "done",    "elif",   "else",   "esac",   "fi",
    "for",   "if",      "in",     "then",     "until",    "while",   "function", "select", ".",    ":",
    "alias", "bg",      "break",  "cd",       "command",  "continue", "eval",   "exec",   "exit",   "export",
    "fg",    "getopts", "hash",   "jobs",     "local",    "read",    "readonly", "return", "set",  "shift",
    "source", "times",  "trap",   "type",     "ulimit",   "umask",   "unset",  "wait"};

bool shell_word(std::string_view word) {
  return std::find(std::begin(kShellWords), std::end(kShellWords), word) != std::end(kShellWords);
}

bool assignment(std::string_view word) {
  const auto eq = word.find('=');
  if (eq == 0 || eq == std::string_view::npos) return false;
  const auto name = word.substr(0, eq);
  return std::all_of(name.begin(), name.end(), [](char c) {
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  });
}

}  // namespace

std::optional<std::vector<std::string>> split_command(std::string_view command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;   // a word has started (possibly empty: '')
  std::string raw;        // the current word's unquoted characters, a quote mark standing for quoted text
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(std::move(word)), word.clear(), raw.clear(), in_word = false;
      continue;
    }
    const bool word_start = !in_word;
    in_word = true;
    if (c == '\'') {
      const auto end = command.find('\'', i + 1);
      if (end == std::string_view::npos) return std::nullopt;
      word.append(command.substr(i + 1, end - i - 1));
      raw += '\'';  // quoted text never counts as shell syntax
      i = end;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < command.size() && command[j] != '"'; ++j) {
        const char d = command[j];
        if (d == '$' || d == '`') return std::nullopt;
        if (d == '\\' && j + 1 < command.size() &&
            (command[j + 1] == '"' || command[j + 1] == '\\' || command[j + 1] == '$' || command[j + 1] == '`')) {
          word += command[++j];
        } else if (d == '\\' && j + 1 < command.size() && command[j + 1] == '\n') {
          return std::nullopt;
        } else {
          word += d;
        }
      }
      if (j >= command.size()) return std::nullopt;
      raw += '"';
      i = j;
    } else if (c == '\\') {
      if (i + 1 >= command.size() || command[i + 1] == '\n') return std::nullopt;
      word += command[++i];
      raw += '\\';
    } else {
      if (kShellSyntax.find(c) != std::string_view::npos) return std::nullopt;
      if (word_start && (c == '~' || c == '#')) return std::nullopt;
      word += c;
      raw += c;
    }
    // The first word's unquoted spelling decides assignments (quoted, it is a program name).
    if (words.empty() && raw.find_first_of("'\"\\") == std::string::npos && assignment(raw)) return std::nullopt;
  }
  if (in_word) words.push_back(std::move(word));
  if (!words.empty() && words.front() == "exec" && words.size() > 1 && !words[1].empty() && words[1][0] != '-') {
    words.erase(words.begin());
  }
  if (words.empty() || words.front().empty() || shell_word(words.front())) return std::nullopt;
  return words;
}

}  // namespace pecheck::process
