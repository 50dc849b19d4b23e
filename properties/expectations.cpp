// The expectations table: where a scheme (a built-in's name, a planted
// bug's, or a profile) is expected to do otherwise than a correct
// implementation of the reference. One row per (property, scheme); the test
// of the registry checks every scheme named here against the real built-in
// and profile names, and every property against the claims table.
#include "pecheck/property/registry.h"

namespace pecheck {

const std::vector<ExpectationRow>& expectation_table() {
  static const std::vector<ExpectationRow> rows = {
      {"pe.bounded", "integer", Expect::violated},
      {"pe.constant_norm", "integer", Expect::violated},
      {"pe.constant_norm", "learned", Expect::violated},
      {"pe.constant_norm", "normalized", Expect::violated},
      {"pe.offset_only_dot", "integer", Expect::violated},
      {"pe.offset_only_dot", "learned", Expect::violated},
      {"pe.offset_only_dot", "normalized", Expect::violated},
      {"pe.dot_symmetry", "integer", Expect::violated},
      {"pe.dot_symmetry", "learned", Expect::violated},
      {"pe.dot_symmetry", "normalized", Expect::violated},
      {"pe.linear_shift", "integer", Expect::violated},
      {"pe.linear_shift", "learned", Expect::violated},
      {"pe.linear_shift", "normalized", Expect::violated},
      {"pe.length_independence", "normalized", Expect::violated},
      {"pe.step_size", "integer", Expect::violated},
      {"pe.step_size", "learned", Expect::violated},
      {"pe.step_size", "normalized", Expect::violated},
      {"pe.reference_values", "integer", Expect::violated},
      {"pe.reference_values", "learned", Expect::violated},
      {"pe.reference_values", "normalized", Expect::violated},
      {"pe.reference_values", "sinusoidal-halves", Expect::violated},
      {"pe.reference_values", "sinusoidal-scaled", Expect::violated},
      // A rotary base that follows the sequence length (dynamic NTK past L)
      // is not shift-invariant: by design, not a bug.
      {"module.shift_invariance", "llama-block-dynamic-ntk", Expect::violated},
      // For the same reason k tokens decoded at once (one base, from the last
      // of them) differ from k one-token steps (a base per step) past L, as
      // in transformers' dynamic NTK: by design, shown with its witness.
      {"module.multi_token_decode", "llama-block-dynamic-ntk", Expect::violated},
  };
  return rows;
}

}  // namespace pecheck
