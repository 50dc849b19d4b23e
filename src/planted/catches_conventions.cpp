// Which planted bug fails which sub-check: declared conventions (CLAIMS.md §5).
#include "pecheck/planted/mutants.h"

namespace pecheck {

std::vector<PlantedCatch> convention_catches() {
  return {};
}

}  // namespace pecheck
