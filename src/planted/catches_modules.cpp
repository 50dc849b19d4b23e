// Which planted bug fails which sub-check: attention biases and whole modules
// (CLAIMS.md §6–7), and history_independence. For a claim expected to be
// violated (module.absolute_position_sensitivity) the planted bug is one
// under which it holds: the positions are not really used.
#include "pecheck/planted/mutants.h"

namespace pecheck {

std::vector<PlantedCatch> module_catches() {
  return {
      {"alibi-key-position-only", "bias.offset_only", "same offset"},
      {"alibi-aligned-to-last-key", "bias.offset_only", "across sizes"},
      {"alibi-bottom-right-computed-top-left", "bias.offset_only", "across sizes"},
      {"alibi-naive-slopes", "bias.reference_values", "alibi values"},
      {"t5-bucket-rounded", "bias.reference_values", "same bucket, same value"},
      {"t5-log-without-offset", "bias.reference_values", "different buckets, different values"},
      {"alibi-swapped-offset", "bias.monotone_decay", "decay toward earlier keys"},
      {"alibi-no-abs", "bias.monotone_decay", "decay toward later keys"},
      {"encoder-layer-positions-left-on", "module.permutation_equivariance", "permuted rows"},
      {"learned-encoder-positions-all-zero", "module.absolute_position_sensitivity", "rows at permuted positions"},
      {"llama-causal-mask-leak", "module.causality", "rows before the changed token"},
      {"learned-encoder-position-ids-from-row-start", "module.padding_invariance", "real rows with left padding"},
      {"learned-encoder-assumes-left-padding", "module.padding_invariance", "real rows with right padding"},
      {"llama-rope-table-clamped", "module.shift_invariance", "rows after the shift"},
      {"encoder-layer-batch-statistics", "module.batch_invariance", "beside other sequences"},
      {"learned-encoder-positions-from-first-row", "module.batch_invariance", "at another index"},
      {"llama-kv-cache-current-position", "module.incremental_decoding", "decoded rows"},
      {"llama-ntk-cache-never-shrinks", "history_independence", "same answer as a fresh subject"},
      {"alibi-sign-flipped", "bias.reference_values", "alibi values"},
      {"alibi-sign-flipped", "bias.monotone_decay", "decay toward later keys"},
      {"llama-rotary-cache-by-length", "history_independence", "same answer as a fresh subject"},
      {"llama-rotary-cache-by-length", "module.incremental_decoding", "decoded rows"},
      {"llama-rotary-cache-by-length", "module.padding_invariance", "real rows with right padding"},
      {"llama-reset-keeps-cache", "history_independence", "same answer as a fresh subject"},
      {"llama-reset-keeps-cache", "module.incremental_decoding", "decoded rows"},
      {"llama-ntk-kv-cache-stale-base", "module.incremental_decoding", "decoded rows"},
      {"llama-ntk-batch-max-length", "module.batch_invariance", "beside other sequences"},
      {"llama-ntk-static-base", "rope.reference_values", "entries"},
  };
}

}  // namespace pecheck
