#include "pecheck/runner/session.h"

#include <fnmatch.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <condition_variable>
#include <mutex>

#include "pecheck/budget/precision_budget.h"
#include "pecheck/core/interrupt.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/probe/plot_probe.h"
#include "pecheck/property/registry.h"
#include "pecheck/replay/regression_store.h"
#include "pecheck/runner/shard.h"
#include "pecheck/subjects/builtin/builtins.h"
#include "pecheck/subjects/copies.h"
#include "pecheck/subjects/declare.h"
#include "pecheck/subjects/factory.h"
#include "runner/cell_costs.h"
#include "runner/instance_pool.h"
#include "runner/parallel.h"

#ifndef PECHECK_VERSION
#define PECHECK_VERSION "0.0.0"
#endif

namespace pecheck {

bool matches_any(const std::string& id, const std::vector<std::string>& globs) {
  if (globs.empty()) return true;
  for (const auto& g : globs) {
    if (fnmatch(g.c_str(), id.c_str(), 0) == 0) return true;
  }
  return false;
}

void MulticastObserver::on_plan(const Plan& p) {
  for (auto* o : observers_) o->on_plan(p);
}
void MulticastObserver::on_cell_start(const PropertyInfo& p, const SubjectInfo& s) {
  for (auto* o : observers_) o->on_cell_start(p, s);
}
void MulticastObserver::on_cell_result(const PropertyResult& r) {
  for (auto* o : observers_) o->on_cell_result(r);
}
void MulticastObserver::on_finish(const RunReport& r) {
  for (auto* o : observers_) o->on_finish(r);
}

SubjectPtr make_subject_for(const std::string& spec, const RunOptions& options) {
  SubjectOptions subject_options{options.subject_timeout};
  subject_options.executable = options.executable;
  subject_options.fork = options.fork;
  SubjectPtr subject = make_subject(spec, subject_options);
  if (auto it = options.declarations.find(spec); it != options.declarations.end()) {
    try {
      subject = with_declarations(std::move(subject), it->second);  // BadDeclaration: exit 2, naming the field
    } catch (const BadDeclaration& e) {
      // Declared in a file: its line, the field's, or the nearest enclosing table's.
      const auto lines = options.declaration_lines.find(spec);
      if (lines == options.declaration_lines.end()) throw;
      std::string field = e.field, where;
      for (;;) {
        if (auto at = lines->second.find(field); at != lines->second.end()) {
          where = at->second;
          break;
        }
        const auto dot = field.rfind('.');
        if (dot == std::string::npos) {
          const auto table = lines->second.find("");
          where = table != lines->second.end() ? table->second : "";
          break;
        }
        field.resize(dot);
      }
      if (where.empty()) throw;
      throw BadDeclaration(e.field, fmt::format("{}: subject.\"{}\".{}: {}", where, spec, e.field, e.what()));
    }
  }
  return subject;
}

const Profile* named_profile(const RunOptions& options) {
  if (options.profile.empty()) return nullptr;
  const Profile* p = find_profile(options.profile);
  if (p == nullptr) throw PlanError(fmt::format("unknown profile '{}'; known: {}", options.profile, profile_names()));
  return p;
}

void require_known_ids(const RunOptions& options) {
  auto check = [](const auto& by_id, const char* what) {
    for (const auto& entry : by_id) {
      if (find_property(entry.first) == nullptr) {
        throw PlanError(fmt::format("{} for unknown property '{}'; see 'pecheck list'", what, entry.first));
      }
    }
  };
  check(options.error_model.overrides, "a tolerance factor");
  check(options.error_model.absolute, "a fixed tolerance bound");
  check(options.expectations, "an expectation");
}

PlannedSubject plan_subject(SubjectPtr subject, const std::vector<const PropertyDef*>& selected,
                            const Profile* named) {
  PlannedSubject out;
  const SubjectInfo& info = subject->info();
  out.spec = info.spec;
  out.profile = profile_for(info, named);
  out.scheme = out.profile ? out.profile->name : info.scheme;
  for (const auto* p : selected) {
    if (p->info.applies_to(info) && profile_applies(out.profile, p->info.id)) out.properties.push_back(p);
  }
  out.subject = std::move(subject);
  return out;
}

std::vector<const PropertyDef*> select_properties(const RunOptions& options, const Profile* named) {
  require_known_ids(options);
  std::vector<const PropertyDef*> selected;
  for (const auto& p : all_properties()) {
    if (matches_any(p.info.id, options.properties) && (named == nullptr || profile_applies(*named, p.info.id))) {
      selected.push_back(&p);
    }
  }
  if (selected.empty()) {
    std::string globs;
    for (const auto& g : options.properties) globs += fmt::format("{}'{}'", globs.empty() ? "" : ", ", g);
    throw PlanError(fmt::format("no property matches --properties {}{}; see 'pecheck list'", globs,
                                named ? " within profile '" + named->name + "'" : std::string()));
  }
  return selected;
}

Plan plan(const RunOptions& options, const SubjectMaker& make) {
  Plan out;
  out.options = options;
  out.make = make;
  const Profile* named = named_profile(options);
  out.selected = select_properties(options, named);
  std::vector<std::string> specs = options.subjects;
  if (specs.empty()) {
    for (const auto& s : builtin_subjects()) {
      if (s.in_default_matrix) specs.push_back(spec_of(SubjectKind::builtin, s.name));
    }
  }
  for (const auto& spec : specs) {
    // A graceful stop while subjects start: the rest are not started, and one
    // killed while starting was the stop (run() then records every cell as
    // interrupted and the report says so).
    auto interrupted = [&](std::string what) {
      PlannedSubject stopped;
      stopped.spec = spec;
      stopped.start_failure = SubjectFailureInfo{fmt::format("not started: the run was interrupted by {}{}",
                                                             interrupt_name(interrupt_signal()), what),
                                                 "", "", "", "not started"};
      out.subjects.push_back(std::move(stopped));
    };
    if (interrupt_signal() != 0) {
      interrupted("");
      continue;
    }
    try {
      const auto started = std::chrono::steady_clock::now();
      SubjectPtr subject = make(spec, options);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      out.subjects.push_back(plan_subject(std::move(subject), out.selected, named));
      out.subjects.back().start_seconds = seconds;
    } catch (const std::invalid_argument& e) {
      // An unknown spec or an unknown declared field: the configuration is at fault.
      throw PlanError(e.what());
    } catch (const SubjectFailure& f) {
      if (interrupt_signal() != 0) {
        interrupted(fmt::format(" while it started ({})", f.what()));
        continue;
      }
      // A subject that cannot start is recorded like any failure, and the others still run.
      PlannedSubject failed;
      failed.spec = spec;
      failed.start_failure = failure_info(f);
      out.subjects.push_back(std::move(failed));
    }
  }
  if (options.regressions && options.reproduce.empty()) {
    auto store = std::make_shared<RegressionStore>(options.regression_dir);
    out.cell_steps.push_back(store);
    out.finish_steps.push_back(store);
  }
  // Per-subject work outside the cells (plots, budgets) is done once per
  // sharded run, by shard 0: merge takes the budgets from it.
  const bool first_shard = !options.shard || options.shard->index == 0;
  if (options.plots && first_shard) out.finish_steps.push_back(plot_step());
  if (options.budget && first_shard) out.finish_steps.push_back(budget_step());
  return out;
}

SubjectSummary summarize(const SubjectInfo& info) {
  SubjectSummary s{info.spec, info.name, std::string(name(info.dtype)), std::string(name(info.layout)),
                   info.scheme, {}, std::nullopt};
  for (Op op : kAllOps) {
    if (info.supports(op)) s.ops.emplace_back(name(op));
  }
  return s;
}

namespace {

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// Why a subject the run was asked to check gets no cell: its ops, the
// selection and the profile, in a sentence.
std::string no_cells_reason(const Plan& plan, const PlannedSubject& planned) {
  std::string ops;
  for (Op op : kAllOps) {
    if (planned.subject->info().supports(op)) ops += (ops.empty() ? "" : ", ") + std::string(name(op));
  }
  std::string globs;
  for (const auto& g : plan.options.properties) globs += (globs.empty() ? "" : " ") + g;
  return fmt::format("no selected property applies to it (its ops: {}; properties: {}{})",
                     ops.empty() ? "none" : ops, globs.empty() ? "all" : globs,
                     planned.profile ? "; profile " + planned.profile->name : std::string());
}

PropertyResult run_planned_cell(Plan& plan, const PropertyDef& property, Subject& subject, Expect expectation) {
  const RunOptions* options = &plan.options;
  RunOptions own_gate;
  if (auto it = plan.options.subject_max_position.find(subject.info().spec);
      it != plan.options.subject_max_position.end()) {
    own_gate = plan.options;
    own_gate.max_position = it->second;
    options = &own_gate;
  }
  PropertyResult counts;
  for (const auto& step : plan.cell_steps) {
    if (auto stored = step->before(property, subject, *options, expectation, counts)) return *stored;
  }
  PropertyResult r = run_cell(property, subject, *options, expectation);
  r.regressions_replayed = counts.regressions_replayed;
  r.regressions_unfit = counts.regressions_unfit;
  r.seconds += counts.seconds;
  return r;
}

}  // namespace

namespace {

// One property × subject of the plan, in planned order.
struct PlannedCell {
  std::size_t subject;         // index into plan.subjects
  const PropertyDef* property;
  Expect expectation;
};

}  // namespace

PropertyResult not_run_interrupted(const std::string& property, const std::string& subject, Expect expectation,
                                   int sig) {
  PropertyResult skipped;
  skipped.property = property;
  skipped.subject = subject;
  skipped.expectation = expectation;
  skipped.outcome = NotRun{fmt::format("not run: the run was interrupted by {}", interrupt_name(sig))};
  return skipped;
}

RunReport run(Plan& plan, RunObserver& observer) {
  if (plan.options.time_budget > 0) {
    plan.options.deadline = std::chrono::steady_clock::now() +
                            std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(plan.options.time_budget));
  }
  const RunOptions& o = plan.options;
  RunReport report;
  report.pecheck_version = PECHECK_VERSION;
  report.seed = o.seed;
  report.cases = o.cases;
  report.max_size = o.max_size;
  report.max_position = o.max_position;
  report.max_width = o.max_width;
  report.tolerance_factor = o.error_model.factor;
  report.tolerance_overrides = o.error_model.overrides;
  report.tolerance_absolute = o.error_model.absolute;
  report.expectations = o.expectations;
  report.started_at = utc_now();
  for (const auto* p : plan.selected) report.properties.push_back(p->info);
  observer.on_plan(plan);

