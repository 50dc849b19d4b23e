// Which planted bug fails which sub-check: the sinusoidal family (CLAIMS.md §2).
#include "pecheck/planted/mutants.h"

namespace pecheck {

std::vector<PlantedCatch> pe_catches() {
  return {};
}

}  // namespace pecheck
