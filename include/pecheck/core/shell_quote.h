#pragma once
// Quotes a word for a POSIX shell so that printed commands can be pasted.
#include <string>
#include <string_view>

namespace pecheck {

inline std::string shell_quote(std::string_view word) {
  const bool plain = !word.empty() && word.find_first_not_of(
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@,+") == std::string_view::npos;
  if (plain) return std::string(word);
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

}  // namespace pecheck
