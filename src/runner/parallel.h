#pragma once
// A small pool for the session's cells: tasks run on `jobs` threads, and
// their results are handed over on the calling thread in task order, each as
// soon as it and every earlier one are done (a result that finishes early
// waits). So observers and reports see the order of a one-job run.
#include <cstddef>
#include <functional>
#include <vector>

namespace pecheck {

// The number of jobs `requested` means: itself, or the number of cores for 0.
int effective_jobs(int requested);

// Runs task(worker, i) for i in [0, n) on min(jobs, n) workers (worker ids
// 0..jobs-1; a task runs on one worker thread, never two at once per worker),
// and deliver(i) on the calling thread in order 0..n-1. With one job, task(0,
// i) runs on the calling thread right before deliver(i), as a plain loop. An
// exception from a task is rethrown by run_ordered when that task's turn to
// be delivered comes (the other workers are stopped and joined first).
//
// `start`, when given (a permutation of 0..n-1), is the order in which the
// workers take the tasks (the costliest first: runner/cell_costs.h); delivery
// stays in order 0..n-1. A task may wait only for tasks taken before it.
void run_ordered(std::size_t n, int jobs, const std::function<void(std::size_t worker, std::size_t i)>& task,
                 const std::function<void(std::size_t i)>& deliver, const std::vector<std::size_t>& start = {});

}  // namespace pecheck
