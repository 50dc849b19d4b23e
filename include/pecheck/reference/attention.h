#pragma once
// Scaled dot-product attention, the one place it is written (CLAIMS.md §1):
// Attn(Q, K, V) = softmax(Q Kᵀ/√d_k + mask) V, split into heads along the
// feature axis. Every stage takes the dtype it computes in: float64 is plain
// double arithmetic; a narrower dtype is emulated by rounding every input and
// the result of every operation with round_to (a worst case: real kernels
// often accumulate in a wider type).
//
// A query row that may attend to no key (a fully masked row) is refused: the
// softmax of an empty set is undefined, and zeros or NaN would each hide that.
#include <functional>

#include "pecheck/core/dtype.h"
#include "pecheck/core/matrix.h"
#include "pecheck/core/vocabulary.h"

namespace pecheck::reference {

// Whether query i may attend to key j (none: always; causal: j <= i).
bool may_attend(const AttentionMask& mask, Eigen::Index i, Eigen::Index j);
// Refuses inputs whose shapes disagree: q n×d_k, k m×d_k, v m×d_v (v may be
// null for the logits alone), a causal mask needs n = m, a boolean mask is
// n×m, heads >= 1 divides d_k and d_v, and no query row is fully masked.
void check_attention_inputs(const Matrix& q, const Matrix& k, const Matrix* v, const AttentionMask& mask,
                            int heads);

Matrix round_entries(const Matrix& m, Dtype dtype);

// q kᵀ/√d_k, masked entries −∞ (inputs assumed rounded to dtype).
Matrix scaled_logits(const Matrix& q, const Matrix& k, const AttentionMask& mask, Dtype dtype = Dtype::float64);
// Row-wise softmax with each row's maximum subtracted first (so no finite
// logit overflows exp); a row with no finite logit is refused.
Matrix softmax_rows(const Matrix& logits, Dtype dtype = Dtype::float64);
// weights · v.
Matrix mix_values(const Matrix& weights, const Matrix& v, Dtype dtype = Dtype::float64);

// One head's attention on its feature blocks of q, k and v.
using HeadFn = std::function<Matrix(const Matrix& q, const Matrix& k, const Matrix& v)>;
// Splits q, k and v into `heads` equal, contiguous feature blocks (head h owns
// columns [h·d/heads, (h+1)·d/heads)), runs `head` on each and concatenates
// the outputs in head order.
Matrix split_heads(const Matrix& q, const Matrix& k, const Matrix& v, int heads, const HeadFn& head);

// The whole computation; refuses what check_attention_inputs refuses.
Matrix attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask, int heads = 1,
                 Dtype dtype = Dtype::float64);
// The logits of one head spanning all features, q kᵀ/√d_k with masked entries −∞.
Matrix attention_logits(const Matrix& q, const Matrix& k, const AttentionMask& mask,
                        Dtype dtype = Dtype::float64);

}  // namespace pecheck::reference
