#pragma once
// A hand-built RunReport covering every outcome, for the writers' golden tests
// (writers are pure functions, so no run is needed).
#include "report/result.h"

namespace pecheck::testing {

RunReport sample_report();

}  // namespace pecheck::testing
