// CLAIMS.md §11 — grad.finite: a backward's gradients are finite wherever
// the forward's answer is: bounded inputs (q, k, v in [−1, 1], g in [−2,
// 2], whose forward is finite), lengths at the tile remainders kernels
// handle apart (n mod 64 and n mod 128 in {63, 0, 1}: PyTorch #196678, NaN
// in grad_q at n mod 128 = 64 under a mask), and — for a subject that
// declares fully_masked = "zeros" — rows that see no key, whose output is a
// constant zero and whose gradient must be too (0, not 0/0). One case in
// three draws ties, which uniform inputs never do (Liger-Kernel #1373: a
// gradient wrong only at p = q, untested because both inputs were random):
// every key equal (each row's logits all equal) or every query zero (every
// logit 0).
#include <fmt/format.h>

#include <cmath>

#include "grad/support.h"
#include "input_checks.h"
#include "pecheck/gen/matrix.h"
#include "pecheck/property/registry.h"

namespace pecheck::grad::finite {

namespace {

// Ties: 0 none, 1 every key equal to the first, 2 every query zero.
AttentionCase tied(AttentionCase c, int tie) {
  if (tie == 1) {
    for (Eigen::Index j = 1; j < c.k.rows(); ++j) c.k.row(j) = c.k.row(0);
  } else if (tie == 2) {
    c.q.setZero();
  }
  return c;
}

rc::Gen<AttentionCase> untied(const GenContext& ctx) {
  const bool zeros = ctx.subject.attention.masked_policy() == FullyMasked::zeros;
  return rc::gen::mapcat(
      rc::gen::pair(lengths(true), rc::gen::element<std::string>("none", "causal", "boolean")),
      [ctx, zeros](const std::pair<int, std::string>& shape) {
        const auto& [n, mask] = shape;
        auto cases = attention_case(ctx, n, n, mask);
        if (mask != "boolean") return cases;
        // A boolean mask: each row sees a random set of keys; where the subject
        // declares zeros, some rows see none.
        return rc::gen::apply(
            [zeros](AttentionCase c, BoolMatrix allowed) {
              for (Eigen::Index i = 0; i < allowed.rows(); ++i) {
                if (!zeros && !allowed.row(i).any()) allowed(i, i % allowed.cols()) = true;
              }
              c.allowed = std::move(allowed);
              return c;
            },
            cases, gen::bool_matrix(n, n));
      });
}

Check finite_check(const char* name, const Matrix& grad) {
  Check check{name};
  check.bound = Bound::exact("finite inputs with a finite forward have a finite gradient");
  for (Eigen::Index i = 0; i < grad.rows(); ++i) {
    for (Eigen::Index j = 0; j < grad.cols(); ++j) {
      if (std::isfinite(grad(i, j))) continue;
      check.error += 1;
      if (check.error == 1) {
        check.where.row = i;
        check.where.column = j;
        check.observed = number_to_json(grad(i, j));
        check.expected = "a finite number";
      }
    }
  }
  check.note = fmt::format("the count of entries of {} that are not finite ({}×{})", name, grad.rows(), grad.cols());
  return check;
}

Measurement measure(Subject& s, const AttentionCase& c, const BoundModel&) {
  const Grads got = attention_vjp(s, c);
  Measurement out{{finite_check("dq", got.dq), finite_check("dk", got.dk), finite_check("dv", got.dv)}, {}};
  const bool keys_tie = c.k.rows() > 1 && (c.k.rowwise() - c.k.row(0)).cwiseAbs().maxCoeff() == 0;
  const bool queries_zero = c.q.size() > 0 && c.q.cwiseAbs().maxCoeff() == 0;
  out.note = fmt::format("n = m = {} ({} mod 64, {} mod 128), {} mask{}", c.q.rows(), c.q.rows() % 64,
                         c.q.rows() % 128, c.mask,
                         keys_tie ? ", every key equal (tied logits)" : queries_zero ? ", every query zero (tied logits)" : "");
  return out;
}

}  // namespace

rc::Gen<AttentionCase> generate(const GenContext& ctx) {
  return rc::gen::apply(tied, untied(ctx),
                        rc::gen::weightedOneOf<int>({{4, rc::gen::just(0)}, {1, rc::gen::just(1)}, {1, rc::gen::just(2)}}));
}

std::vector<PropertyImpl> properties() {
  return {define<AttentionCase>("grad.finite", {"dq", "dk", "dv"}, generate, measure)};
}

}  // namespace pecheck::grad::finite
