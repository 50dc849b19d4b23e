#include "cli/options_validation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>

#include "pecheck/config/config_file.h"
#include "pecheck/core/escape.h"
#include "pecheck/runner/reproduce.h"

namespace pecheck::cli {

namespace {

bool all_digits(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

// Shown inside a message: a hostile value must not drive the terminal.
std::string shown(std::string_view text) { return escape_terminal(std::string(text.substr(0, 200))); }

CLI::Validator validator(std::string description, std::function<std::string(std::string_view)> check) {
  return CLI::Validator([check = std::move(check)](std::string& text) { return check(text); },
                        std::move(description));
}

// RapidCheck's reproduce-string encoding, walked here with every length
// checked before RapidCheck's own decoder reads it: that decoder trusts what
// the data declares (it reserves a declared name length up front, so 15
// characters can ask for 14 GB; it reads Random's last byte without checking
// for the end, then runs past it; it shifts by more than 64 on long
// integers). A string that walks cleanly to its end is one that decoder reads
// within bounds. Written from the format as RapidCheck defines it
// (github.com/emil-e/rapidcheck: src/detail/Base64.cpp,
// include/rapidcheck/detail/Serialization.hpp, Results.hpp, Random.hpp):
// 6 bits per character, least significant first, alphabet A-Z a-z 0-9 + _;
// integers "compact" in 7-bit groups, least significant first, the high bit
// set while more follow; fixed-width integers little-endian.
std::optional<std::vector<std::uint8_t>> decode_reproduce_bytes(std::string_view text) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::vector<std::uint8_t> out;
  out.reserve(text.size() * 3 / 4);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    std::uint32_t bits = 0;
    int nbits = 0;
    for (std::size_t j = i; j < std::min(text.size(), i + 4); ++j) {
      const char c = text[j];
      int value = -1;
      if (c >= 'A' && c <= 'Z') value = c - 'A';
      else if (c >= 'a' && c <= 'z') value = c - 'a' + 26;
      else if (c >= '0' && c <= '9') value = c - '0' + 52;
      else if (c == '+') value = 62;
      else if (c == '_') value = 63;
      if (value < 0) return std::nullopt;
      bits |= static_cast<std::uint32_t>(value) << nbits;
      nbits += 6;
    }
    for (; nbits >= 8; nbits -= 8, bits >>= 8) out.push_back(static_cast<std::uint8_t>(bits));
  }
  return out;
}

std::optional<std::uint64_t> read_compact(const std::vector<std::uint8_t>& bytes, std::size_t& at) {
  std::uint64_t value = 0;
  for (int shift = 0; at < bytes.size() && shift < 64; shift += 7) {
    const std::uint8_t byte = bytes[at++];
    value |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  return std::nullopt;
}

// Why the encoded map is not one pecheck writes — one property name, then
// one Reproduce (a Random: a 4 × 64-bit key, compact bits and counter, a
// bit index up to 64; a 32-bit size; a compact shrink path), nothing after —
// or "".
std::string reproduce_layout_problem(std::string_view text) {
  const auto decoded = decode_reproduce_bytes(text);
  if (!decoded) return "not in RapidCheck's base64 alphabet";
  const std::vector<std::uint8_t>& bytes = *decoded;
  std::size_t at = 0;
  auto skip = [&](std::uint64_t n) {
    if (n > bytes.size() - at) return false;
    at += static_cast<std::size_t>(n);
    return true;
  };
  const auto entries = read_compact(bytes, at);
  if (!entries) return "it ends before saying what it holds";
  if (*entries != 1) return fmt::format("it holds {} entries; pecheck's name exactly one property", *entries);
  const auto name_length = read_compact(bytes, at);
  if (!name_length || !skip(*name_length)) {
    return fmt::format("it declares a property name longer than the {} bytes it holds", bytes.size());
  }
  const bool random = skip(4 * 8) && read_compact(bytes, at) && read_compact(bytes, at) && at < bytes.size() &&
                      bytes[at++] <= 64;
  if (!random) return "its random state is cut short or out of range";
  if (!skip(4)) return "its size is cut short";
  const auto path_length = read_compact(bytes, at);
  if (!path_length || *path_length > bytes.size() - at) return "its shrink path is cut short";
  for (std::uint64_t i = 0; i < *path_length; ++i) {
    if (!read_compact(bytes, at)) return "its shrink path is cut short";
  }
  if (at != bytes.size()) return fmt::format("{} bytes follow its end", bytes.size() - at);
  return "";
}

}  // namespace

std::string count_problem(std::string_view text, std::int64_t lo, std::int64_t hi) {
  if (!all_digits(text)) {
    return fmt::format("'{}' is not a whole number in [{}, {}] (digits only: no sign, spaces or exponent)", shown(text),
                       lo, hi);
  }
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < lo || value > hi) {
    return fmt::format("{} is outside [{}, {}]", shown(text), lo, hi);
  }
  return "";
}

