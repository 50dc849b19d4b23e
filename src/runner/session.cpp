#include "pecheck/runner/session.h"

#include <fnmatch.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>

#include "pecheck/budget/precision_budget.h"
#include "pecheck/probe/plot_probe.h"
#include "pecheck/property/registry.h"
#include "pecheck/replay/regression_store.h"
#include "pecheck/subjects/builtin/builtins.h"
#include "pecheck/subjects/factory.h"

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
  return make_subject(spec, subject_options);
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

Plan plan(const RunOptions& options, const SubjectMaker& make) {
  Plan out;
  out.options = options;
  const Profile* named = named_profile(options);
  require_known_ids(options);
  for (const auto& p : all_properties()) {
    if (matches_any(p.info.id, options.properties) && (named == nullptr || profile_applies(*named, p.info.id))) {
      out.selected.push_back(&p);
    }
  }
  if (out.selected.empty()) {
    throw PlanError(fmt::format("no property matches --properties{}; see 'pecheck list'",
                                named ? " within profile '" + named->name + "'" : std::string()));
  }
  std::vector<std::string> specs = options.subjects;
  if (specs.empty()) {
    for (const auto& s : builtin_subjects()) {
      if (s.in_default_matrix) specs.push_back("builtin:" + s.name);
    }
  }
  for (const auto& spec : specs) {
    try {
      out.subjects.push_back(plan_subject(make(spec, options), out.selected, named));
    } catch (const std::invalid_argument& e) {
      // An unknown spec or an unknown declared field: the configuration is at fault.
      throw PlanError(e.what());
    } catch (const SubjectFailure& f) {
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
  if (options.plots) out.finish_steps.push_back(plot_step());
  if (options.budget) out.finish_steps.push_back(budget_step());
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
  PropertyResult counts;
  for (const auto& step : plan.cell_steps) {
    if (auto stored = step->before(property, subject, plan.options, expectation, counts)) return *stored;
  }
  PropertyResult r = run_cell(property, subject, plan.options, expectation);
  r.regressions_replayed = counts.regressions_replayed;
  r.regressions_unfit = counts.regressions_unfit;
  r.seconds += counts.seconds;
  return r;
}

}  // namespace

RunReport run(Plan& plan, RunObserver& observer) {
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
  report.started_at = utc_now();
  for (const auto* p : plan.selected) report.properties.push_back(p->info);
  observer.on_plan(plan);

  const auto start = std::chrono::steady_clock::now();
  for (auto& planned : plan.subjects) {
    if (!planned.subject) {
      SubjectSummary failed{planned.spec, planned.spec, "", "", "", {}, planned.start_failure};
      report.subjects.push_back(std::move(failed));
      continue;
    }
    Subject& subject = *planned.subject;
    report.subjects.push_back(summarize(subject.info()));
    report.subjects.back().scheme = planned.scheme;
    if (planned.properties.empty()) report.subjects.back().no_cells = no_cells_reason(plan, planned);
    std::string broken_by;  // the property during which the subject failed
    for (const PropertyDef* p : planned.properties) {
      const Expect expectation = expectation_for(p->info, planned.scheme, o);
      if (!broken_by.empty()) {
        PropertyResult skipped;
        skipped.property = p->info.id;
        skipped.subject = planned.spec;
        skipped.expectation = expectation;
        skipped.outcome = NotRun{"not run: the subject failed during " + broken_by};
        report.results.push_back(std::move(skipped));
        observer.on_cell_result(report.results.back());
        continue;
      }
      observer.on_cell_start(p->info, subject.info());
      report.results.push_back(run_planned_cell(plan, *p, subject, expectation));
      if (report.results.back().subject_failure()) broken_by = p->info.id;
      observer.on_cell_result(report.results.back());
    }
  }
  if (report.results.empty() && std::none_of(report.subjects.begin(), report.subjects.end(),
                                            [](const SubjectSummary& s) { return s.start_failure.has_value(); })) {
    report.nothing_checked = fmt::format(
        "no cell was run: none of the {} selected propert{} applies to any subject", plan.selected.size(),
        plan.selected.size() == 1 ? "y" : "ies");
  }
  for (const auto& step : plan.finish_steps) step->finish(plan, report);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.exit_code = exit_code_for(report);
  observer.on_finish(report);
  return report;
}

}  // namespace pecheck
