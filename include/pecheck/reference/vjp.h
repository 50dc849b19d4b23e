#pragma once
// The vector–Jacobian products of rotate and attention (CLAIMS.md §11), in
// float64, the one place each is written. For an op y = f(inputs) and an
// upstream gradient g of y's shape, the VJP w.r.t. an input a is
// (∂y/∂a)ᵀ g: what autograd's backward returns.
//
// rotate: the rotation is linear and orthogonal up to its magnitude m
// (reference/rotary.h), so its VJP is the transposed rotation of g, pair by
// pair in the declared layout: pair i, read from g's output columns (o_a,
// o_b) and written to x's input columns (a, b),
//   dx_a = m·(g_oa cos θ + g_ob sin θ),   dx_b = m·(−g_oa sin θ + g_ob cos θ),
// i.e. m·R(−θ) g; features past the rotary width pass g through.
//
// attention, per query head h reading kv head κ(h) (the declared grouping):
//   s = λ q_h k_κᵀ, t = c·tanh(s/c) (softcap c, else t = s), P = softmax over
//   the visible keys (and the sink σ_h, which carries no value), y = P v_κ;
//   dv_κ += Pᵀ g_h,   dP = g_h v_κᵀ,   dt_ij = P_ij (dP_ij − Σ_l P_il dP_il),
//   ds = dt ⊙ (1 − tanh²(s/c)),   dq_h = λ ds k_κ,   dk_κ += λ dsᵀ q_h —
// dk and dv of a kv head summed over the query heads of its group. A row with
// no visible key gets no gradient under fully_masked = zeros (its output is a
// constant zero) and is refused otherwise, as the forward refuses it.
#include <optional>

#include "pecheck/core/conventions.h"
#include "pecheck/core/matrix.h"
#include "pecheck/core/vocabulary.h"

namespace pecheck::reference {

// dx for y = rotary_axes(axes, x, convention, seq_len) and upstream grad g (n×d).
Matrix rotary_vjp(const std::vector<Positions>& axes, const Matrix& g, const RotateConvention& convention,
                  std::optional<Position> seq_len);
Matrix rotary_vjp(const Positions& positions, const Matrix& g, const RotateConvention& convention,
                  std::optional<Position> seq_len);

struct AttentionVjp {
  Matrix dq, dk, dv;
};
// The VJPs of attention(q, k, v, mask, heads, float64, convention) for
// upstream grad g (n×(H·d_v)); refuses what the forward refuses.
AttentionVjp attention_vjp(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask, int heads,
                           const AttentionConvention& convention, const Matrix& g);

}  // namespace pecheck::reference