  const auto start = std::chrono::steady_clock::now();
  std::vector<PlannedCell> cells;
  int total_cells = 0;
  bool start_failed = false;
  for (std::size_t s = 0; s < plan.subjects.size(); ++s) {
    PlannedSubject& planned = plan.subjects[s];
    if (!planned.subject) {
      SubjectSummary failed{planned.spec, planned.spec, "", "", "", {}, planned.start_failure};
      report.subjects.push_back(std::move(failed));
      start_failed = true;
      continue;
    }
    report.subjects.push_back(summarize(planned.subject->info()));
    report.subjects.back().scheme = planned.scheme;
    if (planned.properties.empty()) report.subjects.back().no_cells = no_cells_reason(plan, planned);
    for (const PropertyDef* p : planned.properties) {
      if (p->info.violated_by && p->info.violated_by(planned.subject->info())) {
        report.subjects.back().declared_violations.push_back(p->info.id);
      }
      ++total_cells;
      if (o.shard && shard_of(p->info.id, planned.spec, o.shard->total) != o.shard->index) continue;
      cells.push_back({s, p, expectation_for(p->info, planned.scheme, o, planned.subject->info())});
    }
  }
  if (o.shard) report.shard = ShardInfo{o.shard->index, o.shard->total, static_cast<int>(cells.size()), total_cells};

