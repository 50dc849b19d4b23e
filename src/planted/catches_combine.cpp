// Which planted bug fails which sub-check: add versus concatenate (CLAIMS.md §4).
#include "pecheck/planted/mutants.h"

namespace pecheck {

std::vector<PlantedCatch> combine_catches() {
  return {};
}

}  // namespace pecheck
