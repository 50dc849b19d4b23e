// CLAIMS.md §1 — the logits h_ij = q_iᵀk_j/√d_k before the softmax: their sum
// is blind to token order (000's point that a linear aggregate cannot see
// order), and with x = x' + p they split into the four terms of 000's eq. 9.
#include <fmt/format.h>

#include <cmath>

#include "attention/support.h"
#include "pecheck/gen/matrix.h"
#include "pecheck/property/compare.h"
#include "pecheck/reference/sinusoidal.h"
#include "input_checks.h"
#include "sum_rounding.h"

namespace pecheck::attention::logits {

namespace {

Matrix positional_encoding(Eigen::Index n, Eigen::Index d) {
  Positions t(static_cast<size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) t[static_cast<size_t>(i)] = i;
  return reference::sinusoidal(static_cast<int>(d), t);
}

// Σ_l |q_il k_jl| / √d_k for every pair: what each logit's rounding is relative to.
Matrix absolute_logits(const Matrix& q, const Matrix& k) {
  return q.cwiseAbs() * k.cwiseAbs().transpose() / std::sqrt(static_cast<double>(q.cols()));
}

// Σ (t² + s²) of every product and partial sum behind Σ_ij h_ij, relative to
// the scaled logits (sum_rounding.h): each logit's d_k products and partial
// sums over d_k, its scaling, and the n² partial sums of the logits' sum.
double logit_sum_squares(const Matrix& q, const Matrix& k) {
  const double d = static_cast<double>(q.cols()), root = std::sqrt(d);
  double squares = 0, total = 0;
  for (Eigen::Index i = 0; i < q.rows(); ++i) {
    for (Eigen::Index j = 0; j < k.rows(); ++j) {
      double dot = 0;
      squares += rounding::product_squares(q.row(i), k.row(j), dot) / d;
      const double h = dot / root;
      total += h;
      squares += h * h + total * total;
    }
  }
  return squares;
}

Matrix subject_logits(Subject& s, const Matrix& q, const Matrix& k) {
  require_representable(s.info().dtype, absolute_logits(q, k).maxCoeff() * std::sqrt(static_cast<double>(q.cols())));
  Matrix h = ask::logits(s, q, k, AttentionMask::none());
  require_shape(h, q.rows(), k.rows(), "logits");
  return h;
}

// attention.logit_sum_invariance ---------------------------------------------
struct LogitSumCase {
  Matrix x;         // n×d tokens
  Matrix w_q, w_k;  // d×d, q_i = W_q x_i
  Permutation permutation;
  bool with_pe = false;  // add the sinusoidal PE of positions 0..n−1 (positions kept)
  void validate() const {
    input::matrix("x", x);
    input::matrix("w_q", w_q, x.cols(), x.cols());
    input::matrix("w_k", w_k, x.cols(), x.cols());
    input::permutation("permutation", permutation, x.rows());
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LogitSumCase, x, w_q, w_k, permutation, with_pe)

bool at_most_self_attention(std::int64_t n) { return n <= kMostSelfAttention; }

rc::Gen<LogitSumCase> logit_sum_gen(const GenContext& ctx) {
  return rc::gen::mapcat(
      rc::gen::tuple(size_on(ctx, Op::logits, Axis::queries, 1, kMaxTokens, at_most_self_attention),
                     size_on(ctx, Op::logits, Axis::width, 1, ctx.width_limit(kMaxDim)), rc::gen::arbitrary<bool>()),
      [](const std::tuple<int, int, bool>& dims) {
        const auto [n, d, with_pe] = dims;
        return rc::gen::apply(
            [with_pe = with_pe](Matrix x, Matrix wq, Matrix wk, Permutation p) {
              return LogitSumCase{std::move(x), std::move(wq), std::move(wk), std::move(p), with_pe};
            },
            gen::matrix(n, d, -kRange, kRange), gen::matrix(d, d, -weight_range(d), weight_range(d)),
            gen::matrix(d, d, -weight_range(d), weight_range(d)), gen::permutation(n));
      });
}

Measurement logit_sum_measure(Subject& s, const LogitSumCase& c, const BoundModel&) {
  const Eigen::Index n = c.x.rows(), d = c.x.cols();
  Matrix x = c.x, px = c.permutation.apply_rows(c.x);
  if (c.with_pe) {
    const Matrix pe = positional_encoding(n, d);
    x += pe;
    px += pe;
  }
  const Matrix q = project_rows(x, c.w_q), k = project_rows(x, c.w_k);
  const Matrix pq = project_rows(px, c.w_q), pk = project_rows(px, c.w_k);
  const double sum = subject_logits(s, q, k).sum(), permuted_sum = subject_logits(s, pq, pk).sum();
  const double scale = std::max(absolute_logits(q, k).sum(), absolute_logits(pq, pk).sum());
  const double nn = static_cast<double>(n * n);
  // Each logit carries d_k + 4 roundings relative to its Σ_l|q_l k_l|/√d_k,
  // and summing n² of them n² more; two sums are compared.
  Location where;
  where.label = c.with_pe ? "Σ_ij h_ij of P·X + PE against X + PE" : "Σ_ij h_ij of P·X against X";
  Bound bound = Bound::upper(2 * (static_cast<double>(d) + 4 + nn), scale,
                             fmt::format("2 sums·(d_k + 4 + n²) with d_k = {}, n = {} · Σ_ij Σ_l|q_il k_jl|/√d_k", d, n));
  // The tight bound (issue 36; the worst case a ceiling): the two sums' products and partial sums, apart.
  bound.terms.front().typical_work = 1;
  bound.terms.front().typical_scale = std::sqrt(logit_sum_squares(q, k) + logit_sum_squares(pq, pk));
  bound.probabilistic(1, "the products and partial sums of both sums of n² logits, rounding errors apart: "
                         "u·√Σ(t² + s²)");
  Check check = compare_scalars("logit sum", permuted_sum, sum, std::move(bound), std::move(where));
  check.note = "the sum of all logits, tokens permuted (positions kept)";
  return {{std::move(check)}, {}};
}

// attention.logit_decomposition ----------------------------------------------
struct DecompositionCase {
  Matrix x;         // n×d tokens x'
  Matrix w_q, w_k;  // d×d
  void validate() const {
    input::matrix("x", x);
    input::matrix("w_q", w_q, x.cols(), x.cols());
    input::matrix("w_k", w_k, x.cols(), x.cols());
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(DecompositionCase, x, w_q, w_k)

rc::Gen<DecompositionCase> decomposition_gen(const GenContext& ctx) {
  return rc::gen::mapcat(rc::gen::pair(size_on(ctx, Op::logits, Axis::queries, 1, kMaxTokens, at_most_self_attention),
                                       size_on(ctx, Op::logits, Axis::width, 1, ctx.width_limit(kMaxDim))),
                         [](const std::pair<int, int>& dims) {
                           const auto [n, d] = dims;
                           return rc::gen::construct<DecompositionCase>(gen::matrix(n, d, -kRange, kRange),
                                                                        gen::matrix(d, d, -weight_range(d), weight_range(d)),
                                                                        gen::matrix(d, d, -weight_range(d), weight_range(d)));
                         });
}

Measurement decomposition_measure(Subject& s, const DecompositionCase& c, const BoundModel&) {
  const Eigen::Index n = c.x.rows(), d = c.x.cols();
  const Matrix p = positional_encoding(n, d);
  const Matrix x = c.x + p;
  const Matrix h = subject_logits(s, project_rows(x, c.w_q), project_rows(x, c.w_k));
  // Row convention: h_ij = x_iᵀ A x_j with A = W_qᵀ W_k is the matrix X A Xᵀ;
  // the subject's logits carry the 1/√d_k scale, so the four terms do too.
  const Matrix a = c.w_q.transpose() * c.w_k;
  const double root = std::sqrt(static_cast<double>(d));
  const Matrix expected = (c.x * a * c.x.transpose() + c.x * a * p.transpose() + p * a * c.x.transpose() +
                           p * a * p.transpose()) / root;
  const Matrix size = c.x.cwiseAbs() + p.cwiseAbs();
  const double scale = (size * c.w_q.cwiseAbs().transpose() * c.w_k.cwiseAbs() * size.transpose()).maxCoeff() / root;
  // 2d for the harness's two projections, d_k + 4 for the subject's logit,
  // d_k + 2d for each bilinear form through A, and 5 for summing four terms and scaling.
  Check check = compare_entries(
      "four terms", h, expected,
      Bound::upper(4.0 * static_cast<double>(d) + 2.0 * static_cast<double>(d) + 10, scale,
                   fmt::format("(4d + 2d_k + 10) with d = d_k = {} · max_ij (|x'_i|+|p_i|)ᵀ|W_q|ᵀ|W_k|(|x'_j|+|p_j|)/√d_k",
                               d)));
  check.where.query = check.where.row;
  check.where.key = check.where.column;
  check.where.row.reset();
  check.where.column.reset();
  check.note = "the subject's logit h_ij against x'ᵀAx' + x'ᵀAp + pᵀAx' + pᵀAp (A = W_qᵀW_k), over √d_k";
  return {{std::move(check)}, {}};
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {
      scaling({Axis::queries, Axis::width},
              define<LogitSumCase>("attention.logit_sum_invariance", {"logit sum"}, logit_sum_gen, logit_sum_measure)),
      scaling({Axis::queries, Axis::width}, define<DecompositionCase>("attention.logit_decomposition", {"four terms"},
                                                                      decomposition_gen, decomposition_measure)),
  };
}

}  // namespace pecheck::attention::logits
