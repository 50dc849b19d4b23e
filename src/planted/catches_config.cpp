// Which planted bug of src/planted/config_mutants.cpp fails which sub-check
// of the claims of what a model's config implies (CLAIMS.md §10, issue 34).
#include "pecheck/planted/mutants.h"

namespace pecheck {

std::vector<PlantedCatch> config_catches() {
  return {
      {"mistral-block-window-plus-one", "module.window_no_lookback", "rows past the window unchanged"},
      {"mistral-block-window-minus-one", "module.window_no_lookback", "oldest token in the window seen"},
      {"mistral-stack-last-layer-full", "module.window_no_lookback", "nothing past L·(W − 1) through the stack"},
      {"gemma3-config-local-layers-global", "module.config_conformance", "layer's positions as the config reads"},
      {"gemma3-config-window-plus-one", "module.config_conformance", "sliding layer within its window"},
      {"gemma3-config-window-minus-one", "module.config_conformance", "sliding layer sees its window"},
      {"gpt-oss-config-every-layer-sliding", "module.config_conformance", "full layer sees every earlier token"},
      {"llama4-config-chunk-as-window", "module.chunk_isolation", "tokens of other chunks unseen"},
      {"llama4-config-chunk-minus-one", "module.chunk_isolation", "own chunk seen"},
      {"llama4-config-chunk-as-window", "module.config_conformance", "chunked layer within its chunk"},
      {"llama4-config-chunk-minus-one", "module.config_conformance", "chunked layer sees its chunk"},
      {"rope-config-table-wraps", "rope.position_domain", "every position below max_position_embeddings"},
      {"rope-config-factor-twice", "rope.position_domain", "every position below max_position_embeddings"},
      {"gemma3-config-shift-global-base", "module.context_shift", "keys re-rotated to p + Δ"},
      {"gemma3-config-shift-sign-reversed", "module.context_shift", "keys re-rotated to p + Δ"},
      {"gemma3-config-shift-twice", "module.context_shift", "keys re-rotated to p + Δ"},
      {"gemma3-config-shift-absolute", "module.context_shift", "shift by 0 leaves the keys"},
  };
}

}  // namespace pecheck
