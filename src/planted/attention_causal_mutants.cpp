// A planted attention bug for CLAIMS.md §5's attention.causal_no_lookahead
// whose causality is intact: only the comparison of `causal` with the
// lower-triangular boolean mask sees it.
#include <cmath>

#include "pecheck/planted/mutants.h"
#include "pecheck/reference/attention.h"
#include "pecheck/subjects/builtin/attention.h"

namespace pecheck {

namespace planted::attention_causal_mutants {  // the file's own names (the planted bugs compile in unity batches)

// A fused causal fast path called without its softmax_scale (a wrapper that
// routes is_causal=True to a kernel taking the scale as an argument, and
// passes 1): causal requests get q kᵀ unscaled, while mask none and boolean
// masks take the general path with 1/√d_k. Still causal — no future key
// reaches a query — but not the same attention as tril(ones(n, n)).
class CausalPathUnscaled : public AttentionSubject {
 public:
  CausalPathUnscaled()
      : AttentionSubject(attention_info("attention-causal-path-unscaled", mutant_spec("attention-causal-path-unscaled"),
                                        Dtype::float64)) {}
  Matrix attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask,
                   int heads) override {
    if (mask.kind != AttentionMask::Kind::causal) return AttentionSubject::attention(q, k, v, mask, heads);
    reference::check_attention_inputs(q, k, &v, mask, heads);
    return reference::split_heads(q, k, v, heads, [&mask](const Matrix& qh, const Matrix& kh, const Matrix& vh) {
      const Matrix unscaled = qh * std::sqrt(static_cast<double>(qh.cols()));  // undoes the 1/√d_k
      return reference::mix_values(reference::softmax_rows(reference::scaled_logits(unscaled, kh, mask)), vh);
    });
  }
};

}  // namespace planted::attention_causal_mutants

std::vector<SubjectEntry> attention_causal_mutants() {
  using namespace planted::attention_causal_mutants;
  return {{"attention-causal-path-unscaled",
           "causal requests routed to a fused path without the 1/√d_k scale (softmax_scale not passed on); the "
           "masked and unmasked paths scale correctly",
           [] { return std::make_unique<CausalPathUnscaled>(); }}};
}

}  // namespace pecheck
