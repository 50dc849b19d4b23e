// The VJPs of attention under a declared convention (reference/vjp.h): the
// forward's logits, cap, mask, sinks and grouping, then the softmax's
// Jacobian, in plain float64.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <vector>

#include "pecheck/reference/attention.h"
#include "pecheck/reference/vjp.h"

namespace pecheck::reference {

namespace {

struct HeadGrads {
  Matrix dq, dk, dv;
};

// One query head on its kv head's blocks; seen(i, j): key j visible to query i.
HeadGrads head_vjp(const Matrix& q, const Matrix& k, const Matrix& v, const BoolMatrix& seen,
                   const AttentionConvention& c, std::optional<double> sink, const Matrix& g) {
  const Eigen::Index n = q.rows(), m = k.rows();
  const double lambda = c.scale_for(q.cols());
  const Matrix s = lambda * (q * k.transpose());
  Matrix t = s;
  if (c.softcap) t = s.unaryExpr([&](double x) { return *c.softcap * std::tanh(x / *c.softcap); });
  HeadGrads out{Matrix::Zero(n, q.cols()), Matrix::Zero(m, k.cols()), Matrix::Zero(m, v.cols())};
  Matrix ds = Matrix::Zero(n, m);
  const double ninf = -std::numeric_limits<double>::infinity();
  for (Eigen::Index i = 0; i < n; ++i) {
    double top = sink.value_or(ninf);
    bool any = false;
    for (Eigen::Index j = 0; j < m; ++j) {
      if (!seen(i, j)) continue;
      any = true;
      top = std::max(top, t(i, j));
    }
    if (!any && !sink) {
      if (c.masked_policy() == FullyMasked::zeros) continue;  // a constant zero row: no gradient
      throw Refusal(fmt::format("query {} may attend to no key: the softmax of an empty set is undefined", i));
    }
    std::vector<double> p(static_cast<size_t>(m), 0.0);
    double sum = sink ? std::exp(*sink - top) : 0.0;
    for (Eigen::Index j = 0; j < m; ++j) {
      if (!seen(i, j)) continue;
      p[static_cast<size_t>(j)] = std::exp(t(i, j) - top);
      sum += p[static_cast<size_t>(j)];
    }
    double centre = 0;  // Σ_l P_il dP_il (the sink's dP is 0: it carries no value)
    std::vector<double> dp(static_cast<size_t>(m), 0.0);
    for (Eigen::Index j = 0; j < m; ++j) {
      if (!seen(i, j)) continue;
      p[static_cast<size_t>(j)] /= sum;
      dp[static_cast<size_t>(j)] = g.row(i).dot(v.row(j));
      centre += p[static_cast<size_t>(j)] * dp[static_cast<size_t>(j)];
      out.dv.row(j) += p[static_cast<size_t>(j)] * g.row(i);
    }
    for (Eigen::Index j = 0; j < m; ++j) {
      if (!seen(i, j)) continue;
      double d = p[static_cast<size_t>(j)] * (dp[static_cast<size_t>(j)] - centre);
      if (c.softcap) {
        const double th = std::tanh(s(i, j) / *c.softcap);
        d *= 1 - th * th;
      }
      ds(i, j) = d;
    }
  }
  out.dq = lambda * (ds * k);
  out.dk = lambda * (ds.transpose() * q);
  return out;
}

}  // namespace

AttentionVjp attention_vjp(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask, int heads,
                           const AttentionConvention& convention, const Matrix& g) {
  check_grouped_inputs(q, k, v, mask, heads, convention);
  const int groups = kv_heads_of(q, k, v, heads);
  const Eigen::Index d_head = q.cols() / heads, d_v = v.cols() / groups;
  if (g.rows() != q.rows() || g.cols() != heads * d_v) {
    throw Refusal(fmt::format("the upstream gradient is {}×{}, the attention's answer {}×{}", g.rows(), g.cols(),
                              q.rows(), heads * d_v));
  }
  const BoolMatrix seen = visible_keys(mask, q.rows(), k.rows(), convention);
  AttentionVjp out{Matrix::Zero(q.rows(), q.cols()), Matrix::Zero(k.rows(), k.cols()), Matrix::Zero(v.rows(), v.cols())};
  for (int h = 0; h < heads; ++h) {
    const int kv = AttentionConvention::kv_head_of(h, heads, groups, convention.grouping);
    std::optional<double> sink;
    if (convention.sinks) sink = convention.sink_logits[static_cast<size_t>(h)];
    const HeadGrads grads = head_vjp(q.middleCols(h * d_head, d_head), k.middleCols(kv * d_head, d_head),
                                     v.middleCols(kv * d_v, d_v), seen, convention, sink, g.middleCols(h * d_v, d_v));
    out.dq.middleCols(h * d_head, d_head) = grads.dq;
    out.dk.middleCols(kv * d_head, d_head) += grads.dk;  // summed over the query heads of the group
    out.dv.middleCols(kv * d_v, d_v) += grads.dv;
  }
  return out;
}

}  // namespace pecheck::reference
