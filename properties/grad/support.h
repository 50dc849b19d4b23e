#pragma once
// What the gradient claims share (CLAIMS.md §11): their cases (a rotation's
// rows with an upstream gradient; grouped attention with one), the subject's
// VJPs checked for shape, and the error model of a VJP.
//
// Error model. A VJP costs about its forward's roundings plus the backward's
// own sums, relative to the size of the value it computes:
//   rotate: dx = m·R(−θ)g is one rotation of g (rope/common.h rotations_bound,
//     relative to m·max|g| of the row);
//   attention, per query head, with H the logit bound, m keys, n queries, d_v
//     the value width, G = max|g|, V = max|v|, λ the logit scale: the
//     weights carry the forward's relative error w = 2(d_h + 6)·H + 2m + 4
//     (attention/support.h output_bound); dv = Pᵀg sums n products
//     (w + n + 2, relative to n·G); dP = g·v sums d_v (scale d_v·G·V), the
//     centred dt = P⊙(dP − Σ P dP) adds m + 4, and dq = λ·ds·k, dk = λ·dsᵀq
//     sum m and n terms (relative to 2λ·d_v·G·V·max|k| and 2λ·n·d_v·G·V·max|q|:
//     Σ_j |ds_ij| ≤ 2·max|dP|). dk and dv of a kv head add the query heads of
//     its group (times H/G).
#include <rapidcheck.h>

#include <optional>
#include <string>
#include <vector>

#include "attention/conventions.h"
#include "pecheck/core/json.h"
#include "pecheck/property/property.h"
#include "pecheck/result/check.h"

namespace pecheck::grad {

// A rotation's request and an upstream gradient: rows of x at positions
// (below seq_len) and g of x's shape.
struct RotateCase {
  Positions positions;
  Position seq_len = 1;
  Matrix x, g;
  void validate() const;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RotateCase, positions, seq_len, x, g)

// 1 to 8 rows at a width the declared convention rotates, positions mostly
// below 16 (where every declared angle precision resolves a turn), x and g
// uniform in [−4, 4].
rc::Gen<RotateCase> rotate_case(const GenContext& ctx);
// The subject's dx for the case (shape checked).
Matrix rotate_vjp(Subject& subject, const RotateCase& c);
// The error bound of one rotation of row `row` of g (entries, relative to m·max|g_row|·2).
Bound rotation_bound(const SubjectInfo& subject, const RotateCase& c, Eigen::Index row, int rotations,
                     const std::string& what);
// Each row of `observed` against the same row of `expected` (check `name`), judged against the row's own
// bound for `rotations` rotations: the check of the row closest to (or past) its bound, with its row and
// position in `where`.
// `same_dtype`, where given, holds per row the error of pecheck's own computation of `observed` in the
// subject's dtypes (its same-dtype reference, issue 36); the row's bound then follows it.
Check worst_rotation_row(const SubjectInfo& subject, const RotateCase& c, const BoundModel& model,
                         const std::string& name, const Matrix& observed, const Matrix& expected, int rotations,
                         const std::string& bound_what, const std::optional<Eigen::VectorXd>& same_dtype = {});
// Per row, max |pecheck's dx = m·R(−θ)·g in the subject's dtypes − the exact one| (then, with
// `turned_back_to`, that dx turned forward again in those dtypes against it: m²·g, what grad.rotary_inverse
// compares); nullopt where the reference refuses.
std::optional<Eigen::VectorXd> same_dtype_vjp_rows(const SubjectInfo& subject, const RotateCase& c,
                                                   const Matrix* turned_back_to = nullptr);

// Grouped attention's inputs, a mask, and an upstream gradient g (n × H·d_v).
struct AttentionCase {
  Matrix q, k, v, g;
  int heads = 1;
  std::string mask = "none";  // "none", "causal" or "boolean"
  BoolMatrix allowed;         // boolean: n×m
  void validate() const;
  attention::Grouped inputs() const { return {q, k, v, heads}; }
  AttentionMask attention_mask() const;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(AttentionCase, q, k, v, g, heads, mask, allowed)

// n queries over m keys for the subject's declared heads (d_h, d_v in [1, 8]),
// entries of q, k, v in [−1, 1] and of g in [−2, 2], under `mask`.
rc::Gen<AttentionCase> attention_case(const GenContext& ctx, int n, int m, std::string mask);
// n = m drawn in [1, 12], or — at a tile remainder a kernel handles apart —
// n mod 64 or n mod 128 in {63, 0, 1} (63, 64, 65, 127, 128, 129, 191, 192, 193).
rc::Gen<int> lengths(bool tile_remainders);

// {dq, dk, dv}, each of its input's shape.
struct Grads {
  Matrix dq, dk, dv;
};
Grads attention_vjp(Subject& subject, const AttentionCase& c);
Grads attention_vjp(Subject& subject, const attention::Grouped& in, const AttentionMask& mask, const Matrix& g);

// The bounds of one VJP (above), `evaluations` of them compared.
struct AttentionBounds {
  Bound dq, dk, dv;
};
AttentionBounds vjp_bounds(const SubjectInfo& subject, const attention::Grouped& in, const Matrix& g,
                           int evaluations);

// A module's forward (B sequences of N tokens of width d at positions
// 0..N−1, every token real) and an upstream gradient per sequence (N × d:
// the answer's shape for a module whose output width is its input's, as a
// residual block's is; a module of another width refuses the backward).
struct ForwardCase {
  Batch x, g;
  void validate() const;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ForwardCase, x, g)

// 1 or 2 sequences of 1 to 8 tokens (inside params.forward.shapes) at the
// declared width (else 8 to 64), x in [−2, 2] and g in [−2, 2].
rc::Gen<ForwardCase> forward_case(const GenContext& ctx, int least_tokens);
// The subject's dx of each sequence (shapes checked).
Batch forward_vjp(Subject& subject, const ForwardCase& c);

}  // namespace pecheck::grad
