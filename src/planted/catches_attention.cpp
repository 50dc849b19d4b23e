// Which planted bug fails which sub-check: the attention family (CLAIMS.md §1).
// A row's check is the one that decides the shrunk counterexample (default
// seed); for a claim that is false for a correct implementation (causal
// equivariance, equivariance with a PE) the planted bug is caught by making
// it hold, and the check is the one that should have failed.
#include "pecheck/planted/mutants.h"

namespace pecheck {

std::vector<PlantedCatch> attention_catches() {
  return {
      {"attention-softmax-no-max", "attention.permutation_equivariance", "rows permuted alike"},
      {"attention-causal-always", "attention.permutation_equivariance", "rows permuted alike"},
      {"attention-rotary-inside", "attention.permutation_equivariance", "rows permuted alike"},
      {"attention-softmax-columns", "attention.kv_permutation_invariance", "output unchanged"},
      {"attention-causal-always", "attention.kv_permutation_invariance", "output unchanged"},
      {"attention-rotary-inside", "attention.kv_permutation_invariance", "output unchanged"},
      {"attention-softmax-columns", "attention.query_permutation_equivariance", "rows permuted alike"},
      {"attention-causal-always", "attention.query_permutation_equivariance", "rows permuted alike"},
      {"attention-causal-ignored", "attention.causal_permutation_equivariance", "rows permuted alike"},
      {"attention-softmax-singleton-axis", "attention.permutation_equivariance_with_pe", "rows permuted alike"},
      {"attention-rotary-inside", "attention.logit_sum_invariance", "logit sum"},
      {"attention-scale-by-d", "attention.logit_decomposition", "four terms"},
      {"attention-scale-by-d@float32", "attention.logit_decomposition", "four terms"},
      {"attention-causal-always", "attention.logit_decomposition", "four terms"},
      {"attention-values-relu", "attention.convex_combination", "columns within the values' range"},
      {"attention-value-tile-stale-row", "attention.convex_combination", "norm within the longest value"},
      {"attention-softmax-columns", "attention.convex_combination", "weights sum to 1"},
      {"attention-mask-multiplied", "attention.convex_combination", "weights sum to 1"},
      {"attention-softmax-singleton-axis", "attention.convex_combination", "weights sum to 1"},
      {"attention-softmax-cubic-exp", "attention.convex_combination", "weights non-negative"},
      {"attention-softmax-no-max", "attention.softmax_stability", "finite output"},
      {"attention-softmax-no-max@float32", "attention.softmax_stability", "finite output"},
      {"attention-softmax-columns", "attention.softmax_stability", "shifted row unchanged"},
      {"attention-rotary-inside", "attention.softmax_stability", "shifted row unchanged"},
      {"attention-mask-inverted", "attention.padding_mask_isolation", "output unchanged"},
      {"attention-mask-multiplied", "attention.padding_mask_isolation", "output unchanged"},
      {"attention-mask-added-as-float", "attention.padding_mask_isolation", "output unchanged"},
  };
}

}  // namespace pecheck
