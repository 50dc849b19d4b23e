// Which planted bug fails which sub-check: the sinusoidal family (CLAIMS.md §2).
// A row's check is the one that decides the shrunk counterexample (default seed).
#include "pecheck/planted/mutants.h"

namespace pecheck {

std::vector<PlantedCatch> pe_catches() {
  return {
      {"sinusoidal-times-sqrt-d", "pe.bounded", "within the amplitude"},
      {"sinusoidal-cos-next-frequency", "pe.constant_norm", "squared norm"},
      {"sinusoidal-times-sqrt-d", "pe.constant_norm", "squared norm"},
      {"sinusoidal-cos-next-frequency", "pe.offset_only_dot", "dot at the same offset"},
      {"sinusoidal-fp16-angles", "pe.offset_only_dot", "dot at the same offset"},
      {"sinusoidal-cache-wraps", "pe.offset_only_dot", "dot at the same offset"},
      {"sinusoidal-cos-next-frequency", "pe.dot_symmetry", "dot behind and ahead"},
      {"sinusoidal-cache-wraps", "pe.dot_symmetry", "dot behind and ahead"},
      {"sinusoidal-cos-next-frequency", "pe.linear_shift", "Gram preservation"},
      {"sinusoidal-padding-row-leak", "pe.linear_shift", "Gram preservation"},
      {"sinusoidal-rolling-cache-zeros", "pe.linear_shift", "fit residual"},
      {"sinusoidal-fp16-angles", "pe.linear_shift", "composition on held-out positions"},
      {"sinusoidal-cache-wraps", "pe.linear_shift", "composition on held-out positions"},
      {"sinusoidal-contiguous-slice", "pe.linear_shift", "composition on held-out positions"},
      {"sinusoidal-from-end", "pe.length_independence", "entries"},
      {"sinusoidal-rolling-cache-zeros", "pe.length_independence", "entries"},
      {"sinusoidal-cache-wraps", "pe.distinct_positions", "closest pair apart"},
      {"sinusoidal-fp16-angles", "pe.distinct_positions", "closest pair apart"},
      {"sinusoidal-cos-next-frequency", "pe.step_size", "pair step"},
      {"sinusoidal-times-sqrt-d", "pe.step_size", "pair step"},
      {"sinusoidal-rolling-cache-zeros", "pe.step_size", "pair step"},
      {"sinusoidal-cache-wraps", "pe.step_size", "step norm"},
      {"sinusoidal-sin-cos-swapped", "pe.reference_values", "entries"},
      {"sinusoidal-off-by-one", "pe.reference_values", "entries"},
      {"sinusoidal-base-1000", "pe.reference_values", "entries"},
      {"sinusoidal-halves-claims-interleaved", "pe.reference_values", "entries"},
      {"sinusoidal-contiguous-slice", "pe.reference_values", "published dot products"},
  };
}

}  // namespace pecheck
