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
#include <vector>

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

// Modules (CLAIMS.md §11, `forward`): the VJPs of the pieces of
// reference/modules.h and of pecheck's reference causal block, by an
// analytic reverse pass in float64 (src/reference/vjp_modules.cpp; checked
// against central differences of the forward in tests/test_grad_modules.cpp,
// never using them as the reference).
// RMSNorm y = x·r ⊙ w, r = (mean(x²) + eps)^(−1/2), row by row:
//   dx = r·(w ⊙ g) − r³/d · x · Σ(x ⊙ w ⊙ g).
Matrix rms_norm_vjp(const Matrix& x, const Vector& weight, const Matrix& g, double eps = 1e-6);
// SiLU z·σ(z): dz = g ⊙ σ(z)·(1 + z·(1 − σ(z))).
Matrix silu_vjp(const Matrix& z, const Matrix& g);
// rotate_halves' VJP: the transposed rotation R(−θ)·g of every row.
Matrix rotate_halves_vjp(const Matrix& g, const Positions& positions, const std::vector<double>& frequencies);

// The Llama-style block (subjects/builtin/modules_llama.h) on one sequence:
//   n₁ = RMSNorm(x; a), q = RoPE(n₁W_q), k = RoPE(n₁W_k), v = n₁W_v,
//   h = x + Attn(q, k, v)·W_o, n₂ = RMSNorm(h; b),
//   y = h + (SiLU(n₂W_gate) ⊙ n₂W_up)·W_down,
// RoPE per head in the halves layout at `positions` with `frequencies`
// (none when empty: a NoPE block), Attn under `convention` (heads, kv heads,
// grouping, scale, softcap, sinks) with key j visible to query i where
// seen(i, j). Its VJP w.r.t. x for upstream grad g (N×d), the reverse pass
// of those equations (attention through attention_vjp above).
struct BlockWeights {
  Matrix wq, wk, wv, wo, w_gate, w_up, w_down;
  Vector attention_norm, mlp_norm;
  int heads = 1;
};
Matrix block_vjp(const BlockWeights& w, const Matrix& x, const Positions& positions,
                 const std::vector<double>& frequencies, const BoolMatrix& seen,
                 const AttentionConvention& convention, const Matrix& g);

}  // namespace pecheck::reference
