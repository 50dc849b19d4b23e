#pragma once
// What the attention properties share (CLAIMS.md §1): the generated inputs,
// the masks, and the error model of one attention evaluation.
#include <rapidcheck.h>

#include <functional>
#include <string>
#include <vector>

#include "pecheck/core/json.h"
#include "pecheck/gen/permutation.h"
#include "pecheck/result/check.h"
#include "pecheck/property/property.h"
#include "input_checks.h"

namespace pecheck::attention {

// The benchmark distribution: n ∈ [1, 16] tokens, width d ∈ [1, 32], token
// embeddings and projection weights uniform in [−4, 4].
constexpr int kMaxTokens = 16;
constexpr int kMaxDim = 32;
constexpr double kRange = 4.0;
// Self-attention over n tokens costs n² logits in the subject and again in
// the reference: the ladder takes token cases up to this many (direct Q, K,
// V cases go to 1024 queries and 4096 keys, one of them small).
constexpr int kMostSelfAttention = 256;
// The entries of a d×d projection W_q, W_k, W_v: ±kRange up to the search's
// widths, then shrinking as 1/d (weights scale with the width in real models
// too), so that a ladder case at d = 256 has logits a float16 subject can
// hold rather than dot products the harness must discard.
inline double weight_range(Eigen::Index d) {
  return d <= kMaxDim ? kRange : kRange * static_cast<double>(kMaxDim) / static_cast<double>(d);
}

// Self-attention on tokens: X (n×d) and projections q_i = W_q x_i, k_i = W_k x_i,
// v_i = W_v x_i (applied row-wise: Q = X W_qᵀ), split into `heads`: W_q is
// d×d, W_k and W_v (G·d/heads)×d for G key/value heads (G = heads, or the
// subject's declared kv_heads).
struct TokenCase {
  Matrix x;
  Matrix w_q, w_k, w_v;
  int heads = 1;
  Permutation permutation;  // of the n tokens
  void validate() const {
    input::matrix("x", x);
    const Eigen::Index d = x.cols();
    input::matrix("w_q", w_q, d, d);
    input::heads("heads", heads, {d});
    input::matrix("w_k", w_k, -1, d);
    input::matrix("w_v", w_v, w_k.rows(), d);
    if (w_k.rows() % (d / heads) != 0 || heads % (w_k.rows() / (d / heads)) != 0) {
      input::invalid("w_k", "expected a whole number of key/value heads dividing the query heads");
    }
    input::permutation("permutation", permutation, x.rows());
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TokenCase, x, w_q, w_k, w_v, heads, permutation)

// Projections of tokens x (rows) by a weight matrix w: row i is w x_i.
Matrix project_rows(const Matrix& x, const Matrix& w);

// The mask a recorded case names: "none", "causal", or "boolean" with n×m
// booleans and a key allowed in every row (InvalidInput otherwise).
void validate_mask(const std::string& kind, const BoolMatrix& allowed, Eigen::Index n, Eigen::Index m);
// Recorded Q (n×H·d_h), K (m×G·d_h) and V (m×G·d_v), H = heads, G key/value
// heads dividing H (InvalidInput otherwise).
void validate_qkv(const Matrix& q, const Matrix& k, const Matrix& v, int heads);

// Heads a subject may be given: its declared params.attention.heads; else
// [1, 4] when it declares multi_head, else 1.
rc::Gen<int> heads(const SubjectInfo& subject);
// The key/value heads for `heads` query heads: the declared kv_heads where
// heads are declared, else `heads` (one kv head per query head).
int kv_heads(const SubjectInfo& subject, int heads);
// The declared logit scale, or 1/√d_head.
double logit_scale(const SubjectInfo& subject, Eigen::Index d_head);
// The sizes of a case (property/sizes.h): heads as above (8 and 16 in the
// ladder), queries and keys in [min, 16] (up to 1024 and 4096 in the ladder),
// n tokens that are queries and keys at once, a per-head width in
// [1, per_head] (64 to 256 in the ladder); each inside params.attention.shapes.
rc::Gen<int> heads(const GenContext& ctx);
rc::Gen<int> queries(const GenContext& ctx, int min_tokens = 1);
// (keys: at most `most`, for a claim whose cost grows with m² — reading the
// weights out through V = I.)
rc::Gen<int> keys(const GenContext& ctx, int most = 1 << 20);
rc::Gen<int> tokens(const GenContext& ctx, int min_tokens = 1);
rc::Gen<int> head_width(const GenContext& ctx, int per_head);
// The axes the ladder raises in cases of direct Q, K, V and of tokens.
// Functions, not namespace-scope vectors: the registry may be built during
// static initialisation (PECHECK_BOOST_TEST_SUBJECT plans its subject then),
// before a dynamically initialised vector of another file holds anything;
// the properties it built would scale along no axis and skip their ladders.
inline std::vector<Axis> qkv_axes() { return {Axis::queries, Axis::keys, Axis::width, Axis::heads}; }
inline std::vector<Axis> token_axes() { return {Axis::queries, Axis::width, Axis::heads}; }
// n ∈ [min_tokens, 16] tokens of width d = heads · d_head ≤ 32, a permutation of them.
rc::Gen<TokenCase> token_case(const GenContext& ctx, int min_tokens = 1);

// Direct inputs: Q (n×H·d_h), K (m×G·d_h), V (m×G·d_v) uniform in [−4, 4] (G
// the kv_heads for H = heads), an optional boolean mask with no fully masked row.
struct QkvCase {
  Matrix q, k, v;
  int heads = 1;
  std::string mask = "none";  // "none" or "boolean"
  BoolMatrix allowed;         // n×m, true where query i may attend to key j
  Permutation permutation;    // of the queries or of the keys, as the property says
  void validate() const {
    validate_qkv(q, k, v, heads);
    validate_mask(mask, allowed, q.rows(), k.rows());
    if (permutation.size() != q.rows() && permutation.size() != k.rows()) {
      input::invalid("permutation", "expected a permutation of the queries or of the keys");
    }
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(QkvCase, q, k, v, heads, mask, allowed, permutation)

enum class Permuted { queries, keys };
rc::Gen<QkvCase> qkv_case(const GenContext& ctx, Permuted permuted, int most_keys = 1 << 20);

// The mask a case names.
AttentionMask mask_of(const std::string& kind, const BoolMatrix& allowed);
// n×m booleans with at least one true per row (shrinking toward all true).
rc::Gen<BoolMatrix> attendable_mask(Eigen::Index n, Eigen::Index m);
// Rows of a boolean matrix permuted: row r is row image[r].
BoolMatrix permute_rows(const Permutation& p, const BoolMatrix& b);
BoolMatrix permute_cols(const Permutation& p, const BoolMatrix& b);

// The width of the answer: H·d_v, d_v = v's width over the G key/value heads.
Eigen::Index output_width(const Matrix& q, const Matrix& k, const Matrix& v, int heads);

// H = max over query heads, key/value heads and pairs (i, j) of
// Σ_l |q_il k_jl| · scale (scale 0: 1/√d_h): a bound on every logit and on
// every partial sum of its dot product, whichever kv head a query head reads.
// Past 2^20 query–key pairs, max ‖q_i‖·‖k_j‖ · scale, a bound on that bound
// computed in O((n + m)·d) (support.cpp).
double logit_magnitude(const Matrix& q, const Matrix& k, int heads, double scale = 0);
// Discards (as a refusal) an input whose dot products could leave the
// subject's finite range (only ever for float16): such logits are outside the
// claim's domain at that precision, not a fault of the subject.
void require_representable(Dtype dtype, double dot_magnitude);
// ln of the largest finite number: exp overflows past it.
double exp_overflow_threshold(Dtype dtype);

// The error of `evaluations` attention outputs, each within
//   u · (2(d_h + 6)·H + 2m + 4) · max|v|
// of exact (to first order): each centred logit h_ij − max_j h_ij carries
// d_h + 6 roundings relative to H (2 for rounding q and k, d_h for the dot
// product, 2 for the 1/√d_h scale, 2 for subtracting the row max, which is up
// to 2H away), and a softmax moves Σ_j |Δw_j| by at most twice its largest
// logit error; the exp, the m-term sum and the division add m + 2 relative
// roundings to the weights; rounding v, the products and the m-term weighted
// sum add m + 2 more relative to max|v|.
Bound output_bound(int evaluations, double head_dim, Eigen::Index keys, double logit_bound, double value_scale);

// The largest ‖w_i‖₂ over the rows of softmax weights of every head (keys
// shared by groups of query heads, as logit_magnitude does): 1 for a row on
// one key, 1/√m for one spread evenly over m.
double weight_spread(const Matrix& q, const Matrix& k, const AttentionMask& mask, int heads);

// output_bound's logit term for the tight bounds, where the weights are known:
// an output moves by Σ_j w_j·δh_j·(v_j − y), so logit errors of their own (the
// dot product's, the max's, the softmax's: d_h + 11 of the 2(d_h + 6)) add in
// quadrature weighted by w, ‖w‖₂ of them; the query's own (its d_h entries and
// the 1/√d_h scale, d_h + 1) move every logit of a row alike and stay whole.
void spread_logit_errors(Bound& bound, double head_dim, double spread);

// The entry of `observed` furthest from `expected`, into `check` (its error, query, column, head of
// `d_value` columns, observed and expected values). A NaN difference counts as infinitely far; where
// `compared` is given, the entries (row, column) it refuses are skipped (a non-finite answer another check
// reports, a row that sees a changed key). Leaves `check` alone where no entry is compared.
void worst_entry(Check& check, const Matrix& observed, const Matrix& expected, Eigen::Index d_value,
                 const std::function<bool(Eigen::Index, Eigen::Index)>& compared = {});

// A check's row names a token (query) of the attention: the location says so.
Check& rows_are(Check& check, const char* what);

}  // namespace pecheck::attention
