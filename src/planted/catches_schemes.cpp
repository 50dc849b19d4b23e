// Which planted bug fails which sub-check: the positional schemes of
// 2024–2026 models (CLAIMS.md §9). Each row is the deciding check of the
// mutant's shrunk counterexample with the default seed and case count.
#include "pecheck/planted/mutants.h"

namespace pecheck {

std::vector<PlantedCatch> scheme_catches() {
  return {
      // rope.reference_values over the new schemes
      {"rope-longrope-short-factors-only", "rope.reference_values", "entries"},
      {"rope-longrope-no-attention-factor", "rope.reference_values", "entries"},
      {"rope-deepseek-yarn-mscale-ignored", "rope.reference_values", "entries"},
      {"rope-deepseek-interleave-ignored", "rope.reference_values", "entries"},
      {"rope-mrope-sections-swapped", "rope.reference_values", "entries"},
      {"rope-qwen3-vl-interleave-ignored", "rope.reference_values", "entries"},
      {"rope-freq-factors-multiplied", "rope.reference_values", "entries"},
      // rope.factor_switch
      {"rope-longrope-context-factors", "rope.factor_switch", "sequence at or below the original length"},
      {"rope-longrope-by-positions", "rope.factor_switch", "sequence past the original length"},
      // rope.axis_independence
      {"rope-mrope-text-positions", "rope.axis_independence", "other axes' pairs unchanged"},
      {"rope-mrope-section-local-frequencies", "rope.axis_independence", "moved axis's pairs turn by Δt·ω_i"},
      // state kept across requests
      {"rope-mrope-rope-deltas-kept", "history_independence", "same answer as a fresh subject"},
      // module.layer_schedule
      {"gemma3-local-layers-scaled", "module.layer_schedule", "rotary layer as declared"},
      {"gemma3-global-layers-unscaled", "module.layer_schedule", "rotary layer as declared"},
      // Rotating everywhere fails both NoPE checks; shrinking keeps the forward's (x = 0 turns to 0).
      {"llama4-nope-layer-rotated", "module.layer_schedule", "NoPE layer ignores positions"},
      {"llama4-nope-rotate-shared", "module.layer_schedule", "NoPE layer unrotated"},
      {"llama4-nope-forward-rotated", "module.layer_schedule", "NoPE layer ignores positions"},
  };
}

}  // namespace pecheck
