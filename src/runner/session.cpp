#include "pecheck/runner/session.h"

#include <fnmatch.h>
#include <fmt/format.h>

#include <chrono>
#include <ctime>

#include "pecheck/core/interrupt.h"
#include "pecheck/core/op_table.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/property/causes.h"
#include "pecheck/property/registry.h"
#include "pecheck/runner/shard.h"
#include "pecheck/subjects/builtin/builtins.h"
#include "pecheck/subjects/declare.h"
#include "runner/run_cells.h"

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

namespace {

// The specs the options name, parsed (BadSubjectSpec for one that names no
// kind); none: the built-ins of the claims matrix.
std::vector<SubjectSpec> subject_specs(const RunOptions& options) {
  std::vector<SubjectSpec> specs;
  for (const auto& text : options.subjects) specs.push_back(parse_subject_spec(text));
  if (!options.subjects.empty()) return specs;
  for (const auto& s : builtin_subjects()) {
    if (s.in_default_matrix) specs.push_back(builtin_spec(s.name));
  }
  return specs;
}

// A subject not started because the run was stopped (`what`: how, if it was starting).
PlannedSubject stopped_before_start(const SubjectSpec& spec, const std::string& what) {
  PlannedSubject stopped;
  stopped.spec = spec;
  stopped.start_failure = SubjectFailureInfo{
      fmt::format("not started: the run was interrupted by {}{}", interrupt_name(interrupt_signal()), what), "", "",
      "", "not started"};
  return stopped;
}

// Starts one subject and plans its cells. A graceful stop while subjects
// start: the rest are not started, and one killed while starting was the
// stop (run() then records every cell as interrupted and the report says so).
// A subject that cannot start is recorded like any failure, and the others
// still run; an unknown spec or declared field throws PlanError.
PlannedSubject start_subject(const SubjectSpec& spec, const RunOptions& options, const SubjectMaker& make,
                             const std::vector<const PropertyDef*>& selected, const Profile* named) {
  if (interrupt_signal() != 0) return stopped_before_start(spec, "");
  try {
    const auto started = std::chrono::steady_clock::now();
    SubjectPtr subject = make(spec, options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    PlannedSubject planned = plan_subject(std::move(subject), selected, named);
    planned.start_seconds = seconds;
    return planned;
  } catch (const std::invalid_argument& e) {
    throw PlanError(e.what());  // the configuration is at fault
  } catch (const SubjectFailure& f) {
    if (interrupt_signal() != 0) return stopped_before_start(spec, fmt::format(" while it started ({})", f.what()));
    PlannedSubject failed;
    failed.spec = spec;
    failed.start_failure = failure_info(f);
    return failed;
  }
}

}  // namespace

Plan plan(const RunOptions& options, Steps steps, const SubjectMaker& make) {
  Plan out;
  out.options = options;
  out.make = make;
  const Profile* named = named_profile(options);
  out.selected = select_properties(options, named);
  std::vector<SubjectSpec> specs;
  try {
    specs = subject_specs(options);
  } catch (const BadSubjectSpec& e) {
    throw PlanError(e.what());  // the configuration is at fault
  }
  for (const auto& spec : specs) {
    out.subjects.push_back(start_subject(spec, options, make, out.selected, named));
  }
  out.steps = std::move(steps);
  return out;
}

SubjectSummary summarize(const SubjectInfo& info) {
  SubjectSummary s{format_spec(info.spec), info.name, std::string(name(info.dtype)), std::string(name(info.layout)),
                   info.scheme, {}, std::nullopt};
  for (Op op : all_ops()) {
    if (info.supports(op)) s.ops.emplace_back(name(op));
  }
  s.params = declared_params(info);
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

// The time budget's deadline, from when the run starts.
void start_time_budget(RunOptions& options) {
  if (options.time_budget <= 0) return;
  options.deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                            std::chrono::duration<double>(options.time_budget));
}

// What the report says before any cell: the version, the options and the selection.
RunReport report_header(const Plan& plan) {
  const RunOptions& o = plan.options;
  RunReport report;
  report.pecheck_version = PECHECK_VERSION;
  report.seed = o.seed;
  report.cases = o.cases;
  report.max_size = o.max_size;
  report.max_position = o.max_position;
  report.max_width = o.max_width;
  report.history = o.history;
  report.tolerance_factor = o.error_model.factor;
  report.tolerance_overrides = o.error_model.overrides;
  report.tolerance_absolute = o.error_model.absolute;
  report.expectations = o.expectations;
  report.started_at = utc_now();
  for (const auto* p : plan.selected) report.properties.push_back(p->info);
  return report;
}

// Why a subject the run was asked to check gets no cell: its ops, the
// selection and the profile, in a sentence.
std::string no_cells_reason(const Plan& plan, const PlannedSubject& planned) {
  std::string ops;
  for (Op op : all_ops()) {
    if (planned.subject->info().supports(op)) ops += (ops.empty() ? "" : ", ") + std::string(name(op));
  }
  std::string globs;
  for (const auto& g : plan.options.properties) globs += (globs.empty() ? "" : " ") + g;
  return fmt::format("no selected property applies to it (its ops: {}; properties: {}{})",
                     ops.empty() ? "none" : ops, globs.empty() ? "all" : globs,
                     planned.profile ? "; profile " + planned.profile->name : std::string());
}

// The cells of the run: every planned property × subject, those of the
// options' shard (if any) to be run.
struct CellList {
  std::vector<PlannedCell> cells;  // this shard's, in planned order
  int total = 0;                   // in every shard
  bool start_failed = false;       // a subject could not be started
};

// Each subject in the report (its summary, or why it did not start) and its cells in the list.
CellList list_cells(const Plan& plan, RunReport& report) {
  const RunOptions& o = plan.options;
  CellList list;
  for (std::size_t s = 0; s < plan.subjects.size(); ++s) {
    const PlannedSubject& planned = plan.subjects[s];
    if (!planned.subject) {
      const std::string spec = format_spec(planned.spec);
      report.subjects.push_back(SubjectSummary{spec, spec, "", "", "", {}, planned.start_failure});
      list.start_failed = true;
      continue;
    }
    SubjectSummary& summary = report.subjects.emplace_back(summarize(planned.subject->info()));
    summary.scheme = planned.scheme;
    if (planned.properties.empty()) summary.no_cells = no_cells_reason(plan, planned);
    for (const PropertyDef* p : planned.properties) {
      if (p->info.violated_by && p->info.violated_by(planned.subject->info())) {
        summary.declared_violations.push_back(p->info.id);
      }
      ++list.total;
      if (o.shard && shard_of(p->info.id, planned.spec, o.shard->total) != o.shard->index) continue;
      list.cells.push_back({s, p, expectation_for(p->info, planned.scheme, o, planned.subject->info())});
    }
  }
  if (o.shard) report.shard = ShardInfo{o.shard->index, o.shard->total, static_cast<int>(list.cells.size()), list.total};
  return list;
}

// What the report says of the run as a whole: nothing checked, interrupted, out of time.
void close_report(const Plan& plan, const CellList& list, RunReport& report) {
  const RunOptions& o = plan.options;
  if (list.total == 0 && !list.start_failed) {
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
    if (r.shrink_cut_short) report.time_budget_spent = true;
  }
  mark_consequences(report.results);  // cause first: every writer leads with what explains the rest
}

}  // namespace

RunReport run(Plan& plan, RunObserver& observer) {
  start_time_budget(plan.options);
  RunReport report = report_header(plan);
  observer.on_plan(plan);
  const auto start = std::chrono::steady_clock::now();
  const CellList list = list_cells(plan, report);
  run_cells(plan, list.cells, report, observer);
  close_report(plan, list, report);
  // An interrupted run keeps what it has: no probe or budget asks the killed subjects more.
  if (report.interrupted == 0) {
    for (const auto& step : plan.steps.after_cells) step->finish(plan, report);
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.exit_code = exit_code_for(report);
  observer.on_finish(report);
  return report;
}

}  // namespace pecheck
