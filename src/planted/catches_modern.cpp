// Which planted bug fails which sub-check: the attention and module
// conventions of 2024–2026 models (CLAIMS.md §8).
#include "pecheck/planted/mutants.h"

namespace pecheck {

std::vector<PlantedCatch> modern_catches() {
  return {
      {"llama-gqa-block-tile", "attention.gqa_grouping", "other heads unchanged"},
      {"attention-gqa-value-cache-one-head", "attention.gqa_grouping", "group heads move"},
      {"attention-window-plus-one", "attention.window_no_lookback", "rows past the window unchanged"},
      {"mistral-block-prefill-window-plus-one", "attention.window_no_lookback", "rows past the window unchanged"},
      {"attention-window-minus-one", "attention.window_no_lookback", "oldest key in the window seen"},
      {"attention-chunk-as-window", "attention.chunk_isolation", "keys outside the chunk unseen"},
      {"attention-chunk-skips-first", "attention.chunk_isolation", "the chunk's keys seen"},
      {"attention-softcap-dropped", "attention.softcap_bound", "saturated logits give equal weights"},
      {"attention-softcap-no-division", "attention.softcap_bound", "weights of the capped logits"},
      {"attention-sinks-ignored", "attention.sink_mass", "mass with zero logits"},
      {"attention-sink-unshifted", "attention.sink_mass", "real-key mass"},
      {"attention-causal-bottom-right", "attention.alignment", "keys past each query unseen"},
      {"attention-causal-top-left", "attention.alignment", "the aligned key seen"},
      {"attention-fully-masked-nan", "attention.fully_masked_rows", "finite output"},
      {"attention-fully-masked-uniform", "attention.fully_masked_rows", "declared policy"},
      {"llama-block-single-token-top-left", "module.multi_token_decode", "rows against single steps"},
      {"llama-block-single-token-top-left", "module.incremental_decoding", "decoded rows"},
      {"gemma2-block-decode-softcap-zero", "module.multi_token_decode", "rows against one forward"},
      {"gemma2-block-decode-softcap-zero", "module.incremental_decoding", "decoded rows"},
      {"mistral-block-prefill-window-plus-one", "module.incremental_decoding", "decoded rows"},
      {"llama-packed-boundary-by-position-drop", "module.packed_sequences", "each document as if alone"},
      {"llama-ntk-by-capacity", "module.cache_capacity", "same rows at another capacity"},
      {"mistral-block-wrap-write-clamped", "module.multi_token_decode", "decodes after it against single steps"},
      // CLAIMS.md §10: attention by value.
      {"gemma2-attention-scale-inverse-sqrt-d", "attention.reference_values", "entries"},
      {"gemma2-attention-softcap-after-mask", "attention.reference_values", "masked keys carry no weight"},
      {"rope-mla-nope-slice", "rope.decoupled", "rope features against the reference"},
      {"rope-mla-nope-zeroed", "rope.decoupled", "nope features pass through"},
      {"rope-mla-rotate-half", "rope.decoupled", "rope features against the reference"},
      // Issue 40: the diagnosis names these causes (tests/test_cause_first.cpp).
      {"attention-sink-carries-key0-value", "attention.sink_mass", "mass with zero logits"},
      {"attention-softcap-scaled-tanh", "attention.softcap_bound", "saturated logits give equal weights"},
      {"llama4-tuning-floor-missing", "attention.temperature_tuning", "unscaled below floor_scale − 1"},
      {"llama4-tuning-off-by-one", "attention.temperature_tuning", "constant within a step"},
      {"llama4-tuning-ignored", "attention.temperature_tuning", "one step at each multiple"},
      {"rope-2d-rows-columns-swapped", "rope.axes_2d", "rows and columns as declared"},
      {"rope-2d-halves-frequencies", "rope.axes_2d", "rows and columns as declared"},
      {"rope-2d-table-wraps", "rope.axes_2d", "logit depends only on (Δrow, Δcol)"},
      {"attention-paged-nan-times-zero", "attention.poison_invariance", "finite output"},
      {"attention-paged-additive-mask", "attention.poison_invariance", "unchanged by unreachable keys"},
      // Qwen2.5-1M's dual chunk attention, by value.
      {"dca-successive-unclamped", "attention.reference_values", "entries"},
      {"dca-inter-off-by-one", "attention.reference_values", "entries"},
      {"dca-plain-rope", "attention.reference_values", "entries"},
      {"dca-keys-absolute", "attention.reference_values", "entries"},
  };
}

}  // namespace pecheck
