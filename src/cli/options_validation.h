#pragma once
// The command line's values checked as strictly as the config file checks its
// own (src/config/config_file.cpp), before any work starts: a value that
// would switch a safeguard off (a NaN timeout), wrap (--seed -5), or mean
// something else than it says (--report-dir "" is the current directory) is
// a usage error, exit 2, naming the option and what is wrong.
//
// Each check returns why the text is refused, or "" when it is fine; the
// CLI11 validators below wrap them (CLI11 runs validators on the raw text,
// before converting it).
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pecheck::cli {

// Digits only (no sign, no spaces, no 0x, no exponent), within [lo, hi].
std::string count_problem(std::string_view text, std::int64_t lo, std::int64_t hi);
// A non-negative integer that fits in 64 bits without wrapping, or "random".
std::string seed_problem(std::string_view text);
// A finite number in (0, most].
std::string positive_problem(std::string_view text, double most);
// A RapidCheck reproduce string from a report: it decodes, and each property
// it names is one of `known_properties`, drawn at a size within [0, max_size].
std::string reproduce_problem(const std::string& text, const std::vector<std::string>& known_properties,
                              int max_size);

CLI::Validator strict_count(std::int64_t lo, std::int64_t hi);
CLI::Validator seed_value();
CLI::Validator finite_positive(double most);
CLI::Validator non_empty();
// A subject a person may name: builtin:, mutant:, cmd:, plugin: (config/config_file.h).
CLI::Validator user_subject();

}  // namespace pecheck::cli
