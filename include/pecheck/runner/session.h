#pragma once
// The session library: plan a run (which properties, which subjects under
// which profile, which steps), then run the plan. The CLI is parse → plan →
// run → write; the C++/Boost.Test adapter plans and runs cells through the
// same functions. What a run does besides the cells is composed by its caller
// (the composition root: src/cli/run_steps.cpp for `pecheck run`) behind the
// interfaces below, as RapidCheck composes its test listeners: observers are
// told of the plan, each cell and the report (console progress, progress
// events); steps act before a cell (the regression store's replay) or after
// the cells, adding to the report (saving failures, plots, precision
// budgets). The runner includes none of them.
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "pecheck/config/profiles.h"
#include "pecheck/property/property.h"
#include "pecheck/result/not_run.h"  // not_run_after_failure, as run() records it
#include "pecheck/result/result.h"
#include "pecheck/runner/cell.h"
#include "pecheck/runner/options.h"
#include "pecheck/runner/subject_maker.h"

namespace pecheck {

// A usage or configuration error found while planning (exit 2).
struct PlanError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// True when `id` matches any of the shell-style globs (or when there are none).
bool matches_any(const std::string& id, const std::vector<std::string>& globs);

struct PlannedSubject {
  SubjectSpec spec;
  SubjectPtr subject;                               // null when it could not be started
  std::optional<SubjectFailureInfo> start_failure;  // why not
  std::optional<Profile> profile;                   // the profile it is judged by; none: its own scheme
  std::string scheme;                               // whose expectations apply
  std::vector<const PropertyDef*> properties;       // the cells: those that apply, in registry order
  double start_seconds = 0;                         // how long it took to start (what another instance costs)
};

struct Plan;

// A step before each cell (the regression store replays stored failures first).
class CellStep {
 public:
  virtual ~CellStep() = default;
  // A result that stands for the cell without generating (a stored failure
  // that still fails), or nullopt; `replayed` counts what was tried.
  virtual std::optional<PropertyResult> before(const PropertyDef& property, Subject& subject,
                                               const RunOptions& options, Expect expectation,
                                               PropertyResult& counts) = 0;
};

// A step after the cells, adding to the report: plots, budgets, saving new
// failures. Not run when the run was interrupted (the subjects are stopped).
class FinishStep {
 public:
  virtual ~FinishStep() = default;
  virtual void finish(Plan& plan, RunReport& report) = 0;
};

// The steps a caller hands plan(), run in the order given.
struct Steps {
  std::vector<std::shared_ptr<CellStep>> before_cell;
  std::vector<std::shared_ptr<FinishStep>> after_cells;
};

struct Plan {
  RunOptions options;
  // Starts one more instance of a subject for a parallel job (--jobs); none:
  // the cells run one at a time on the planned instances.
  SubjectMaker make;
  std::vector<const PropertyDef*> selected;         // matched by the globs (and the named profile)
  std::vector<PlannedSubject> subjects;
  Steps steps;
};

// Progress events (reporting is an observer).
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void on_plan(const Plan&) {}
  virtual void on_cell_start(const PropertyInfo&, const SubjectInfo&) {}
  virtual void on_cell_result(const PropertyResult&) {}
  virtual void on_finish(const RunReport&) {}
};

// Forwards every event to each observer, in order.
class MulticastObserver final : public RunObserver {
 public:
  void add(RunObserver& observer) { observers_.push_back(&observer); }
  void on_plan(const Plan& p) override;
  void on_cell_start(const PropertyInfo& p, const SubjectInfo& s) override;
  void on_cell_result(const PropertyResult& r) override;
  void on_finish(const RunReport& r) override;

 private:
  std::vector<RunObserver*> observers_;
};

// The profile named by the options, or nullptr; throws PlanError for an unknown one.
const Profile* named_profile(const RunOptions& options);
// Throws PlanError for a property id in the error model's overrides or fixed
// bounds, or in the expectations, that the registry does not know: a typo'd
// id would otherwise silently leave its property on the defaults.
void require_known_ids(const RunOptions& options);
// The properties the options select: their globs, within the named profile
// (if any); the known-ids check done. Throws PlanError when none is selected.
// plan() and the C++ adapter select through it.
std::vector<const PropertyDef*> select_properties(const RunOptions& options, const Profile* named);
// The cells of one subject: its profile, scheme and applicable properties among `selected`.
PlannedSubject plan_subject(SubjectPtr subject, const std::vector<const PropertyDef*>& selected,
                            const Profile* named);

// Resolves the selection and the profile, starts the subjects (one that
// cannot start is recorded, not thrown), and keeps the caller's steps (none:
// the cells alone). Throws PlanError for a usage or configuration error: an
// unknown profile, spec or property id, no property selected.
// `make` starts each subject, and again for each further job of run() where
// starts_independently(spec) (subjects/factory.h): each call must return a
// new instance that shares no state with the others.
Plan plan(const RunOptions& options, Steps steps = {}, const SubjectMaker& make = make_subject_for);

// Runs every cell (of the options' shard), subject by subject, on
// options.jobs threads (each job with its own instance of each subject,
// started by plan.make); results, observer calls (all on the calling thread)
// and the report come in planned order, the same for any number of jobs.
// After a subject fails its later cells are recorded as not run, with the
// reason; results already obtained are kept. Then the finish steps.
RunReport run(Plan& plan, RunObserver& observer);

SubjectSummary summarize(const SubjectInfo& info);

}  // namespace pecheck
