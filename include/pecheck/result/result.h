#pragma once
// The results of a run as plain value types. A property × subject ends in
// exactly one of held, violated (with its counterexample), gave up, subject
// failure, error or not run — a sum type, as RapidCheck's TestResult, so no
// impossible combination (a violation without a witness, a pass with a
// subject failure) can be built. Its status against the expectation is
// derived, never stored. Writers are pure functions of these.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "pecheck/core/axis.h"
#include "pecheck/core/claim.h"
#include "pecheck/core/json.h"
#include "pecheck/core/tolerance.h"
#include "pecheck/result/budget.h"
#include "pecheck/result/check.h"
#include "pecheck/result/judge.h"
#include "pecheck/result/plots.h"

namespace pecheck {

// The shrunk witness of a violation: the input and the sub-check that failed.
struct Counterexample {
  json inputs;              // the property's input, as replay reads it
  std::string check;        // the sub-check that failed
  Bound::Kind bound_kind = Bound::Kind::upper;
  double error = 0;         // its error (the measured value, for a lower bound)
  Tolerance tolerance;      // the bound it broke
  Location location;        // where
  json observed;            // what the subject produced there
  json expected;            // what the claim requires there
  std::string note;         // what was compared
  std::string diagnosis;    // which usual suspect explains the answers, when the property can tell
  std::string where() const { return describe(location); }
};
Counterexample counterexample_of(json inputs, const JudgedCheck& failed, const std::string& case_note);

// What the harness saw when a subject broke.
struct SubjectFailureInfo {
  std::string message;
  std::string request;
  std::string received;
  std::string stderr_tail;
  std::string exit_status;
};

// One axis of what a cell checked (core/axis.h): the largest size its judged
// cases reached there, against the gate the shape ladder set (property/sizes.h).
struct AxisCoverage {
  std::int64_t reached = 0;   // the largest size on the axis in a request of a judged case
  std::int64_t gate = 0;      // the size the cell had to reach (0: the axis is not gated in this cell)
  std::int64_t refused = 0;   // the largest size in a request the subject refused (0: none)
  std::string set_by;         // what sets the gate: a declaration, a flag, or the ladder's default
  bool operator==(const AxisCoverage&) const = default;
};

// What a cell actually checked: every report says it, so that no cell passes
// on less than it was asked to check.
struct Coverage {
  int not_checkable = 0;                  // cases whose bound reached the largest possible error
  std::string not_checkable_reason;       // the first such case, in words
  std::map<std::string, int> refusals;    // refusal reason → count (the first few reasons)
  std::optional<Position> max_position;   // largest position in a request the subject answered
  std::optional<Position> max_refused_position;  // largest position in a request it refused at a width it handles
  std::optional<Position> max_uncheckable_position;  // largest position in a case that was not checkable
  std::optional<Position> shortest_refused_length;   // the shortest sequence it refused, of those longer than
                                                     // every sequence it answered (a table's length + 1)
  int max_width = 0;                      // largest width (d) in a request it answered
  int max_refused_width = 0;              // largest width it refused, when most refused widths lie beyond
                                          // those it answered (0: none, or a pattern such as odd d)
  Position position_gate = 0;             // the positions the gate asked for (0: not a positional cell)
  int width_gate = 0;                     // the widths the gate asked for (0: each generator's own range)
  std::string shortfall;                  // why the checked range falls short of the gate; empty: covered
  std::map<Axis, AxisCoverage> axes;      // per axis: reached, gate, what set it (positions: as above)
  int ladder_cases = 0;                   // cases judged at real-model shapes (the shape ladder), besides the search's
};
// "100 cases + 12 at real-model shapes, 3 refused, positions ≤ 9987, width 256 of 256, rows 4096 of 4096":
// one line per cell (axes_line below after the counts).
std::string coverage_line(int cases, int discards, const Coverage& coverage);
// "width 256 (gate 256), rows 4096 (gate 4096), history 64": each axis reached, with its gate.
std::string axes_line(const Coverage& coverage);

// The outcomes.
struct Held {
  std::optional<JudgedCheck> closest;  // the passing check that came closest to its bound
  std::string case_note;               // that case's note about the whole case
  // The closest among the shape ladder's cases alone, the sizes real models use
  // (property/sizes.h): how loose a bound is where it matters (bench's audit).
  std::optional<JudgedCheck> closest_in_ladder;
};
struct Violated {
  Counterexample counterexample;
  std::string reproduce;               // RapidCheck reproduce string (empty for a stored regression)
  std::string regression_file;         // the regression-store entry that still fails, if it came from one
};
struct GaveUp {
  std::string reason;                  // too many inputs refused or not checkable
};
struct SubjectFailed {
  SubjectFailureInfo failure;
};
struct Errored {
  std::string message;                 // an error of the harness or of RapidCheck
};
struct NotRun {
  std::string reason;                  // e.g. the subject failed during an earlier property
};
// It held on what was checked, but what was checked falls short of the gate
// (the subject refused the upper positions or widths): not a pass.
struct Uncovered {
  std::string shortfall;               // the range checked, against the gate's, and the hint
};
using Outcome = std::variant<Held, Violated, GaveUp, SubjectFailed, Errored, NotRun, Uncovered>;
// "holds", "violated", "uncovered", "error" (gave up, subject failure, error), "skipped" (not run).
std::string_view name(const Outcome& outcome);

struct PropertyResult {
  std::string property;              // property id
  std::string subject;               // subject spec
  Expect expectation = Expect::holds;
  std::uint64_t seed = 0;            // the seed this property × subject ran with
  double seconds = 0;
  int cases = 0;                     // cases the subject answered and were judged
  int shrinks = 0;                   // accepted shrink steps
  int shrink_tries = 0;              // shrink candidates evaluated
  // The run's time budget ended the shrink: the counterexample is the
  // smallest found so far, not one no candidate could shrink further.
  bool shrink_cut_short = false;
  // The failed claim of the same subject that likely explains this failure
  // (property/causes.h); empty for a cause, or a pass.
  std::string consequence_of;
  int discards = 0;                  // inputs the subject refused
  std::string discard_reason;        // the first refusal
  int regressions_replayed = 0;      // stored failures replayed before generating
  int regressions_unfit = 0;         // stored failures that no longer fit the property's input
  Coverage coverage;                 // what was actually checked
  Outcome outcome = NotRun{};

