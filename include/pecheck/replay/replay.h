#pragma once
// Replay: measure one recorded input again, against the subject it was found
// on or another one (the loop a developer runs while fixing a bug). No
// generation and no RapidCheck: the property's own measure function is called
// on exactly the recorded input, and judged as a run would judge it.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "pecheck/core/json.h"
#include "pecheck/core/tolerance.h"
#include "pecheck/property/property.h"
#include "pecheck/runner/cell.h"
#include "pecheck/result/result.h"
#include "pecheck/subjects/subject.h"

namespace pecheck {

// The file is not a counterexample pecheck can replay (a usage error: exit 2).
struct ReplayFileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What a counterexample file (or regression-store entry) records.
struct RecordedCase {
  std::string property;                 // property id
  std::string subject;                  // spec it was found against
  json inputs;                          // the property's input
  std::optional<Expect> expectation;    // as judged when recorded
  std::optional<Counterexample> recorded;  // the measurement when recorded
  std::string reproduce;                // RapidCheck reproduce string of the original run
  std::uint64_t seed = 0;               // the property × subject seed of the original run
  std::string pecheck_version;
  // The error model the case was judged with (its precision is the replaying subject's).
  ErrorModel error_model;
};

// Reads the JSON of a counterexample file, a store entry, or one result of
// report.json. Throws ReplayFileError when a required field is missing.
RecordedCase parse_recorded_case(const json& record);
RecordedCase read_recorded_case(const std::filesystem::path& file);

// Measures `inputs` once with `property`'s measurement against `subject` and
// judges it as a run does (result/judge.h): held or violated against
// `expectation`; a refusal is not run (with the reason), a broken subject a
// subject failure. `cases` is 1 when measured. Throws ReplayFileError when
// the inputs do not fit the property.
PropertyResult replay_case(const PropertyDef& property, Subject& subject, const json& inputs,
                           const ErrorModel& model, Expect expectation);

// What a replay means for the developer, in a few words:
//   "now holds (fixed)", "still fails", "violation reproduced (expected)",
//   "no longer witnesses the expected violation", "subject refused the input",
//   "subject failure".
std::string_view replay_verdict(const PropertyResult& result);
// 0 the expectation is met (fixed, or an expected violation reproduced);
// 1 it is not (still fails, the witness is lost, or the input was refused);
// 3 the subject failed.
int replay_exit_code(const PropertyResult& result);

}  // namespace pecheck
