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

#include "pecheck/core/conventions.h"
#include "pecheck/core/dtype.h"
#include "pecheck/core/matrix.h"
#include "pecheck/core/vocabulary.h"
#include "pecheck/reference/dual_chunk.h"

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

// Attention under a declared convention (SUBJECT-PROTOCOL.md "Attention
// conventions"; core/conventions.h AttentionConvention), the one place each
// convention is written:
//   heads: q is n×(H·d_h), H = heads; k is m×(G·d_h) and v m×(G·d_v), G =
//     k.cols()/d_h key/value heads dividing H; query head h reads kv head
//     kv_head_of(h) (repeat_interleave ⌊h/(H/G)⌋ or tile h mod G); the
//     answer is n×(H·d_v), head h in columns [h·d_v, (h+1)·d_v);
//   logits s = scale·q_h·k_j (scale: declared, else 1/√d_h), then the cap
//     c·tanh(s/c) where declared, then the mask (−∞);
//   mask causal: query i sees key j when causal_sees(i, j, n, m) (the
//     alignment, window and chunk); n ≠ m needs a declared alignment (version
//     1 refuses it); none and boolean masks are used as given;
//   sinks: head h's softmax runs over its visible logits and σ_h, the sink
//     carrying no value: the weights over the keys sum to
//     1 − e^σ/(e^σ + Σ_j e^{s_j});
//   a query row with no visible key: a zero row under fully_masked zeros (or
//     with sinks: all mass on the sink), else refused.
// Every stage rounds to `dtype` as attention() does.
Matrix attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask, int heads, Dtype dtype,
                 const AttentionConvention& convention);
// Dual chunk attention (params.attention.dual_chunk, reference/dual_chunk.h):
// q and k arrive before their rotary; query i sits at position offset(n, m) +
// i, key j at j; each visible pair is rotated at dual_chunk_positions(…,
// reading) — the published positions, or one of the misreadings the
// diagnosis and the planted bugs compare with — and the rest is the
// attention above (scale, cap, sinks, grouping). Refuses a mask that is not
// causal (vLLM's backend does) and what check_dual_chunk refuses.
// attention(…, convention) takes this path, faithfully, when dual_chunk is declared.
Matrix attention_dual_chunk(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask, int heads,
                            Dtype dtype, const AttentionConvention& convention, DualChunkReading reading);
// The keys each of n queries may see among m (true: visible), for `mask`
// under `convention` (causal_sees for a causal mask).
BoolMatrix visible_keys(const AttentionMask& mask, Eigen::Index n, Eigen::Index m,
                        const AttentionConvention& convention);
// The key/value heads G of a grouped request (k.cols()/d_h, d_h = q.cols()/heads),
// refusing widths that do not split into whole heads or a G not dividing H.
int kv_heads_of(const Matrix& q, const Matrix& k, const Matrix& v, int heads);
// Refuses a grouped request's shapes (kv_heads_of's refusals, n, m ≥ 1, v's
// rows, a boolean mask's shape, a causal n ≠ m without a declared alignment,
// the declared heads and sink logits) — not fully masked rows, which the
// convention's policy decides.
void check_grouped_inputs(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask, int heads,
                          const AttentionConvention& convention);
// The logits of one head spanning all features, q kᵀ/√d_k with masked entries −∞.
Matrix attention_logits(const Matrix& q, const Matrix& k, const AttentionMask& mask,
                        Dtype dtype = Dtype::float64);

// Llama 4's query temperature at position p (huggingface/transformers
// models/llama4/modeling_llama4.py Llama4TextAttention.forward, NoPE layers
// with attn_temperature_tuning: attn_scales = log(floor((cache_position + 1)
// / floor_scale) + 1) · attn_scale + 1; vLLM models/llama4.py
// Llama4Attention._get_attn_scale alike): exactly 1 for p < floor_scale − 1,
// one step up at each p + 1 that is a multiple of floor_scale.
double query_temperature(const TemperatureTuning& tuning, Position p);
// The first position of step k ≥ 1 (the smallest p with ⌊(p + 1)/F⌋ = k).
Position temperature_step(const TemperatureTuning& tuning, int k);

}  // namespace pecheck::reference
