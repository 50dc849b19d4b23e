#pragma once
// What `pecheck run` prints while it runs and after: each subject's header
// (declared name, precision, conventions, profile), a line per cell (an
// observer of the session), live progress inside a long cell on a terminal,
// and the lines about the regression store, budgets, reruns and GitHub
// annotations once the reports are written.
#include <map>
#include <mutex>
#include <string>

#include "pecheck/report/console_writer.h"
#include "pecheck/runner/session.h"

namespace pecheck::cli {

struct RunCommand;

// Where the console writes and what it may do there.
struct Terminal {
  bool tty = false;    // stdout is a terminal: live progress
  bool color = false;  // …and colour is welcome (NO_COLOR unset, TERM not "dumb")
  static Terminal of_stdout();
};

class ConsoleObserver final : public RunObserver {
 public:
  ConsoleObserver(bool quiet, Terminal terminal) : quiet_(quiet), terminal_(terminal) {}
  void on_plan(const Plan& plan) override;
  void on_cell_result(const PropertyResult& result) override;
  // From any cell's thread: redraws the one progress line (a terminal only).
  void on_progress(const CellProgress& progress);

 private:
  std::string label(const std::string& spec) const;
  void clear_progress();  // with mutex_ held

  bool quiet_;
  Terminal terminal_;
  std::map<std::string, std::string> labels_;  // spec → column label, set by on_plan
  std::mutex mutex_;
  bool progress_shown_ = false;
};

// The matrix, the report files written, saved regressions, budgets,
// annotations and how to rerun what failed, after the reports.
void print_after_reports(const RunReport& report, const RunCommand& command, std::size_t files_written);

}  // namespace pecheck::cli
