#include "cli/console.h"

#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "pecheck/core/escape.h"
#include "pecheck/replay/regression_store.h"
#include "pecheck/report/annotations.h"
#include "pecheck/report/console_writer.h"

namespace pecheck::cli {

void ConsoleObserver::on_plan(const Plan& plan) {
  for (const auto& planned : plan.subjects) {
    if (!planned.start_failure) continue;
    std::cout << fmt::format("FAIL subject start {}\n       subject failure: {}\n", escape_terminal(planned.spec),
                             escape_terminal(planned.start_failure->message));
  }
  for (const auto& step : plan.cell_steps) {
    const auto* store = dynamic_cast<const RegressionStore*>(step.get());
    if (store == nullptr) continue;
    for (const auto& problem : store->problems()) {
      std::cerr << "pecheck: skipping unreadable regression entry " << escape_terminal(problem) << "\n";
    }
    if (store->size() > 0 && !quiet_) {
      std::cout << fmt::format("regression store: {} stored case(s) in {}/ are replayed first\n", store->size(),
                               escape_terminal(store->dir().string()));
    }
  }
}

void ConsoleObserver::on_cell_result(const PropertyResult& r) {
  if (!quiet_ || r.status() != Status::passed) std::cout << progress_line(r) << std::endl;
}

void print_after_reports(const RunReport& report, const RunCommand& command, std::size_t files_written) {
  std::cout << fmt::format("reports: {}/ (report.json, junit.xml, summary.md, report.html, {} counterexample files)\n",
                           command.report_dir, files_written - 4);
  if (!report.regressions_saved.empty()) {
    std::cout << fmt::format("saved {} new failure(s) to {}/: replayed first next run (--no-regressions turns "
                             "this off)\n",
                             report.regressions_saved.size(), escape_terminal(report.regression_dir));
  }
  if (!report.budgets.empty()) {
    std::cout << fmt::format("\nPrecision budgets (tolerance {}):\n", report.budgets.front().target_formula);
    for (const auto& b : report.budgets) {
      std::cout << fmt::format("  {:<24} {:<30} {}\n", b.property, escape_terminal(b.subject), budget_sentence(b));
    }
  }
  if (command.github_annotations > 0) std::cout << github_annotations(report, command.github_annotations) << std::flush;
}

}  // namespace pecheck::cli
