#include "cli/run_extras.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "pecheck/budget/precision_budget.h"
#include "pecheck/probe/plot_probe.h"
#include "pecheck/report/annotations.h"
#include "pecheck/core/escape.h"
#include "pecheck/report/report_files.h"

namespace pecheck::cli {

std::optional<RegressionStore> open_regression_store(const RunOptions& o, const RunConfig& config) {
  const char* off = std::getenv("PECHECK_NO_REGRESSIONS");
  if (!o.regressions || !config.reproduce.empty() || (off != nullptr && *off != '\0' && std::string(off) != "0")) {
    return std::nullopt;
  }
  RegressionStore store(o.regression_dir);
  for (const auto& problem : store.problems()) {
    std::cerr << "pecheck: skipping unreadable regression entry " << escape_terminal(problem) << "\n";
  }
  if (store.size() > 0 && !o.quiet) {
    std::cout << fmt::format("regression store: {} stored case(s) in {}/ are replayed first\n", store.size(),
                             escape_terminal(o.regression_dir));
  }
  return store;
}

std::vector<const PropertyDef*> regressions_first(const std::vector<const PropertyDef*>& properties,
                                                  const RegressionStore* store, std::deque<PropertyDef>& keep) {
  if (store == nullptr) return properties;
  std::vector<const PropertyDef*> out;
  for (auto& def : with_regressions(properties, *store)) {
    keep.push_back(std::move(def));
    out.push_back(&keep.back());
  }
  return out;
}

void complete_report(RunReport& report, const std::vector<SubjectPtr>& subjects,
                     const std::vector<const PropertyDef*>& properties, const RunConfig& config,
                     const RunOptions& o, const RegressionStore* store) {
  report.tolerance_overrides = config.model.overrides;
  report.tolerance_absolute = config.model.absolute;
  report.report_dir = o.report_dir;
  if (store != nullptr) report.regression_dir = store->dir().string();
  for (const auto& subject : subjects) {
    const std::string& spec = subject->info().spec;
    const bool failed = std::any_of(report.results.begin(), report.results.end(), [&](const PropertyResult& r) {
      return r.subject == spec && r.subject_failure.has_value();
    });
    if (failed) continue;  // the harness stops talking to a subject that broke
    if (auto plots = probe_plots(*subject, config.max_position, config.model.factor)) {
      report.plots.push_back(std::move(*plots));
    }
    if (!o.budget) continue;
    BudgetOptions options;
    options.target = o.precision_target;
    for (const auto& r : report.results) {
      if (r.subject != spec || r.status != Status::passed || r.outcome != Outcome::holds) continue;
      const auto p = std::find_if(properties.begin(), properties.end(),
                                  [&](const PropertyDef* d) { return d->info.id == r.property; });
      if (p == properties.end() || !has_budget((*p)->info, subject->info(), r.expectation)) continue;
      report.budgets.push_back(search_budget(**p, *subject, config, options));
      if (!o.quiet) {
        std::cout << fmt::format("budget {:<28} {:<28} {} ({} steps, {:.2f} s)\n", r.property,
                                 escape_terminal(spec), budget_sentence(report.budgets.back()),
                                 report.budgets.back().steps, report.budgets.back().seconds)
                  << std::flush;
      }
    }
  }
}

void after_reports(const RunReport& report, const RegressionStore* store, const RunOptions& o) {
  if (store != nullptr) {
    try {
      const auto saved = save_regressions(*store, report);
      if (!saved.empty()) {
        std::cout << fmt::format("saved {} new failure(s) to {}/: replayed first next run (--no-regressions turns "
                                 "this off)\n",
                                 saved.size(), escape_terminal(store->dir().string()));
      }
    } catch (const std::exception& e) {
      // The store is a convenience: a read-only checkout must still get its verdict.
      std::cerr << "pecheck: cannot save to the regression store: " << escape_terminal(e.what()) << "\n";
    }
  }
  if (!report.budgets.empty()) {
    std::cout << fmt::format("\nPrecision budgets (tolerance {}):\n", report.budgets.front().target_formula);
    for (const auto& b : report.budgets) {
      std::cout << fmt::format("  {:<24} {:<30} {}\n", b.property, escape_terminal(b.subject), budget_sentence(b));
    }
  }
  if (o.github_annotations > 0) std::cout << github_annotations(report, o.github_annotations) << std::flush;
}

}  // namespace pecheck::cli
