#pragma once
// `pecheck run --progress-fd FD`: the run's progress as events, one JSON
// object per line, for a front end that draws its own display (the Python
// package's check_* and pytest plugin):
//   {"event":"plan","cells":N}
//   {"event":"progress","property":P,"subject":S,"cases":C,"planned":N,"refused":R,"shrinks":K,"seconds":T}
//   {"event":"slow","property":P,"subject":S,"message":"…"}      once, when a cell runs slower than expected
//   {"event":"cell","property":P,"subject":S,"status":"passed",…,"done":I,"cells":N}
// A reader that goes away costs nothing: a failed write turns the events off.
#include <mutex>

#include "pecheck/runner/session.h"

namespace pecheck::cli {

class ProgressEvents final : public RunObserver {
 public:
  explicit ProgressEvents(int fd) : fd_(fd) {}
  ~ProgressEvents() override;
  ProgressEvents(const ProgressEvents&) = delete;
  ProgressEvents& operator=(const ProgressEvents&) = delete;

  void on_plan(const Plan& plan) override;
  void on_cell_result(const PropertyResult& result) override;
  // From any cell's thread.
  void on_progress(const CellProgress& progress);

 private:
  void write(const json& event);  // with mutex_ held

  int fd_;
  std::mutex mutex_;
  int cells_ = 0, done_ = 0;
};

}  // namespace pecheck::cli
