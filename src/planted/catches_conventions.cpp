// Which planted bug fails which sub-check: declared conventions (CLAIMS.md §5).
// Each row is the deciding check of the mutant's shrunk counterexample with
// the default seed and case count (tests/test_convention_catalog.cpp runs
// every row and requires each declared sub-check of the §5 properties to
// have one).
#include "pecheck/planted/mutants.h"

namespace pecheck {

std::vector<PlantedCatch> convention_catches() {
  return {
      // rope.reference_values: what no structural claim sees.
      {"rope-identity", "rope.reference_values", "entries"},
      {"rope-positions-ignored", "rope.reference_values", "entries"},
      {"rope-sin-cos-mismatch", "rope.reference_values", "entries"},
      {"rope-llama-bf16-inv-freq", "rope.reference_values", "entries"},
      {"rope-base-1000", "rope.reference_values", "entries"},
      {"rope-inverse-rotation", "rope.reference_values", "entries"},
      {"rope-partial-declared-full", "rope.reference_values", "entries"},
      {"rope-llama3-bands-swapped", "rope.reference_values", "entries"},
      {"rope-llama3-smooth-reversed", "rope.reference_values", "entries"},
      {"rope-dynamic-ntk-constant-base", "rope.reference_values", "entries"},
      {"rope-yarn-no-attention-factor", "rope.reference_values", "entries"},
      {"rope-llama-bf16-angles-float16", "rope.reference_values", "entries"},
      {"rope-llama-bf16-cache-rebuild", "rope.reference_values", "entries"},
      {"rope-exponent-i-over-d", "rope.reference_values", "entries"},
      {"rope-llama3-wavelength-without-2pi", "rope.reference_values", "entries"},
      {"rope-yarn-range-rounded", "rope.reference_values", "entries"},
      {"rope-partial-applied-whole", "rope.reference_values", "entries"},
      // rope.pass_through
      {"rope-pass-through-zeroed", "rope.pass_through", "pass-through features"},
      {"rope-pass-through-rotated", "rope.pass_through", "pass-through features"},
      // rope.distinct_positions
      {"rope-llama-bf16-cache-rebuild", "rope.distinct_positions", "closest pair apart"},
      // attention.causal_no_lookahead
      {"attention-causal-lookahead", "attention.causal_no_lookahead", "rows before the change unchanged"},
      {"attention-causal-path-unscaled", "attention.causal_no_lookahead", "causal equals the lower-triangular mask"},
      // pe.reference_values judged against the declared convention
      {"sinusoidal-schedule-misdeclared", "pe.reference_values", "entries"},
      {"sinusoidal-cos-odd-exponent", "pe.reference_values", "entries"},
      {"sinusoidal-offset-ignored", "pe.reference_values", "entries"},
      {"sinusoidal-padding-row-leak", "pe.reference_values", "entries"},
      {"sinusoidal-exponent-i-over-d", "pe.reference_values", "entries"},
  };
}

}  // namespace pecheck
