// Which planted bug fails which sub-check of the gradient claims (CLAIMS.md
// §11, src/planted/grad_mutants.cpp).
#include "pecheck/planted/mutants.h"

namespace pecheck {

std::vector<PlantedCatch> grad_catches() {
  return {
      {"rope-backward-plus-theta", "grad.reference_values", "dx"},
      {"rope-backward-plus-theta", "grad.rotary_inverse", "R(θ)·dx = m²·g"},
      {"rope-backward-halves-layout", "grad.reference_values", "dx"},
      {"rope-backward-halves-layout", "grad.rotary_inverse", "R(θ)·dx = m²·g"},
      {"attention-backward-dq-unscaled", "grad.reference_values", "dq"},
      {"attention-backward-gqa-dk-wrong-kv-head", "grad.reference_values", "dk"},
      {"attention-backward-gqa-dv-wrong-kv-head", "grad.reference_values", "dv"},
      {"attention-backward-masked-row-nan", "grad.finite", "dq"},
      {"attention-backward-tile-nan-dk", "grad.finite", "dk"},
      {"attention-backward-tile-nan-dv", "grad.finite", "dv"},
      {"attention-backward-causal-leak-dk", "grad.causality", "dk"},
      {"attention-backward-causal-leak-dv", "grad.causality", "dv"},
      {"attention-backward-causal-unasked-dq", "grad.permutation_equivariance", "queries permuted: dq permuted alike"},
      {"attention-backward-causal-unasked-dk", "grad.permutation_equivariance", "keys and values permuted: dk permuted alike"},
      {"attention-backward-causal-unasked-dv", "grad.permutation_equivariance", "keys and values permuted: dv permuted alike"},
      {"llama-block-backward-causal-leak", "grad.causality", "dx"},
      {"attention-backward-tied-logits-nan", "grad.finite", "dq"},
      {"llama-block-backward-causal-leak", "grad.reference_values", "dx"},
  };
}

}  // namespace pecheck
