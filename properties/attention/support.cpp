#include "attention/support.h"

#include <fmt/format.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include "pecheck/gen/matrix.h"
#include "pecheck/reference/attention.h"
#include "input_checks.h"

namespace pecheck::attention {

Matrix project_rows(const Matrix& x, const Matrix& w) { return x * w.transpose(); }

rc::Gen<int> heads(const SubjectInfo& subject) {
  if (subject.attention.heads) return rc::gen::just(*subject.attention.heads);
  // Subjects that only speak the protocol attend with one head.
  return subject.multi_head ? rc::gen::inRange(1, 5) : rc::gen::just(1);
}

int kv_heads(const SubjectInfo& subject, int heads) {
  return subject.attention.heads ? subject.attention.key_heads() : heads;
}

double logit_scale(const SubjectInfo& subject, Eigen::Index d_head) { return subject.attention.scale_for(d_head); }

rc::Gen<int> heads(const GenContext& ctx) {
  // Declared heads (params.attention.heads) are the heads: its kv_heads divide them and no other.
  if (ctx.subject.attention.heads) return rc::gen::just(*ctx.subject.attention.heads);
  if (!ctx.subject.multi_head) return rc::gen::just(1);
  return size_on(ctx, Op::attention, Axis::heads, 1, 4);
}

rc::Gen<int> queries(const GenContext& ctx, int min_tokens) {
  return size_on(ctx, Op::attention, Axis::queries, min_tokens, kMaxTokens);
}

rc::Gen<int> keys(const GenContext& ctx, int most) {
  return size_on(ctx, Op::attention, Axis::keys, 1, kMaxTokens, [most](std::int64_t m) { return m <= most; });
}

rc::Gen<int> tokens(const GenContext& ctx, int min_tokens) {
  // n queries attend to the same n tokens as keys: n within both
  // declarations, and at most kMostSelfAttention (n² logits, each formed
  // again by the reference).
  const AxisLimits as_keys = axis_limits(ctx.subject, ctx.max_position, ctx.max_width, Op::attention, Axis::keys);
  return size_on(ctx, Op::attention, Axis::queries, min_tokens, kMaxTokens,
                 [as_keys](std::int64_t n) { return n <= kMostSelfAttention && as_keys.allows(n); });
}

rc::Gen<int> head_width(const GenContext& ctx, int per_head) {
  return size_on(ctx, Op::attention, Axis::width, 1, std::max(1, per_head));
}

rc::Gen<TokenCase> token_case(const GenContext& ctx, int min_tokens) {
  return rc::gen::mapcat(heads(ctx), [ctx, min_tokens, max_dim = ctx.width_limit(kMaxDim)](int h) {
    const int g = kv_heads(ctx.subject, h);
    return rc::gen::mapcat(
        rc::gen::pair(tokens(ctx, min_tokens), head_width(ctx, max_dim / h)),
        [h, g](const std::pair<int, int>& dims) {
          const int n = dims.first, d = h * dims.second, kv = g * dims.second;
          // W_q is scaled by 1, 1/4, 1/16 or 0: logits from large to none. A
          // low-precision subject's error bound grows with the logits, so
          // without small ones an order effect (causal mask, PE) could hide
          // under a float16 or bfloat16 bound.
          return rc::gen::apply(
              [h](Matrix x, Matrix wq, double logit_scale, Matrix wk, Matrix wv, Permutation p) {
                wq *= logit_scale;
                return TokenCase{std::move(x), std::move(wq), std::move(wk), std::move(wv), h, std::move(p)};
              },
              gen::matrix(n, d, -kRange, kRange), gen::matrix(d, d, -weight_range(d), weight_range(d)),
              rc::gen::element(1.0, 0.25, 0.0625, 0.0), gen::matrix(kv, d, -weight_range(d), weight_range(d)),
              gen::matrix(kv, d, -weight_range(d), weight_range(d)), gen::permutation(n));
        });
  });
}

rc::Gen<BoolMatrix> attendable_mask(Eigen::Index n, Eigen::Index m) {
  return rc::gen::map(gen::bool_matrix(n, m), [](BoolMatrix b) {
    // A fully masked row has no defined softmax: let it attend to one key.
    for (Eigen::Index i = 0; i < b.rows(); ++i) {
      if (!b.row(i).any()) b(i, i % b.cols()) = true;
    }
    return b;
  });
}

rc::Gen<QkvCase> qkv_case(const GenContext& ctx, Permuted permuted, int most_keys) {
  struct Dims { int heads, n, m, dq, dk, dv; bool masked; };
  auto dims = rc::gen::mapcat(heads(ctx), [ctx, most_keys, max_dim = ctx.width_limit(kMaxDim)](int h) {
    const int per_head = std::max(1, max_dim / h), g = kv_heads(ctx.subject, h);
    return rc::gen::apply(
        [h, g](int n, int m, int dk, int dv, bool masked) { return Dims{h, n, m, h * dk, g * dk, g * dv, masked}; },
        queries(ctx), keys(ctx, most_keys), head_width(ctx, per_head), head_width(ctx, per_head),
        rc::gen::arbitrary<bool>());
  });
  return rc::gen::mapcat(dims, [permuted](const Dims& s) {
    const int permuted_rows = permuted == Permuted::queries ? s.n : s.m;
    return rc::gen::apply(
        [s](Matrix q, Matrix k, Matrix v, BoolMatrix allowed, Permutation p) {
          QkvCase c{std::move(q), std::move(k), std::move(v), s.heads, "none", {}, std::move(p)};
          if (s.masked) {
            c.mask = "boolean";
            c.allowed = std::move(allowed);
          }
          return c;
        },
        gen::matrix(s.n, s.dq, -kRange, kRange), gen::matrix(s.m, s.dk, -kRange, kRange),
        gen::matrix(s.m, s.dv, -kRange, kRange), attendable_mask(s.n, s.m), gen::permutation(permuted_rows));
  });
}

void validate_mask(const std::string& kind, const BoolMatrix& allowed, Eigen::Index n, Eigen::Index m) {
  if (kind == "none" || kind == "causal") return;
  if (kind != "boolean") input::invalid("mask", fmt::format("expected \"none\", \"causal\" or \"boolean\", got \"{}\"", kind));
  if (allowed.rows() != n || allowed.cols() != m) {
    input::invalid("allowed", fmt::format("expected {}×{} booleans, got {}×{}", n, m, allowed.rows(), allowed.cols()));
  }
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!allowed.row(i).any()) input::invalid("allowed", fmt::format("row {} allows no key", i));
  }
}

