#include "runner/instance_pool.h"

#include <algorithm>

namespace pecheck {

InstancePool::InstancePool(Subject* planned, double start_seconds)
    : start_cost_(std::max(0.0, start_seconds)) {
  if (planned != nullptr) {
    idle_.push_back(planned);
    live_ = 1;
  }
}

Subject* InstancePool::acquire(const std::function<SubjectPtr()>& start) {
  std::unique_lock lock(mutex_);
  const auto asked = std::chrono::steady_clock::now();
  for (;;) {
    if (!idle_.empty()) {
      Subject* instance = idle_.back();
      idle_.pop_back();
      return instance;
    }
    // Worth a start: no instance at all, or every one is busy and this cell has waited as long as a
    // start takes (and no other start is under way, which this cell may then take).
    const bool none = live_ + starting_ == 0;
    const bool waited = std::chrono::steady_clock::now() - asked >= start_cost_;
    if (none || (waited && starting_ == 0)) {
      ++starting_;
      lock.unlock();
      SubjectPtr made;
      try {
        made = start();
      } catch (...) {
        lock.lock();
        --starting_;
        freed_.notify_all();
        throw;
      }
      lock.lock();
      --starting_;
      ++live_;
      owned_.push_back(std::move(made));
      return owned_.back().get();
    }
    const auto deadline = asked + std::chrono::duration_cast<std::chrono::steady_clock::duration>(start_cost_);
    if (waited) {
      freed_.wait(lock);
    } else {
      freed_.wait_until(lock, deadline);
    }
  }
}

void InstancePool::release(Subject* instance, bool broken) {
  {
    std::lock_guard lock(mutex_);
    if (broken) {
      live_ = live_ > 0 ? live_ - 1 : 0;
      // A broken process we started is stopped now, not at the end of the run.
      const auto it = std::find_if(owned_.begin(), owned_.end(), [instance](const SubjectPtr& p) { return p.get() == instance; });
      if (it != owned_.end()) owned_.erase(it);
    } else {
      idle_.push_back(instance);
    }
  }
  freed_.notify_all();
}

std::size_t InstancePool::started() const {
  std::lock_guard lock(mutex_);
  return owned_.size();
}

}  // namespace pecheck
