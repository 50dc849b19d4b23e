#include "runner/run_cells.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "pecheck/core/interrupt.h"
#include "pecheck/subjects/copies.h"
#include "pecheck/subjects/factory.h"
#include "runner/cell_costs.h"
#include "runner/instance_pool.h"
#include "runner/parallel.h"

namespace pecheck {

namespace {

// A result of `cell` that is no measurement: not run, or its subject failed to start.
PropertyResult result_without_cases(const PlannedCell& cell, const SubjectSpec& spec, Outcome outcome) {
  PropertyResult r;
  r.property = cell.property->info.id;
  r.subject = format_spec(spec);
  r.expectation = cell.expectation;
  r.outcome = std::move(outcome);
  return r;
}

PropertyResult not_run_interrupted(const PlannedCell& cell, const SubjectSpec& spec, int sig) {
  return result_without_cases(cell, spec,
                              NotRun{fmt::format("not run: the run was interrupted by {}", interrupt_name(sig))});
}

// One cell on `subject`: the subject's own position gate (pecheck.toml's
// [subject."SPEC"] max_position), the steps before it, then the cell itself.
PropertyResult run_planned_cell(Plan& plan, const PropertyDef& property, Subject& subject, Expect expectation) {
  const RunOptions* options = &plan.options;
  RunOptions own_gate;
  if (auto it = plan.options.subject_max_position.find(format_spec(subject.info().spec));
      it != plan.options.subject_max_position.end()) {
    own_gate = plan.options;
    own_gate.max_position = it->second;
    options = &own_gate;
  }
  PropertyResult counts;
  for (const auto& step : plan.steps.before_cell) {
    if (auto stored = step->before(property, subject, *options, expectation, counts)) return *stored;
  }
  PropertyResult r = run_cell(property, subject, *options, expectation);
  r.regressions_replayed = counts.regressions_replayed;
  r.regressions_unfit = counts.regressions_unfit;
  r.seconds += counts.seconds;
  return r;
}

class CellRun {
 public:
  CellRun(Plan& plan, const std::vector<PlannedCell>& cells)
      : plan_(plan),
        o_(plan.options),
        cells_(cells),
        workers_(std::max<std::size_t>(1, std::min<std::size_t>(plan.make ? effective_jobs(o_.jobs) : 1, cells.size()))),
        results_(cells.size()),
        first_failure_(plan.subjects.size(), cells.size()),
        pools_(plan.subjects.size()),
        shared_(plan.subjects.size(), 0),
        turn_(plan.subjects.size(), 0),
        rank_(cells.size(), 0),
        broken_by_(plan.subjects.size()),
        costs_(o_.regressions ? std::filesystem::path(o_.regression_dir) / "cell-costs.tsv"
                              : std::filesystem::path()) {}

  void run(RunReport& report, RunObserver& observer) {
    share_instances();
    run_ordered(
        cells_.size(), static_cast<int>(workers_), [this](std::size_t, std::size_t i) { take_turn(i); },
        [&](std::size_t i) { deliver(i, report, observer); }, costliest_first());
    pools_.clear();  // stop the subject processes the jobs started before the finish steps
    if (interrupt_signal() == 0) costs_.save();
  }

 private:
  // The jobs share each subject's instances (runner/instance_pool.h): the
  // planned one first, others started from plan.make only when a job has
  // waited as long as a start takes (a process subject: another process).
  // An instance serves one cell at a time: never two threads at once. A
  // subject that cannot be started again nor copied (fd: without fork, an
  // in-process plugin) runs its cells on its one instance, one at a time and
  // in planned order (take_turn).
  void share_instances() {
    std::vector<std::size_t> count(plan_.subjects.size(), 0);
    for (std::size_t i = 0; i < cells_.size(); ++i) rank_[i] = count[cells_[i].subject]++;
    const SubjectOptions options = subject_options(o_);
    for (std::size_t s = 0; s < plan_.subjects.size(); ++s) {
      const PlannedSubject& planned = plan_.subjects[s];
      const bool forks = planned.subject && makes_fresh_copies(*planned.subject);
      shared_[s] = !forks && !starts_independently(planned.spec, options);
      if (workers_ > 1 && !shared_[s]) {
        // A forked copy costs milliseconds, not a start-up: a job waits for none.
        pools_[s] = std::make_unique<InstancePool>(planned.subject.get(), forks ? 0.0 : planned.start_seconds);
      }
    }
  }

  // The costliest cells start first (a serial subject's cells keep their
  // order), measured in earlier runs where the regression store keeps them.
  std::vector<std::size_t> costliest_first() const {
    if (workers_ <= 1) return {};
    std::vector<double> estimates(cells_.size());
    std::vector<std::size_t> serial(cells_.size(), static_cast<std::size_t>(-1));
    for (std::size_t i = 0; i < cells_.size(); ++i) {
      estimates[i] = costs_.estimate(cells_[i].property->info, plan_.subjects[cells_[i].subject].spec, o_.cases);
      if (shared_[cells_[i].subject]) serial[i] = cells_[i].subject;
    }
    return start_order(estimates, serial);
  }

  // A cell of a subject that takes turns waits for its turn (the earlier
  // cells were taken by other workers before it, so the wait ends).
  void take_turn(std::size_t i) {
    const std::size_t s = cells_[i].subject;
    if (workers_ == 1 || !shared_[s]) return run_one(i);
    {
      std::unique_lock lock(mutex_);
      turn_changed_.wait(lock, [&] { return turn_[s] == rank_[i]; });
    }
    struct NextTurn {  // also when the cell throws
      CellRun& run;
      std::size_t s;
      ~NextTurn() {
        {
          std::lock_guard lock(run.mutex_);
          ++run.turn_[s];
        }
        run.turn_changed_.notify_all();
      }
    } next{*this, s};
    run_one(i);
  }

