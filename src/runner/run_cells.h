#pragma once
// The cells of a run on its jobs (session.cpp's run() lists them, this runs
// them): each job with its own instances of the subjects that can start
// again or fork copies, the subjects that cannot taking turns on their one
// instance, the costliest cells first; a stop, a spent time budget or a
// subject that broke during an earlier cell leaves the cells after it not
// run. Results and observer calls come on the calling thread in planned
// order, the same for any number of jobs.
#include <cstddef>
#include <vector>

#include "pecheck/runner/session.h"

namespace pecheck {

// One property × subject of the plan, in planned order.
struct PlannedCell {
  std::size_t subject;  // index into plan.subjects
  const PropertyDef* property;
  Expect expectation;
};

// Runs `cells` and appends their results to report.results in planned order,
// calling observer.on_cell_start and on_cell_result for each.
void run_cells(Plan& plan, const std::vector<PlannedCell>& cells, RunReport& report, RunObserver& observer);

}  // namespace pecheck