std::string seed_problem(std::string_view text) {
  if (text == "random") return "";
  std::uint64_t value = 0;
  const char* last = text.data() + text.size();
  if (!all_digits(text) || std::from_chars(text.data(), last, value).ec != std::errc()) {
    return fmt::format("'{}' is neither 'random' nor a whole number in [0, {}] (digits only: no sign)", shown(text),
                       std::numeric_limits<std::uint64_t>::max());
  }
  return "";
}

std::string positive_problem(std::string_view text, double most) {
  // strtod reads what people write (1e-3, 0.5, 10); it also reads nan and inf,
  // which are then refused by value.
  const std::string copy(text);
  char* end = nullptr;
  const bool blank_first = copy.empty() || std::isspace(static_cast<unsigned char>(copy.front()));
  const double value = blank_first ? 0 : std::strtod(copy.c_str(), &end);
  if (blank_first || end != copy.c_str() + copy.size()) return fmt::format("'{}' is not a number", shown(text));
  if (!std::isfinite(value) || !(value > 0)) return fmt::format("must be a finite positive number, got {}", shown(text));
  if (value > most) return fmt::format("{} is more than the largest allowed, {:g}", shown(text), most);
  return "";
}

std::string reproduce_problem(const std::string& text, const std::vector<std::string>& known_properties,
                              int max_size) {
  if (const std::string why = reproduce_layout_problem(text); !why.empty()) {
    return fmt::format("'{}' is not a RapidCheck reproduce string ({}); copy the \"reproduce\" field of report.json",
                       shown(text), why);
  }
  std::vector<ReproduceEntry> entries;
  try {
    entries = reproduce_entries(text);
  } catch (const std::exception& e) {
    return fmt::format("'{}' is not a RapidCheck reproduce string ({}); copy the \"reproduce\" field of report.json",
                       shown(text), shown(e.what()));
  }
  for (const auto& [id, size] : entries) {
    bool known = false;
    for (const auto& k : known_properties) known = known || k == id;
    if (!known) return fmt::format("'{}' reproduces property '{}', which this pecheck does not have", shown(text), shown(id));
    // The size drives how large the generated input is: a doctored one could
    // ask for matrices that do not fit in memory.
    if (size < 0 || size > max_size) {
      return fmt::format("'{}' draws {} at size {}, outside [0, --max-size {}]", shown(text), id, size,
                         max_size);
    }
  }
  return "";
}

CLI::Validator strict_count(std::int64_t lo, std::int64_t hi) {
  return validator(fmt::format("INT in [{}, {}]", lo, hi),
                   [lo, hi](std::string_view text) { return count_problem(text, lo, hi); });
}

CLI::Validator seed_value() { return validator("INT >= 0 or 'random'", seed_problem); }

CLI::Validator finite_positive(double most) {
  return validator(fmt::format("finite > 0, at most {:g}", most),
                   [most](std::string_view text) { return positive_problem(text, most); });
}

CLI::Validator non_empty() {
  return validator("non-empty", [](std::string_view text) {
    return text.empty() ? std::string("must not be empty (\"\" would mean the current directory or nothing at all)")
                        : std::string();
  });
}

CLI::Validator user_subject() {
  return validator("SPEC", [](std::string_view text) { return escape_terminal(user_subject_problem(text)); });
}

}  // namespace pecheck::cli