  Status status() const;
  // Why it did not pass, or what was refused, in a sentence (empty when there is nothing to say).
  std::string message() const;
  // Views of the outcome.
  const Counterexample* counterexample() const;
  const SubjectFailureInfo* subject_failure() const;
  const Violated* violation() const { return std::get_if<Violated>(&outcome); }
  bool held() const { return std::holds_alternative<Held>(outcome); }
  // The error and bound that decided: the counterexample's, or the closest passing check's.
  double error() const;
  Tolerance tolerance() const;
  std::string note() const;
  std::string reproduce() const { return violation() ? violation()->reproduce : std::string(); }
  std::string regression_file() const { return violation() ? violation()->regression_file : std::string(); }
};

// The status of an outcome against its expectation: held and violated meet
// or miss it; uncovered fails whatever was expected; gave up, subject failure
// and error are errors; not run is skipped.
Status status_of(const Outcome& outcome, Expect expectation);

struct SubjectSummary {
  std::string spec;
  std::string name;
  std::string dtype;
  std::string layout;
  std::string scheme;
  std::vector<std::string> ops;
  std::optional<SubjectFailureInfo> start_failure;  // the subject could not be started
  std::string no_cells;              // why no selected property applies to it (a run that checks it checks nothing)
  // The selected claims its declared conventions make false (PropertyInfo::
  // violated_when: sinks or a softcap and attention.softmax_stability): the
  // cells a merge reads as expected to be violated.
  std::vector<std::string> declared_violations;
  // The params it declared (its hello's `params` as pecheck read them,
  // written back: subjects/declare.h declared_params), in report.json beside
  // their digest: merge rebuilds the subject's conventions from them and
  // recomputes declared_violations against its own registry, so a list that
  // its declarations do not give is refused.
  json params = json::object();
};

// Which shard of a sharded run a report holds, and how much of the run it is.
struct ShardInfo {
  int index = 0;                     // 0-based
  int total = 1;
  int cells = 0;                     // cells assigned to this shard
  int total_cells = 0;               // cells of the whole (unsharded) run
};

struct RunReport {
  std::string pecheck_version;
  // Unique per run: report.json, each counterexample file and the report
  // directory's marker carry it, so a reader can tell one run's set; empty
  // until write_reports (report/report_files.h) draws one.
  std::string run_id;
  std::string program = "pecheck";   // how pecheck was invoked (argv[0]), for printed commands
  std::string command;               // the command line that reruns this run
  std::string rerun;                 // a front end's command that reruns it (pytest's node), shown in Rerun lines
  // The options a cell's draws and verdict depend on beyond those every Rerun
  // line names (--config, --model-config, --profile, ...), shell-quoted, each
  // with a leading space: without them a cell's Rerun line runs another cell.
  std::string cell_options;
  std::uint64_t seed = 0;
  int cases = 0;
  int max_size = 0;
  std::int64_t max_position = 0;
  int max_width = 0;                 // the gate's largest width; 0: each property's own range
  int history = 0;                   // --history: the longest history script asked for; 0: the ladder's
  double tolerance_factor = kDefaultToleranceFactor;
  std::string started_at;            // ISO 8601, UTC
  double seconds = 0;
  std::vector<PropertyInfo> properties;   // those selected, in registry order
  std::vector<SubjectSummary> subjects;
  std::vector<PropertyResult> results;
  int exit_code = 0;
  // The full error model of the run, so counterexample files replay alone.
  std::map<std::string, double> tolerance_overrides;   // property id -> factor
  std::map<std::string, double> tolerance_absolute;    // property id -> fixed bound
  // The configured expectations (pecheck.toml [expect]), over the registry's:
  // with them a report says what each cell was expected to do.
  std::map<std::string, Expect> expectations;          // property id -> expectation
  std::string report_dir;                 // where the reports were written (printed replay commands)
  std::string regression_dir;             // the regression store used; empty when off
  std::vector<std::string> regression_problems;  // store entries that could not be read (skipped)
  std::vector<std::string> regressions_saved;    // store entries written by this run
  std::vector<PrecisionBudget> budgets;   // --budget: encoder and rotary subjects
  std::vector<SubjectPlots> plots;        // the probe step, drawn in report.html
  std::string nothing_checked;            // why the run has no cell at all (then it fails)
  std::optional<ShardInfo> shard;         // a sharded run: this shard's part (merge combines them)
  int interrupted = 0;                    // the signal that stopped the run early (core/interrupt.h), or 0
  double time_budget = 0;                 // --time-budget: seconds the run was given (0: no limit)
  bool time_budget_spent = false;         // ... and they ran out before every cell had run (then it fails)
};

// 0 every property met its expectation; 1 one did not, or the run checked
// nothing, or a subject asked for got no cell, or the time budget ran out; 3 a subject failed (during a
// property, or to start); 128 + the signal when a signal stopped the run
// early (130 SIGINT, 143 SIGTERM: the shell's convention), whatever it had.
int exit_code_for(const RunReport& report);

}  // namespace pecheck
