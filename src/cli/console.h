#pragma once
// What `pecheck run` prints while it runs and after: a progress line per
// cell (an observer of the session), and the lines about the regression
// store, budgets and GitHub annotations once the reports are written.
#include "pecheck/runner/session.h"

namespace pecheck::cli {

struct RunCommand;

class ConsoleObserver final : public RunObserver {
 public:
  explicit ConsoleObserver(bool quiet) : quiet_(quiet) {}
  void on_plan(const Plan& plan) override;
  void on_cell_result(const PropertyResult& result) override;

 private:
  bool quiet_;
};

// The matrix, the report files written, saved regressions, budgets and
// annotations, after the reports.
void print_after_reports(const RunReport& report, const RunCommand& command, std::size_t files_written);

}  // namespace pecheck::cli
