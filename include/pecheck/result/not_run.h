#pragma once
// Results of cells that were not run, as a run records them and `pecheck
// merge` records them again (the merged report must equal the unsharded
// run's): one function, so the two cannot drift apart.
#include <string>

#include "pecheck/result/result.h"

namespace pecheck {

// The result of a cell not run because its subject failed during an earlier
// cell (`broken_by`, that cell's property id).
PropertyResult not_run_after_failure(const std::string& property, const std::string& subject, Expect expectation,
                                     const std::string& broken_by);

}  // namespace pecheck
