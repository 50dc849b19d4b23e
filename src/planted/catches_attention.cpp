// Which planted bug fails which sub-check: the attention family (CLAIMS.md §1).
#include "pecheck/planted/mutants.h"

namespace pecheck {

std::vector<PlantedCatch> attention_catches() {
  return {};
}

}  // namespace pecheck
