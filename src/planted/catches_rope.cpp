// Which planted bug fails which sub-check: the rotary family (CLAIMS.md §3).
#include "pecheck/planted/mutants.h"

namespace pecheck {

std::vector<PlantedCatch> rope_catches() {
  return {};
}

}  // namespace pecheck
