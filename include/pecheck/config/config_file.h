#pragma once
// pecheck.toml: a run's settings as a file, so a CI job is one line
// (`pecheck run --config pecheck.toml`). Every field is optional; flags given
// on the command line override the file. Unknown keys are errors, so a typo
// never passes silently. examples/pecheck.toml documents every key.
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "pecheck/config/subject_config.h"
#include "pecheck/core/claim.h"

namespace pecheck {

// A malformed file: the message names the file, the line and the key.
struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct FileConfig {
  std::string source;                           // the file (or name) it was read from
  std::vector<std::string> subjects;            // subject = "spec" or ["spec", ...]
  std::optional<std::string> profile;
  std::vector<std::string> properties;          // globs
  std::optional<int> cases;
  std::optional<std::string> seed;              // a number, or "random"
  std::optional<std::int64_t> max_position;
  std::optional<int> history;                   // requests in the longest history script (run --history)
  std::optional<double> subject_timeout;
  std::optional<std::string> report_dir;
  std::optional<std::string> model_config;      // a config.json laid over every subject (params.model)
  std::map<std::string, Expect> expect;         // [expect] property id -> holds | violated
  std::optional<double> tolerance_factor;       // [tolerance] factor
  std::map<std::string, double> tolerance_factors;  // [tolerance."id"] factor
  std::map<std::string, double> tolerance_bounds;   // [tolerance."id"] bound
  // [subject."SPEC"] tables: conventions and max_position per subject
  // (config/subject_config.h); their specs are in `subjects` too.
  std::map<std::string, SubjectDeclaration> subject_declarations;
};

// The longest a process subject may be given per request: process subjects
// clamp to it (src/subjects/process/process_subject.cpp), so a larger value
// would be silently shortened.
inline constexpr double kMaxSubjectTimeoutSeconds = 1e6;

// Why `spec` is not a subject a person may name (on the command line or in the
// file), or "" when it is one: builtin:NAME, mutant:NAME, cmd:COMMAND or
// plugin:PATH. plugin-inproc:PATH is refused: it loads plugin code into
// pecheck itself, where a crash ends the run; it stays internal to the child
// `pecheck serve` that plugin:PATH starts.
std::string user_subject_problem(std::string_view spec);

// The first spec that `specs` names twice, or "". Duplicates are refused, not
// merged: a subject named twice would only repeat its results (and every
// report would carry them twice), so it is a mistake worth stopping for.
std::string repeated_subject(const std::vector<std::string>& specs);

// Parses TOML text. `known_properties` are the registry's ids: property ids
// and globs in the file must name some of them. Throws ConfigError.
FileConfig parse_config(std::string_view text, const std::string& source,
                        const std::vector<std::string>& known_properties);
// Reads and parses a file; a file that cannot be read is a ConfigError too.
FileConfig load_config(const std::string& path, const std::vector<std::string>& known_properties);

}  // namespace pecheck
