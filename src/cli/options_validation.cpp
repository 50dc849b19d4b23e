#include "cli/options_validation.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <cmath>
#include <limits>
#include <unordered_map>

#include <rapidcheck/detail/Results.h>

#include "pecheck/config/config_file.h"
#include "pecheck/core/escape.h"

// Declared in RapidCheck's sources (src/detail/StringSerialization.cpp),
// exported by its library but not by a public header; src/runner/rapidcheck_glue.cpp
// decodes the same string when the run starts.
namespace rc::detail {
std::unordered_map<std::string, Reproduce> stringToReproduceMap(const std::string& str);
}  // namespace rc::detail

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
  std::unordered_map<std::string, rc::detail::Reproduce> map;
  try {
    map = rc::detail::stringToReproduceMap(text);
  } catch (const std::exception& e) {
    return fmt::format("'{}' is not a RapidCheck reproduce string ({}); copy the \"reproduce\" field of report.json",
                       shown(text), shown(e.what()));
  }
  if (map.empty()) return fmt::format("'{}' names no property to reproduce", shown(text));
  for (const auto& [id, reproduce] : map) {
    bool known = false;
    for (const auto& k : known_properties) known = known || k == id;
    if (!known) return fmt::format("'{}' reproduces property '{}', which this pecheck does not have", shown(text), shown(id));
    // The size drives how large the generated input is: a doctored one could
    // ask for matrices that do not fit in memory.
    if (reproduce.size < 0 || reproduce.size > max_size) {
      return fmt::format("'{}' draws {} at size {}, outside [0, --max-size {}]", shown(text), id, reproduce.size,
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
