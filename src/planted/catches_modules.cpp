// Which planted bug fails which sub-check: attention biases and whole modules (CLAIMS.md §6–7).
#include "pecheck/planted/mutants.h"

namespace pecheck {

std::vector<PlantedCatch> module_catches() {
  return {};
}

}  // namespace pecheck
