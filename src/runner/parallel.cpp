#include "runner/parallel.h"

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace pecheck {

int effective_jobs(int requested) {
  if (requested > 0) return requested;
  const unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : static_cast<int>(cores);
}

void run_ordered(std::size_t n, int jobs, const std::function<void(std::size_t, std::size_t)>& task,
                 const std::function<void(std::size_t)>& deliver, const std::vector<std::size_t>& start) {
  const std::size_t workers = std::min<std::size_t>(static_cast<std::size_t>(jobs < 1 ? 1 : jobs), n);
  if (workers <= 1) {
    for (std::size_t i = 0; i < n; ++i) {
      task(0, i);
      deliver(i);
    }
    return;
  }
  std::mutex mutex;
  std::condition_variable done_changed;
  std::vector<char> done(n, 0);
  std::vector<std::exception_ptr> errors(n);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};

  auto work = [&](std::size_t worker) {
    for (;;) {
      // Every index taken is run (a task may wait for an earlier one to finish).
      if (stop.load()) return;
      const std::size_t taken = next.fetch_add(1);
      if (taken >= n) return;
      const std::size_t i = start.size() == n ? start[taken] : taken;
      std::exception_ptr error;
      try {
        task(worker, i);
      } catch (...) {
        error = std::current_exception();
      }
      {
        std::lock_guard lock(mutex);
        errors[i] = error;
        done[i] = 1;
      }
      done_changed.notify_all();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (std::size_t w = 0; w < workers; ++w) threads.emplace_back(work, w);
  auto join_all = [&] {
    for (auto& t : threads) {
      if (t.joinable()) t.join();
    }
  };
  try {
    for (std::size_t i = 0; i < n; ++i) {
      {
        std::unique_lock lock(mutex);
        done_changed.wait(lock, [&] { return done[i] != 0; });
        if (errors[i]) std::rethrow_exception(errors[i]);
      }
      deliver(i);
    }
  } catch (...) {
    stop = true;
    join_all();
    throw;
  }
  join_all();
}

}  // namespace pecheck