  // The jobs share each subject's instances (runner/instance_pool.h): the
  // planned one first, others started from plan.make only when a job has
  // waited as long as a start takes (a process subject: another process).
  // An instance serves one cell at a time: never two threads at once.
  const int jobs = plan.make ? effective_jobs(o.jobs) : 1;
  const std::size_t workers = std::max<std::size_t>(1, std::min<std::size_t>(jobs, cells.size()));
  std::vector<std::unique_ptr<InstancePool>> pools(plan.subjects.size());
  std::vector<std::optional<PropertyResult>> results(cells.size());
  // The first cell (in planned order) during which each subject failed:
  // later cells of it are not run (their results would be replaced anyway).
  std::mutex failures_mutex;
  std::vector<std::size_t> first_failure(plan.subjects.size(), cells.size());

  // A subject that cannot be started again nor copied (fd: without fork, an
  // in-process plugin) runs its cells on its one instance, one at a time and in planned order: a
  // cell waits for its turn (the earlier cells were taken by other workers
  // before it, so the wait ends).
  std::vector<char> shared(plan.subjects.size(), 0);
  std::vector<std::size_t> turn(plan.subjects.size(), 0), rank(cells.size(), 0);
  {
    std::vector<std::size_t> count(plan.subjects.size(), 0);
    for (std::size_t i = 0; i < cells.size(); ++i) rank[i] = count[cells[i].subject]++;
    SubjectOptions subject_options{o.subject_timeout};
    subject_options.executable = o.executable;
    subject_options.fork = o.fork;
    for (std::size_t s = 0; s < plan.subjects.size(); ++s) {
      const PlannedSubject& planned = plan.subjects[s];
      const bool forks = planned.subject && makes_fresh_copies(*planned.subject);
      shared[s] = !forks && !starts_independently(planned.spec, subject_options);
      if (workers > 1 && !shared[s]) {
        // A forked copy costs milliseconds, not a start-up: a job waits for none.
        pools[s] = std::make_unique<InstancePool>(planned.subject.get(), forks ? 0.0 : planned.start_seconds);
      }
    }
  }
  std::condition_variable turn_changed;

