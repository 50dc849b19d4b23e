// Which planted bug fails which sub-check: add versus concatenate (CLAIMS.md §4).
// A row's check is the one that decides the shrunk counterexample (default
// seed); combine.add_injective is false for a correct add, so the planted bug
// that makes it hold (a scaled position) is what it catches.
#include "pecheck/planted/mutants.h"

namespace pecheck {

std::vector<PlantedCatch> combine_catches() {
  return {
      {"combine-concat-position-first", "combine.add_subsumes_concat", "add equals concat"},
      {"combine-concat-offset-by-one", "combine.add_subsumes_concat", "add equals concat"},
      {"combine-add-float32", "combine.add_subsumes_concat", "add equals concat"},
      {"combine-add-position-relayout", "combine.add_subsumes_concat", "add equals concat"},
      {"combine-add-scaled-position", "combine.add_subsumes_concat", "add equals concat"},
      {"combine-project-column-major", "combine.add_subsumes_concat", "through a projection"},
      {"combine-attention-unscaled", "combine.add_subsumes_concat", "through attention"},
      {"combine-concat-position-first", "combine.concat_linear_split", "linear split"},
      {"combine-concat-offset-by-one", "combine.concat_linear_split", "linear split"},
      {"combine-project-column-major", "combine.concat_linear_split", "linear split"},
      {"combine-add-float32", "combine.orthogonal_recovery", "recovered token"},
      {"combine-add-position-relayout", "combine.orthogonal_recovery", "recovered token"},
      {"combine-add-scaled-position", "combine.add_injective", "no collision"},
      {"combine-concat-offset-by-one", "combine.concat_injective", "no collision"},
  };
}

}  // namespace pecheck