void validate_qkv(const Matrix& q, const Matrix& k, const Matrix& v, int heads) {
  input::matrix("q", q);
  input::heads("heads", heads, {q.cols()});
  input::matrix("k", k);
  input::matrix("v", v, k.rows());
  const Eigen::Index d_head = q.cols() / heads;
  if (k.cols() % d_head != 0 || heads % (k.cols() / d_head) != 0) {
    input::invalid("k", fmt::format("expected a whole number of key/value heads of width {} dividing {} heads", d_head,
                                    heads));
  }
  input::heads("v", static_cast<int>(k.cols() / d_head), {v.cols()});
}

AttentionMask mask_of(const std::string& kind, const BoolMatrix& allowed) {
  if (kind == "boolean") return AttentionMask::boolean(allowed);
  if (kind == "causal") return AttentionMask::causal();
  return AttentionMask::none();
}

BoolMatrix permute_rows(const Permutation& p, const BoolMatrix& b) {
  BoolMatrix out(b.rows(), b.cols());
  for (int r = 0; r < p.size(); ++r) out.row(r) = b.row(p.image[static_cast<size_t>(r)]);
  return out;
}

BoolMatrix permute_cols(const Permutation& p, const BoolMatrix& b) {
  BoolMatrix out(b.rows(), b.cols());
  for (int c = 0; c < p.size(); ++c) out.col(c) = b.col(p.image[static_cast<size_t>(c)]);
  return out;
}

Eigen::Index output_width(const Matrix& q, const Matrix& k, const Matrix& v, int heads) {
  const Eigen::Index d_head = q.cols() / std::max(heads, 1);
  const Eigen::Index groups = d_head > 0 ? std::max<Eigen::Index>(1, k.cols() / d_head) : 1;
  return heads * (v.cols() / groups);
}

double logit_magnitude(const Matrix& q, const Matrix& k, int heads, double scale) {
  const Eigen::Index dh = q.cols() / std::max(heads, 1);
  if (dh == 0 || q.rows() == 0 || k.rows() == 0) return 0;
  const auto groups = static_cast<int>(k.cols() / dh);
  double h = 0;
  // Every pair exactly costs n·m·d_h per pair of heads: at a real window
  // (4,097 queries over 4,097 keys) that is seconds a case, longer than the
  // subject takes to answer. Past kExactPairs the largest ‖q_i‖·‖k_j‖ is
  // taken instead (Cauchy–Schwarz: Σ_l |q_il k_jl| ≤ ‖q_i‖‖k_j‖, about 4/3
  // of the exact maximum for random rows): still a bound on every logit.
  constexpr double kExactPairs = 1 << 20;
  const bool exact = static_cast<double>(q.rows()) * static_cast<double>(k.rows()) <= kExactPairs;
  for (int g = 0; g < groups; ++g) {
    const double key_norm = exact ? 0 : k.middleCols(g * dh, dh).rowwise().norm().maxCoeff();
    for (int head = 0; head < heads; ++head) {
      if (!exact) {
        h = std::max(h, q.middleCols(head * dh, dh).rowwise().norm().maxCoeff() * key_norm);
        continue;
      }
      const Matrix products = q.middleCols(head * dh, dh).cwiseAbs() * k.middleCols(g * dh, dh).cwiseAbs().transpose();
      h = std::max(h, products.maxCoeff());
    }
  }
  return h * (scale > 0 ? scale : 1 / std::sqrt(static_cast<double>(dh)));
}