  // The costliest cells start first (a serial subject's cells keep their
  // order), measured in earlier runs where the regression store keeps them.
  CellCosts costs(o.regressions ? std::filesystem::path(o.regression_dir) / "cell-costs.tsv" : std::filesystem::path());
  std::vector<std::size_t> start_first;
  if (workers > 1) {
    std::vector<double> estimates(cells.size());
    std::vector<std::size_t> serial(cells.size(), static_cast<std::size_t>(-1));
    for (std::size_t i = 0; i < cells.size(); ++i) {
      estimates[i] = costs.estimate(cells[i].property->info, plan.subjects[cells[i].subject].spec, o.cases);
      if (shared[cells[i].subject]) serial[i] = cells[i].subject;
    }
    start_first = start_order(estimates, serial);
  }

  auto run_one = [&](std::size_t /*worker*/, std::size_t i) {
    const PlannedCell& cell = cells[i];
    {
      std::lock_guard lock(failures_mutex);
      if (first_failure[cell.subject] < i) return;
    }
    if (const int sig = interrupt_signal(); sig != 0) {  // a graceful stop: no new cell starts
      results[i] = not_run_interrupted(cell.property->info.id, plan.subjects[cell.subject].spec, cell.expectation, sig);
      return;
    }
    if (o.deadline && std::chrono::steady_clock::now() >= *o.deadline) {  // the time budget is spent
      PropertyResult skipped;
      skipped.property = cell.property->info.id;
      skipped.subject = plan.subjects[cell.subject].spec;
      skipped.expectation = cell.expectation;
      skipped.outcome = NotRun{fmt::format("not run: the run's time budget ({:g} s) was spent", o.time_budget)};
      results[i] = std::move(skipped);
      return;
    }
    const PlannedSubject& planned = plan.subjects[cell.subject];
    Subject* subject = planned.subject.get();
    InstancePool* pool = pools[cell.subject].get();
    if (pool != nullptr) {
      try {
        // A subject that forks copies gives a job a copy (no start-up); others start again.
        subject = pool->acquire([&] {
          SubjectPtr copy = fresh_copy_of(*planned.subject);
          return copy ? std::move(copy) : plan.make(planned.spec, o);
        });
      } catch (const SubjectFailure& f) {
        PropertyResult failed;
        failed.property = cell.property->info.id;
        failed.subject = planned.spec;
        failed.expectation = cell.expectation;
        failed.outcome = SubjectFailed{failure_info(f)};
        results[i] = std::move(failed);
        subject = nullptr;
      }
    }
    struct Release {  // also when the cell throws; a broken instance is not handed out again
      InstancePool* pool;
      Subject* subject;
      const std::optional<PropertyResult>& result;
      ~Release() {
        if (pool != nullptr && subject != nullptr) pool->release(subject, !result || result->subject_failure() != nullptr);
      }
    } release{pool, subject, results[i]};
    if (subject != nullptr) {
      results[i] = run_planned_cell(plan, *cell.property, *subject, cell.expectation);
      // The rate of its cases (not of a shrink, which the regression store spares the next run).
      const PropertyResult& r = *results[i];
      if (!r.subject_failure() && r.regressions_replayed == 0 && r.shrink_tries == 0) {
        costs.measured(cell.property->info.id, planned.spec, r.cases, r.seconds);
      }
    }
    // Stopping kills the subjects: what broke after the signal is the stop, not the subject.
    if (const int sig = interrupt_signal(); sig != 0 && results[i]->subject_failure()) {
      results[i] = not_run_interrupted(cell.property->info.id, plan.subjects[cell.subject].spec, cell.expectation, sig);
      return;
    }
    if (results[i]->subject_failure()) {
      std::lock_guard lock(failures_mutex);
      first_failure[cell.subject] = std::min(first_failure[cell.subject], i);
    }
  };
  auto task = [&](std::size_t worker, std::size_t i) {
    const std::size_t s = cells[i].subject;
    if (workers == 1 || !shared[s]) return run_one(worker, i);
    {
      std::unique_lock lock(failures_mutex);
      turn_changed.wait(lock, [&] { return turn[s] == rank[i]; });
    }
    struct NextTurn {  // also when the cell throws
      std::mutex& mutex;
      std::condition_variable& changed;
      std::size_t& turn;
      ~NextTurn() {
        {
          std::lock_guard lock(mutex);
          ++turn;
        }
        changed.notify_all();
      }
    } next{failures_mutex, turn_changed, turn[s]};
    run_one(worker, i);
  };
  std::vector<std::string> broken_by(plan.subjects.size());  // the property during which each subject failed
  auto deliver = [&](std::size_t i) {
    const PlannedCell& cell = cells[i];
    const PlannedSubject& planned = plan.subjects[cell.subject];
    if (!broken_by[cell.subject].empty()) {
      report.results.push_back(
          not_run_after_failure(cell.property->info.id, planned.spec, cell.expectation, broken_by[cell.subject]));
    } else {
      observer.on_cell_start(cell.property->info, planned.subject->info());
      report.results.push_back(std::move(*results[i]));
      if (report.results.back().subject_failure()) broken_by[cell.subject] = cell.property->info.id;
    }
    results[i].reset();
    observer.on_cell_result(report.results.back());
  };
  run_ordered(cells.size(), static_cast<int>(workers), task, deliver, start_first);
  pools.clear();  // stop the subject processes the jobs started before the finish steps
  if (interrupt_signal() == 0) costs.save();

  if (total_cells == 0 && !start_failed) {
    report.nothing_checked = fmt::format(
        "no cell was run: none of the {} selected propert{} applies to any subject", plan.selected.size(),
        plan.selected.size() == 1 ? "y" : "ies");
  }
  report.interrupted = interrupt_signal();
  report.time_budget = o.time_budget;
  for (const auto& r : report.results) {
    if (const auto* n = std::get_if<NotRun>(&r.outcome); n && o.deadline && n->reason.find("time budget") != std::string::npos) {
      report.time_budget_spent = true;
    }
  }
  // An interrupted run keeps what it has: no probe or budget asks the killed subjects more.
  if (report.interrupted == 0) {
    for (const auto& step : plan.finish_steps) step->finish(plan, report);
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.exit_code = exit_code_for(report);
  observer.on_finish(report);
  return report;
}

}  // namespace pecheck
