#pragma once
// The results of a run as plain value types. Writers are pure functions of
// these; nothing here knows about files or formats.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pecheck/core/json.h"
#include "pecheck/core/tolerance.h"
#include "pecheck/core/claim.h"
#include "pecheck/result/budget.h"
#include "pecheck/result/plots.h"

namespace pecheck {

enum class Outcome { holds, violated, error, skipped };
enum class Status { passed, failed, error, skipped };
std::string_view name(Outcome o);
std::string_view name(Status s);

// The shrunk witness of a violation.
struct Counterexample {
  json inputs;              // the property's input, as the replay command reads it
  json observed;            // what the subject produced where the error is largest
  json expected;            // what the claim requires there
  std::string where;        // which entry, in words
  std::string note;         // what was compared
  double error = 0;
  Tolerance tolerance;
};

// What the harness saw when a subject broke.
struct SubjectFailureInfo {
  std::string message;
  std::string request;
  std::string received;
  std::string stderr_tail;
  std::string exit_status;
};

struct PropertyResult {
  std::string property;              // property id
  std::string subject;               // subject spec
  Expect expectation = Expect::holds;
  Outcome outcome = Outcome::skipped;
  Status status = Status::skipped;
  int cases = 0;                     // test cases run
  int shrinks = 0;                   // accepted shrink steps
  int shrink_tries = 0;              // shrink candidates evaluated
  int discards = 0;                  // inputs the subject refused
  double seconds = 0;
  std::uint64_t seed = 0;            // the seed this property x subject ran with
  double error = 0;                  // worst error seen (or the counterexample's)
  Tolerance tolerance;               // the bound that error was judged against
  std::optional<Counterexample> counterexample;
  std::string reproduce;             // RapidCheck reproduce string (violations)
  std::string message;               // why error/skipped; discard reasons
  std::string note;                  // what was compared (from the property's measurement)
  std::optional<SubjectFailureInfo> subject_failure;
  // Regression store (src/replay/regression_store.h): stored failures replayed
  // before generating; when one still fails it is the result and no case is generated.
  int regressions_replayed = 0;
  bool from_regression_store = false;
  std::string regression_file;       // the store entry that still fails
};

struct SubjectSummary {
  std::string spec;
  std::string name;
  std::string dtype;
  std::string layout;
  std::string scheme;
  std::vector<std::string> ops;
};

struct RunReport {
  std::string pecheck_version;
  // Unique per run: report.json, each counterexample file and the report
  // directory's marker carry it, so a reader can tell one run's set; empty
  // until write_reports (report/report_files.h) draws one.
  std::string run_id;
  std::string program = "pecheck";   // how pecheck was invoked (argv[0]), for printed commands
  std::string command;               // the command line that reruns this run
  std::uint64_t seed = 0;
  int cases = 0;
  int max_size = 0;
  std::int64_t max_position = 0;
  double tolerance_factor = 8;
  std::string started_at;            // ISO 8601, UTC
  double seconds = 0;
  std::vector<PropertyInfo> properties;   // those selected, in registry order
  std::vector<SubjectSummary> subjects;
  std::vector<PropertyResult> results;
  int exit_code = 0;
  // The full error model of the run, so counterexample files replay alone.
  std::map<std::string, double> tolerance_overrides;   // property id -> factor
  std::map<std::string, double> tolerance_absolute;    // property id -> fixed bound
  std::string report_dir;                 // where the reports were written (printed replay commands)
  std::string regression_dir;             // the regression store used; empty when off
  std::vector<PrecisionBudget> budgets;   // --budget: encoder and rotary subjects
  std::vector<SubjectPlots> plots;        // the probe step, drawn in report.html
};

// 0 every property met its expectation; 1 one did not; 3 a subject failed.
int exit_code_for(const std::vector<PropertyResult>& results);

}  // namespace pecheck
