// The VJPs of the module pieces and of the reference causal block
// (reference/vjp.h): the forward's equations run again in float64, then
// their reverse pass, stage by stage, in the opposite order.
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "pecheck/reference/attention.h"
#include "pecheck/reference/modules.h"
#include "pecheck/reference/vjp.h"

namespace pecheck::reference {

Matrix rms_norm_vjp(const Matrix& x, const Vector& weight, const Matrix& g, double eps) {
  if (g.rows() != x.rows() || g.cols() != x.cols() || weight.size() != x.cols()) {
    throw std::invalid_argument(fmt::format("rms_norm_vjp: x {}×{}, g {}×{}, weight {}", x.rows(), x.cols(), g.rows(),
                                            g.cols(), weight.size()));
  }
  const double d = static_cast<double>(x.cols());
  Matrix out(x.rows(), x.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const double inv = 1.0 / std::sqrt(x.row(r).squaredNorm() / d + eps);
    const Eigen::RowVectorXd wg = g.row(r).cwiseProduct(weight.transpose());
    const double dot = x.row(r).dot(wg);
    out.row(r) = inv * wg - (inv * inv * inv / d) * dot * x.row(r);
  }
  return out;
}

Matrix silu_vjp(const Matrix& z, const Matrix& g) {
  Matrix out(z.rows(), z.cols());
  for (Eigen::Index r = 0; r < z.rows(); ++r) {
    for (Eigen::Index c = 0; c < z.cols(); ++c) {
      const double s = 1.0 / (1.0 + std::exp(-z(r, c)));
      out(r, c) = g(r, c) * s * (1.0 + z(r, c) * (1.0 - s));
    }
  }
  return out;
}

Matrix rotate_halves_vjp(const Matrix& g, const Positions& positions, const std::vector<double>& frequencies) {
  Positions back(positions.size());
  for (size_t r = 0; r < positions.size(); ++r) back[r] = -positions[r];  // R(θ)ᵀ = R(−θ)
  return rotate_halves(g, back, frequencies);
}

namespace {

// Every head block of x (heads of width 2·|frequencies|) rotated, or its VJP.
Matrix each_head(const Matrix& x, const Positions& positions, const std::vector<double>& frequencies, bool vjp) {
  if (frequencies.empty()) return x;  // NoPE
  const auto width = static_cast<Eigen::Index>(2 * frequencies.size());
  Matrix out(x.rows(), x.cols());
  for (Eigen::Index c = 0; c + width <= x.cols(); c += width) {
    out.middleCols(c, width) = vjp ? rotate_halves_vjp(x.middleCols(c, width), positions, frequencies)
                                   : rotate_halves(x.middleCols(c, width), positions, frequencies);
  }
  return out;
}

}  // namespace

Matrix block_vjp(const BlockWeights& w, const Matrix& x, const Positions& positions,
                 const std::vector<double>& frequencies, const BoolMatrix& seen,
                 const AttentionConvention& convention, const Matrix& g) {
  if (g.rows() != x.rows() || g.cols() != w.wo.cols() || x.cols() != w.wq.rows()) {
    throw std::invalid_argument(fmt::format("block_vjp: x {}×{}, g {}×{}", x.rows(), x.cols(), g.rows(), g.cols()));
  }
  // The forward, keeping what the reverse pass needs.
  const Matrix n1 = rms_norm(x, w.attention_norm);
  const Matrix q = each_head(n1 * w.wq, positions, frequencies, false);
  const Matrix k = each_head(n1 * w.wk, positions, frequencies, false);
  const Matrix v = n1 * w.wv;
  AttentionConvention c = convention;
  c.fully_masked = FullyMasked::zeros;  // a pad before any real key: a zero row, no gradient
  const Matrix attended = attention(q, k, v, AttentionMask::boolean(seen), w.heads, Dtype::float64, c);
  const Matrix h = x + attended * w.wo;
  const Matrix n2 = rms_norm(h, w.mlp_norm);
  const Matrix gate = n2 * w.w_gate, up = n2 * w.w_up;
  // The reverse pass: y = h + m·W_down, m = SiLU(gate) ⊙ up.
  const Matrix dm = g * w.w_down.transpose();
  const Matrix d_gate = silu_vjp(gate, dm.cwiseProduct(up));
  const Matrix d_up = dm.cwiseProduct(silu(gate));
  Matrix dh = g + rms_norm_vjp(h, w.mlp_norm, d_gate * w.w_gate.transpose() + d_up * w.w_up.transpose());
  // h = x + Attn(q, k, v)·W_o.
  const AttentionVjp a = attention_vjp(q, k, v, AttentionMask::boolean(seen), w.heads, c, dh * w.wo.transpose());
  const Matrix dn1 = each_head(a.dq, positions, frequencies, true) * w.wq.transpose() +
                     each_head(a.dk, positions, frequencies, true) * w.wk.transpose() + a.dv * w.wv.transpose();
  return dh + rms_norm_vjp(x, w.attention_norm, dn1);
}

}  // namespace pecheck::reference
