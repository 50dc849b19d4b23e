// Which planted bug fails which sub-check: the rotary family (CLAIMS.md §3).
// A row's check is the one that decides the shrunk counterexample (default seed).
#include "pecheck/planted/mutants.h"

namespace pecheck {

std::vector<PlantedCatch> rope_catches() {
  return {
      {"rope-rotate-half-sign", "rope.relative_dot", "dot at the same offset"},
      {"rope-layout-mismatch", "rope.relative_dot", "dot at the same offset"},
      {"rope-angle-float16", "rope.relative_dot", "dot at the same offset"},
      {"rope-cache-wrap", "rope.relative_dot", "dot at the same offset"},
      {"rope-cache-clamp", "rope.relative_dot", "dot at the same offset"},
      {"rope-rotate-half-sign", "rope.norm_preservation", "norm"},
      {"rope-layout-mismatch", "rope.norm_preservation", "norm"},
      {"rope-position-off-by-one", "rope.identity_at_zero", "entries"},
      {"rope-position-off-by-one", "rope.composition", "entries"},
      {"rope-rotate-half-sign", "rope.composition", "entries"},
      {"rope-cache-wrap", "rope.composition", "entries"},
      {"rope-cache-clamp", "rope.composition", "entries"},
      {"rope-angle-float16", "rope.composition", "entries"},
  };
}

}  // namespace pecheck
