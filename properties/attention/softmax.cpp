// CLAIMS.md §1 — what the softmax guarantees: convex weights, stability for
// large logits, and no influence from keys that are masked out. Everything
// is observed through the attention op alone (what a process subject offers).
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <utility>

#include "attention/same_dtype.h"
#include "attention/support.h"
#include "pecheck/gen/matrix.h"
#include "pecheck/property/compare.h"
#include "input_checks.h"

namespace pecheck::attention::softmax {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double head_dim(const Matrix& q, int heads) { return static_cast<double>(q.cols() / heads); }

constexpr int kMostConvexKeys = 1024;

// attention.convex_combination -----------------------------------------------
struct ConvexCase {
  Matrix q, k, v;
  int heads = 1;
  std::string mask = "none";
  BoolMatrix allowed;
  void validate() const {
    validate_qkv(q, k, v, heads);
    validate_mask(mask, allowed, q.rows(), k.rows());
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ConvexCase, q, k, v, heads, mask, allowed)

rc::Gen<ConvexCase> convex_gen(const GenContext& ctx) {
  // The weights are read out through V = I (m × m per head): keys up to 1024.
  return rc::gen::map(qkv_case(ctx, Permuted::keys, kMostConvexKeys), [](QkvCase c) {
    return ConvexCase{std::move(c.q), std::move(c.k), std::move(c.v), c.heads, std::move(c.mask), std::move(c.allowed)};
  });
}

// How far value `x` lies outside [lo, hi] (NaN stays NaN).
double outside(double x, double lo, double hi) {
  if (std::isnan(x)) return x;
  return std::max({0.0, lo - x, x - hi});
}

// A check whose error is how far `observed` lies outside what it must.
Check excess(std::string name, double error, Bound bound, Location where, double observed, std::string expected,
             std::string note) {
  Check c;
  c.name = std::move(name);
  c.error = error;
  c.bound = std::move(bound);
  c.where = std::move(where);
  c.observed = number_to_json(observed);
  c.expected = std::move(expected);
  c.note = std::move(note);
  return c;
}

Location at(std::optional<std::int64_t> query, std::optional<std::int64_t> key, std::optional<std::int64_t> head,
            std::optional<std::int64_t> column) {
  Location w;
  w.query = query;
  w.key = key;
  w.head = head;
  w.column = column;
  return w;
}

// Values that are the identity in every key/value head read the weights out:
// row i of query head h's output block is (w_i1, …, w_im), exactly (products
// with 0 and 1). A subject that declares its widths (params.attention.shapes.d) and not m
// gets the identity in blocks of its smallest declared width, zero-padded:
// one request per block, each inside what it declares.
Matrix read_weights(Subject& s, const ConvexCase& c, const AttentionMask& mask, int groups) {
  const Eigen::Index n = c.q.rows(), m = c.k.rows();
  Eigen::Index block = m;
  if (const Extent* d = s.info().shapes.find(Op::attention, ShapeDim::d); d && !d->contains(m)) {
    block = static_cast<Eigen::Index>(d->smallest());
  }
  Matrix w(n, c.heads * m);
  for (Eigen::Index from = 0; from < m; from += block) {
    const Eigen::Index count = std::min(block, m - from);
    // One identity per key/value head: query head h reads kv head kv_of(h), so its block holds its own weights.
    Matrix identity = Matrix::Zero(m, groups * block);
    for (int g = 0; g < groups; ++g) identity.block(from, g * block, count, count).setIdentity();
    const Matrix part = ask::attention(s, c.q, c.k, identity, mask, c.heads);
    require_shape(part, n, c.heads * block, "attention");
    for (int head = 0; head < c.heads; ++head) {
      w.middleCols(head * m + from, count) = part.middleCols(head * block, count);
    }
  }
  return w;
}

// A sub-check's worst entry so far, judged relative to its bound: a candidate is built, with its
// text, only when it is worse.
bool worse(double candidate, const Check& current) {
  if (std::isnan(candidate)) return !std::isnan(current.error);
  return candidate > current.error;
}

// The weights themselves (read with V = I): each >= 0, each row of each head summing to 1.
std::pair<Check, Check> weight_checks(const Matrix& w, int heads, Eigen::Index n, Eigen::Index m, Bound weight_bound) {
  weight_bound.probabilistic(1, "one attention's rounding errors adding as √work");
  Check sums = excess("weights sum to 1", 0, weight_bound, {}, 0, "",
                      "the attention weights of a row (read with V = I) sum to 1");
  Check signs = excess("weights non-negative", 0, weight_bound, {}, 0, "",
                       "every attention weight (read with V = I) is >= 0");
  for (int head = 0; head < heads; ++head) {
    for (Eigen::Index i = 0; i < n; ++i) {
      const auto row = w.row(i).segment(head * m, m);
      const double total = row.sum();
      if (const double error = std::fabs(total - 1); worse(error, sums)) {
        sums = excess(sums.name, error, weight_bound, at(i, {}, head, {}), total, "1", sums.note);
      }
      Eigen::Index j = 0;
      const double lowest = row.minCoeff(&j);
      if (const double error = std::isnan(lowest) ? lowest : std::max(0.0, -lowest); worse(error, signs)) {
        signs = excess(signs.name, error, weight_bound, at(i, j, head, {}), lowest, ">= 0", signs.note);
      }
    }
  }
  return {std::move(sums), std::move(signs)};
}

Measurement convex_measure(Subject& s, const ConvexCase& c, const BoundModel&) {
  const Eigen::Index n = c.q.rows(), m = c.k.rows();
  const AttentionMask mask = mask_of(c.mask, c.allowed);
  const double h = logit_magnitude(c.q, c.k, c.heads), d_h = head_dim(c.q, c.heads);
  // G key/value heads (G = H without grouping); query head h reads kv head
  // kv_of(h) under the declared grouping.
  const auto groups = static_cast<int>(c.k.cols() / static_cast<Eigen::Index>(d_h));
  const Eigen::Index dv = c.v.cols() / groups;
  const AttentionConvention& declared = s.info().attention;
  auto kv_of = [&](int head) {
    return AttentionConvention::kv_head_of(head, c.heads, groups, declared.grouping);
  };
  require_representable(s.info().dtype, h * std::sqrt(d_h));
  const Matrix y = ask::attention(s, c.q, c.k, c.v, mask, c.heads);
  require_shape(y, n, c.heads * dv, "attention");
  const Matrix w = read_weights(s, c, mask, groups);

  // Tight bounds (issue 36): an output entry strays from the hull no further than from the exact output,
  // which the same-dtype reference bounds; norms and weights follow the probabilistic model.
  Bound value_bound = output_bound(1, d_h, m, h, max_abs(c.v));
  with_same_dtype(value_bound, s.info(), {{c.q, c.k, c.v, mask, c.heads}});
  Check columns = excess("columns within the values' range", 0, value_bound, {}, 0, "",
                         "each output column within the values' min and max");
  for (Eigen::Index col = 0; col < y.cols(); ++col) {
    // Output column col is column col mod d_v of the kv head its query head reads.
    const Eigen::Index source = kv_of(static_cast<int>(col / dv)) * dv + col % dv;
    const double lo = c.v.col(source).minCoeff(), hi = c.v.col(source).maxCoeff();
    for (Eigen::Index i = 0; i < n; ++i) {
      const double error = outside(y(i, col), lo, hi);
      if (!worse(error, columns)) continue;
      columns = excess(columns.name, error, value_bound, at(i, {}, {}, col), y(i, col),
                       fmt::format("within [{:.17g}, {:.17g}]", lo, hi), columns.note);
    }
  }
  // Per head: a convex combination of head h's value rows is no longer than
  // the longest of them (the harness's norms add d_h double roundings, well
  // inside the bound's 2m + 4).
  double longest = 0;
  for (Eigen::Index j = 0; j < m; ++j) longest = std::max(longest, c.v.row(j).norm());
  Bound norm_bound = output_bound(1, d_h, m, h, longest);
  norm_bound.probabilistic(1, "one attention's rounding errors adding as √work");
  Check norms = excess("norm within the longest value", 0, norm_bound, {}, 0, "",
                       "‖y_i‖ of each head within max_j ‖v_j‖ of that head");
  for (int head = 0; head < c.heads; ++head) {
    double cap = 0;
    for (Eigen::Index j = 0; j < m; ++j) cap = std::max(cap, c.v.row(j).segment(kv_of(head) * dv, dv).norm());
    for (Eigen::Index i = 0; i < n; ++i) {
      const double len = y.row(i).segment(head * dv, dv).norm();
      const double error = outside(len, 0, cap);
      if (!worse(error, norms)) continue;
      norms = excess(norms.name, error, norm_bound, at(i, {}, head, {}), len, fmt::format("at most {:.17g}", cap),
                     norms.note);
    }
  }
  auto [sums, signs] = weight_checks(w, c.heads, n, m, output_bound(1, d_h, m, h, 1.0));
  return {{std::move(columns), std::move(norms), std::move(sums), std::move(signs)}, {}};
}

// attention.softmax_stability ------------------------------------------------
// Row i's logits are shifted by shift_i through one appended feature per head:
// q gets shift_i·√(d_h + 1), k gets 1, so h_ij grows by shift_i for every key j.
struct StabilityCase {
  Matrix q, k, v;
  int heads = 1;
  Matrix shift;  // n×1 logit shifts, far past exp's overflow threshold
  void validate() const {
    validate_qkv(q, k, v, heads);
    input::matrix("shift", shift, q.rows(), 1);
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(StabilityCase, q, k, v, heads, shift)

// How far past exp's overflow threshold T the shifts reach: T·2^e with e up
// to this, keeping the logits finite and the rounding of a shifted logit
// (≈ u·T·2^e) small enough for the bound to mean something where it can.
int max_shift_exponent(Dtype dtype) {
  switch (dtype) {
    case Dtype::float64: return 20;
    case Dtype::float32:
    case Dtype::bfloat16: return 12;
    case Dtype::float16: return 6;
  }
  return 6;
}

// d_k of a case whose requests carry one feature more per head (the shift):
// inside params.attention.shapes.d as sent, d_k + 1.
rc::Gen<int> shifted_width(const GenContext& ctx, int per_head) {
  if (!axis_limits(ctx.subject, ctx.max_position, ctx.max_width, Op::attention, Axis::width).declared) {
    return head_width(ctx, per_head);
  }
  return rc::gen::map(size_on(ctx, Op::attention, Axis::width, 2, per_head + 1), [](int sent) { return sent - 1; });
}

rc::Gen<StabilityCase> stability_gen(const GenContext& ctx) {
  const double threshold = exp_overflow_threshold(ctx.subject.dtype);
  struct Dims { int heads, kv_heads, n, m, dk, dv, exponent; };
  struct Shape { int heads, kv_heads; };
  auto shape = rc::gen::map(heads(ctx), [&subject = ctx.subject](int h) { return Shape{h, kv_heads(subject, h)}; });
  auto dims = rc::gen::mapcat(shape, [ctx, dtype = ctx.subject.dtype, max_dim = ctx.width_limit(kMaxDim)](Shape hs) {
    const int h = hs.heads, g = hs.kv_heads;
    const int per_head = std::max(1, max_dim / h);
    return rc::gen::apply(
        [h, g](int n, int m, int dk, int dv, int e) { return Dims{h, g, n, m, dk, dv, e}; },
        queries(ctx), keys(ctx), shifted_width(ctx, per_head), head_width(ctx, per_head),
        rc::gen::inRange(1, max_shift_exponent(dtype) + 1));
  });
  return rc::gen::mapcat(dims, [threshold](const Dims& s) {
    const double reach = threshold * std::ldexp(1.0, s.exponent);
    return rc::gen::apply(
        [s, reach](Matrix q, Matrix k, Matrix v, Matrix direction) {
          return StabilityCase{std::move(q), std::move(k), std::move(v), s.heads, direction * reach};
        },
        gen::matrix(s.n, s.heads * s.dk, -kRange, kRange), gen::matrix(s.m, s.kv_heads * s.dk, -kRange, kRange),
        gen::matrix(s.m, s.kv_heads * s.dv, -kRange, kRange), gen::matrix(s.n, 1, -1, 1));
  });
}

// Appends one column per head: head h's block of x followed by `extra`.
Matrix append_per_head(const Matrix& x, const Matrix& extra, int heads) {
  const Eigen::Index d = x.cols() / heads;
  Matrix out(x.rows(), x.cols() + heads);
  for (int head = 0; head < heads; ++head) {
    out.middleCols(head * (d + 1), d) = x.middleCols(head * d, d);
    out.col(head * (d + 1) + d) = extra.col(0);
  }
  return out;
}

Measurement stability_measure(Subject& s, const StabilityCase& c, const BoundModel&) {
  const Eigen::Index n = c.q.rows(), m = c.k.rows();
  const double d_h = head_dim(c.q, c.heads) + 1;
  const auto groups = static_cast<int>(c.k.cols() / (c.q.cols() / c.heads));
  const Matrix ones = Matrix::Ones(m, 1);
  const Matrix k = append_per_head(c.k, ones, groups);
  const Matrix q = append_per_head(c.q, Matrix::Zero(n, 1), c.heads);
  // The appended feature's logit is scale·shift_i/scale = shift_i (scale: declared, else 1/√(d_h + 1)).
  const Matrix shifted_q =
      append_per_head(c.q, c.shift / logit_scale(s.info(), static_cast<Eigen::Index>(d_h)), c.heads);
  const double h = logit_magnitude(shifted_q, k, c.heads, logit_scale(s.info(), static_cast<Eigen::Index>(d_h)));
  require_representable(s.info().dtype, h * std::sqrt(d_h));
  const Matrix y = ask::attention(s, q, k, c.v, AttentionMask::none(), c.heads);
  const Matrix shifted = ask::attention(s, shifted_q, k, c.v, AttentionMask::none(), c.heads);
  require_shape(y, n, c.heads * (c.v.cols() / groups), "attention");
  require_shape(shifted, n, y.cols(), "attention");
  Bound bound = output_bound(2, d_h, m, h, max_abs(c.v));
  // pecheck's reference of both requests in the subject's dtype (its logits rounded as the subject's are,
  // shift included: the case keeps h·√d_h representable there).
  with_same_dtype(bound, s.info(), {{shifted_q, k, c.v, AttentionMask::none(), c.heads},
                                    {q, k, c.v, AttentionMask::none(), c.heads}});
  // Finiteness first: an overflowing softmax gives inf or NaN however the
  // unshifted output looks; the finite check is exact (no rounding excuses it).
  Check finite = excess("finite output", 0, Bound::exact("a finite logit has a finite softmax"), {}, 0, "finite",
                        "the output must be finite for finite logits");
  for (Eigen::Index i = 0; i < n && finite.error == 0; ++i) {
    for (Eigen::Index col = 0; col < shifted.cols(); ++col) {
      if (!std::isfinite(shifted(i, col))) {
        finite = excess(finite.name, kInf, finite.bound, at(i, {}, {}, col), shifted(i, col), "a finite number",
                        fmt::format("the output must be finite for finite logits; row {}'s logits were shifted by {:.6g}",
                                    i, c.shift(i, 0)));
        break;
      }
    }
  }
  Check unchanged = compare_entries("shifted row unchanged", shifted, y, bound);
  rows_are(unchanged, "query");
  unchanged.note = "row i of the output with every logit of row i shifted by shift_i, against the unshifted output";
  return {{std::move(finite), std::move(unchanged)}, {}};
}

// attention.padding_mask_isolation -------------------------------------------
// A padding mask hides the same keys from every query; the padded keys' k and
// v rows are then replaced by other values.
struct PaddingCase {
  Matrix q, k, v;
  int heads = 1;
  BoolMatrix real;                  // 1×m: false marks a padded key
  Matrix k_replaced, v_replaced;    // the padded rows' new contents (other rows unused)
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PaddingCase, q, k, v, heads, real, k_replaced, v_replaced)

rc::Gen<PaddingCase> padding_gen(const GenContext& ctx) {
  struct Dims { int heads, n, m, dq, dk, dv; };
  auto dims = rc::gen::mapcat(heads(ctx), [ctx, max_dim = ctx.width_limit(kMaxDim)](int h) {
    const int per_head = std::max(1, max_dim / h), g = kv_heads(ctx.subject, h);
    return rc::gen::apply([h, g](int n, int m, int dk, int dv) { return Dims{h, n, m, h * dk, g * dk, g * dv}; },
                          queries(ctx), keys(ctx), head_width(ctx, per_head), head_width(ctx, per_head));
  });
  return rc::gen::mapcat(dims, [](const Dims& s) {
    return rc::gen::apply(
        [s](Matrix q, Matrix k, Matrix v, BoolMatrix real, Matrix k2, Matrix v2) {
          return PaddingCase{std::move(q), std::move(k), std::move(v), s.heads, std::move(real), std::move(k2),
                             std::move(v2)};
        },
        gen::matrix(s.n, s.dq, -kRange, kRange), gen::matrix(s.m, s.dk, -kRange, kRange),
        gen::matrix(s.m, s.dv, -kRange, kRange), attendable_mask(1, s.m), gen::matrix(s.m, s.dk, -kRange, kRange),
        gen::matrix(s.m, s.dv, -kRange, kRange));
  });
}

Measurement padding_measure(Subject& s, const PaddingCase& c, const BoundModel&) {
  const Eigen::Index n = c.q.rows(), m = c.k.rows();
  BoolMatrix allowed(n, m);
  for (Eigen::Index i = 0; i < n; ++i) allowed.row(i) = c.real.row(0);
  const AttentionMask mask = AttentionMask::boolean(allowed);
  Matrix k = c.k, v = c.v;
  for (Eigen::Index j = 0; j < m; ++j) {
    if (!c.real(0, j)) {
      k.row(j) = c.k_replaced.row(j);
      v.row(j) = c.v_replaced.row(j);
    }
  }
  const double h = std::max(logit_magnitude(c.q, c.k, c.heads), logit_magnitude(c.q, k, c.heads));
  const double d_h = head_dim(c.q, c.heads);
  require_representable(s.info().dtype, h * std::sqrt(d_h));
  const Matrix y = ask::attention(s, c.q, c.k, c.v, mask, c.heads);
  const Matrix replaced = ask::attention(s, c.q, k, v, mask, c.heads);
  require_shape(y, n, output_width(c.q, c.k, c.v, c.heads), "attention");
  require_shape(replaced, y.rows(), y.cols(), "attention");
  Check check = compare_entries("output unchanged", replaced, y,
                                output_bound(2, d_h, m, h, std::max(max_abs(c.v), max_abs(v))));
  rows_are(check, "query");
  check.note = "the output with the padded keys' k and v rows replaced, against the original output";
  return {{std::move(check)}, {}};
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {
      scaling(qkv_axes(), define<ConvexCase>("attention.convex_combination",
                                           {"columns within the values' range", "norm within the longest value",
                                            "weights sum to 1", "weights non-negative"},
                                           convex_gen, convex_measure)),
      scaling(qkv_axes(), define<StabilityCase>("attention.softmax_stability", {"finite output", "shifted row unchanged"},
                                              stability_gen, stability_measure)),
      scaling(qkv_axes(),
              define<PaddingCase>("attention.padding_mask_isolation", {"output unchanged"}, padding_gen, padding_measure)),
  };
}

}  // namespace pecheck::attention::softmax