  void run_one(std::size_t i) {
    {
      // The first cell (in planned order) during which the subject failed:
      // later cells of it are not run (their results would be replaced anyway).
      std::lock_guard lock(mutex_);
      if (first_failure_[cells_[i].subject] < i) return;
    }
    if (auto skipped = not_to_start(i)) {
      results_[i] = std::move(skipped);
      return;
    }
    Subject* subject = instance_for(i);
    struct Release {  // also when the cell throws; a broken instance is not handed out again
      InstancePool* pool;
      Subject* subject;
      const std::optional<PropertyResult>& result;
      ~Release() {
        if (pool != nullptr && subject != nullptr) pool->release(subject, !result || result->subject_failure() != nullptr);
      }
    } release{pools_[cells_[i].subject].get(), subject, results_[i]};
    if (subject != nullptr) measure(i, *subject);
    settle(i);
  }

  // A graceful stop, or the run's time budget spent: no new cell starts.
  std::optional<PropertyResult> not_to_start(std::size_t i) const {
    const PlannedCell& cell = cells_[i];
    const SubjectSpec& spec = plan_.subjects[cell.subject].spec;
    if (const int sig = interrupt_signal(); sig != 0) return not_run_interrupted(cell, spec, sig);
    if (o_.deadline && std::chrono::steady_clock::now() >= *o_.deadline) {
      return result_without_cases(
          cell, spec, NotRun{fmt::format("not run: the run's time budget ({:g} s) was spent", o_.time_budget)});
    }
    return std::nullopt;
  }

  // The instance the cell runs on: the planned one, or one of its pool's. A
  // subject that forks copies gives a job a copy (no start-up); others start
  // again. Null when starting one failed (the cell's result says so).
  Subject* instance_for(std::size_t i) {
    const PlannedCell& cell = cells_[i];
    const PlannedSubject& planned = plan_.subjects[cell.subject];
    InstancePool* pool = pools_[cell.subject].get();
    if (pool == nullptr) return planned.subject.get();
    try {
      return pool->acquire([&] {
        SubjectPtr copy = fresh_copy_of(*planned.subject);
        return copy ? std::move(copy) : plan_.make(planned.spec, o_);
      });
    } catch (const SubjectFailure& f) {
      results_[i] = result_without_cases(cell, planned.spec, SubjectFailed{failure_info(f)});
      return nullptr;
    }
  }

  void measure(std::size_t i, Subject& subject) {
    const PlannedCell& cell = cells_[i];
    results_[i] = run_planned_cell(plan_, *cell.property, subject, cell.expectation);
    // The rate of its cases (not of a shrink, which the regression store spares the next run).
    const PropertyResult& r = *results_[i];
    if (!r.subject_failure() && r.regressions_replayed == 0 && r.shrink_tries == 0) {
      costs_.measured(cell.property->info.id, plan_.subjects[cell.subject].spec, r.cases, r.seconds);
    }
  }

  // Stopping kills the subjects: what broke after the signal is the stop, not
  // the subject. A subject that broke runs none of its later cells.
  void settle(std::size_t i) {
    const PlannedCell& cell = cells_[i];
    if (const int sig = interrupt_signal(); sig != 0 && results_[i]->subject_failure()) {
      results_[i] = not_run_interrupted(cell, plan_.subjects[cell.subject].spec, sig);
      return;
    }
    if (results_[i]->subject_failure()) {
      std::lock_guard lock(mutex_);
      first_failure_[cell.subject] = std::min(first_failure_[cell.subject], i);
    }
  }

  // On the calling thread, in planned order: a cell after its subject broke
  // is recorded as not run, naming the property during which it broke.
  void deliver(std::size_t i, RunReport& report, RunObserver& observer) {
    const PlannedCell& cell = cells_[i];
    const PlannedSubject& planned = plan_.subjects[cell.subject];
    std::string& broken_by = broken_by_[cell.subject];
    if (!broken_by.empty()) {
      report.results.push_back(not_run_after_failure(cell.property->info.id, format_spec(planned.spec), cell.expectation,
                                                   broken_by));
    } else {
      observer.on_cell_start(cell.property->info, planned.subject->info());
      report.results.push_back(std::move(*results_[i]));
      if (report.results.back().subject_failure()) broken_by = cell.property->info.id;
    }
    results_[i].reset();
    observer.on_cell_result(report.results.back());
  }

  Plan& plan_;
  const RunOptions& o_;
  const std::vector<PlannedCell>& cells_;
  const std::size_t workers_;
  std::vector<std::optional<PropertyResult>> results_;
  std::mutex mutex_;  // guards first_failure_ and turn_
  std::vector<std::size_t> first_failure_;
  std::vector<std::unique_ptr<InstancePool>> pools_;
  std::vector<char> shared_;  // the subjects whose cells take turns on one instance
  std::vector<std::size_t> turn_, rank_;
  std::condition_variable turn_changed_;
  std::vector<std::string> broken_by_;  // the property during which each subject failed
  CellCosts costs_;
};

}  // namespace

void run_cells(Plan& plan, const std::vector<PlannedCell>& cells, RunReport& report, RunObserver& observer) {
  CellRun(plan, cells).run(report, observer);
}

}  // namespace pecheck
