#pragma once
// A hand-built RunReport covering every outcome, for the writers' golden tests
// (writers are pure functions, so no run is needed).
#include "pecheck/result/result.h"

namespace pecheck::testing {

RunReport sample_report();

}  // namespace pecheck::testing
