#pragma once
// The instances of one subject that the jobs of a run share (--jobs). A job
// with a cell of the subject in hand takes an idle instance; it starts another
// (another process) only when every instance is busy and it has waited for one
// to come free as long as a start takes (the planned instance's start time):
// a short run, or one whose cells finish faster than a subject starts, never
// pays for a start it cannot win back (at worst twice the best wait, as in
// ski rental), and no more instances start than cells wait for one.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "pecheck/subjects/subject.h"

namespace pecheck {

class InstancePool {
 public:
  // `planned`: the instance the plan started (may be null: none yet); `start_seconds`: how long it
  // took to start.
  InstancePool(Subject* planned, double start_seconds);

  // An instance for one cell: an idle one, else one started with `start`
  // (when worth it), else the next to come free. Throws what `start` throws.
  Subject* acquire(const std::function<SubjectPtr()>& start);
  // The cell is done with it; a broken instance is not handed out again.
  void release(Subject* instance, bool broken);

  std::size_t started() const;  // instances started besides the planned one

 private:
  mutable std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<Subject*> idle_;
  std::vector<SubjectPtr> owned_;  // those this pool started
  std::size_t live_ = 0;           // instances that exist and are not broken
  std::size_t starting_ = 0;       // being started now
  std::chrono::duration<double> start_cost_;
};

}  // namespace pecheck