namespace {
double largest_finite(Dtype dtype) {
  switch (dtype) {
    case Dtype::float64: return DBL_MAX;
    case Dtype::float32: return FLT_MAX;
    case Dtype::float16: return 65504.0;
    case Dtype::bfloat16: return 0x1.fep127;
  }
  return DBL_MAX;
}
}  // namespace

void require_representable(Dtype dtype, double dot_magnitude) {
  // Half the range: the partial sums and the scaled logit stay finite.
  if (!(dot_magnitude <= largest_finite(dtype) / 2)) {
    throw HarnessDiscard(fmt::format("the harness discards this input: dot products up to {:.4g} leave {}'s range",
                              dot_magnitude, name(dtype)));
  }
}

double exp_overflow_threshold(Dtype dtype) { return std::log(largest_finite(dtype)); }

Bound output_bound(int evaluations, double head_dim, Eigen::Index keys, double logit_bound, double value_scale) {
  const double m = static_cast<double>(keys);
  // Two terms, worst case alike: the logits' roundings (a count, 2(d_h + 6)) each the size of the logits
  // (H, a magnitude), and the softmax's and the weighted sum's (2m + 4) the size of the values. A tight
  // bound (result/tight_bound.h) roots the counts alone: √(2(d_h + 6))·H, never √H.
  Bound b = Bound::upper(evaluations * (2 * m + 4), value_scale,
                         fmt::format("{}·(2m + 4) with m = {} keys · max|v|", evaluations, keys));
  b.plus(Stage::values, evaluations * 2 * (head_dim + 6), logit_bound * value_scale,
         fmt::format("{}·2(d_h + 6) with d_h = {:g} · H·max|v|, logit bound H = {:.4g}", evaluations, head_dim,
                     logit_bound));
  return b;
}

double weight_spread(const Matrix& q, const Matrix& k, const AttentionMask& mask, int heads) {
  const Eigen::Index dh = q.cols() / std::max(heads, 1);
  if (dh == 0 || q.rows() == 0 || k.rows() == 0) return 1;
  const Eigen::Index groups = std::max<Eigen::Index>(1, k.cols() / dh);
  const Eigen::Index per_group = std::max<Eigen::Index>(1, heads / groups);
  double spread = 0;
  for (int head = 0; head < heads; ++head) {
    const Eigen::Index g = std::min<Eigen::Index>(head / per_group, groups - 1);
    const Matrix w =
        reference::softmax_rows(reference::scaled_logits(q.middleCols(head * dh, dh), k.middleCols(g * dh, dh), mask));
    if (!w.allFinite()) return 1;
    spread = std::max(spread, w.rowwise().norm().maxCoeff());
  }
  return spread;
}

void spread_logit_errors(Bound& bound, double head_dim, double spread) {
  BoundTerm& logits = bound.terms.back();
  const double shared = head_dim + 1, own = head_dim + 11;
  logits.typical_scale = logits.scale * std::sqrt((shared + own * spread * spread) / (shared + own));
}

void worst_entry(Check& check, const Matrix& observed, const Matrix& expected, Eigen::Index d_value,
                 const std::function<bool(Eigen::Index, Eigen::Index)>& compared) {
  bool first = true;
  for (Eigen::Index i = 0; i < observed.rows(); ++i) {
    for (Eigen::Index col = 0; col < observed.cols(); ++col) {
      if (compared && !compared(i, col)) continue;
      double e = std::fabs(observed(i, col) - expected(i, col));
      if (std::isnan(e)) e = std::numeric_limits<double>::infinity();
      if (!first && e <= check.error) continue;
      first = false;
      check.error = e;
      check.where.query = i;
      check.where.column = col;
      check.where.head = col / d_value;
      check.observed = number_to_json(observed(i, col));
      check.expected = number_to_json(expected(i, col));
    }
  }
}

Check& rows_are(Check& check, const char* what) {
  if (check.where.row) {
    const std::string kind = what;
    if (kind == "token") check.where.token = check.where.row;
    if (kind == "query") check.where.query = check.where.row;
    if (kind == "key") check.where.key = check.where.row;
    check.where.row.reset();
  }
  return check;
}

}  // namespace pecheck::attention
