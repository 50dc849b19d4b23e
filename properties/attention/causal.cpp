// CLAIMS.md §5 — attention.causal_no_lookahead: with mask causal, output row
// i is unchanged when any key or value row j > i changes; and causal gives
// the same output as the lower-triangular boolean mask. A mask built with
// tril(…, diagonal=1) (each query sees one future token) keeps every order
// property of §1 and fails here, shrunk to two tokens; the diagnosis probes
// which keys each query of the witness sees and names the mask that explains it.
//
// The error model splits one attention evaluation by precision stage
// (SUBJECT-PROTOCOL v2 compute.accumulate): rounding q, k (twice through the
// softmax, relative to the logit bound H), the weights and v and the output
// are the values' (4H + 3); the dot products, the scale, the row maximum, the
// exponentials and both m-term sums are the accumulation's (2(d_h + 4)·H +
// 2m + 1). Their sum is attention/support.h's output_bound. Two outputs that
// are convex combinations of the same values differ by at most 2·max|v|: a
// bound that large is not checkable. Rows before the change are judged
// exactly: their inputs are the same in both calls.
#include <fmt/format.h>

#include <cmath>

#include "attention/support.h"
#include "pecheck/gen/fast_random.h"
#include "pecheck/gen/matrix.h"
#include "pecheck/property/compare.h"
#include "pecheck/reference/attention.h"
#include "input_checks.h"

namespace pecheck::attention::causal {

namespace {

struct CausalCase {
  Matrix q, k, v;  // n×d_k, n×d_k, n×d_v: self-attention, n = m
  int heads = 1;
  int changed = 1;  // the key and value row j (≥ 1) that changes
  Matrix new_key, new_value;
  void validate() const {
    validate_qkv(q, k, v, heads);
    const Eigen::Index n = q.rows();
    if (n < 2 || k.rows() != n || v.rows() != n || heads < 1 || changed < 1 ||
        changed >= n || new_key.cols() != k.cols() || new_value.cols() != v.cols() || new_key.rows() != 1 ||
        new_value.rows() != 1) {
      throw InvalidInput("attention.causal_no_lookahead: n ≥ 2 queries, keys and values, 1 ≤ changed < n");
    }
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CausalCase, q, k, v, heads, changed, new_key, new_value)

rc::Gen<CausalCase> causal_gen(const GenContext& ctx) {
  struct Dims { int heads, n, dq, dk, dv, changed; };
  auto dims = rc::gen::mapcat(heads(ctx), [ctx](int h) {
    const int g = kv_heads(ctx.subject, h);
    return rc::gen::mapcat(tokens(ctx, 2), [ctx, h, g](int n) {
      return rc::gen::apply([h, g, n](int dk, int dv, int j) { return Dims{h, n, h * dk, g * dk, g * dv, j}; },
                            head_width(ctx, kMaxDim / h), head_width(ctx, kMaxDim / h), rc::gen::inRange(1, n));
    });
  });
  return rc::gen::mapcat(dims, [](const Dims& s) {
    // q scaled by 1, 1/4 or 1/16: logits from large to small (a 16-bit
    // subject's bound grows with them; small logits keep a look-ahead visible).
    return rc::gen::apply(
        [s](Matrix q, double scale, Matrix k, Matrix v, Matrix nk, Matrix nv) {
          q *= scale;
          return CausalCase{std::move(q), std::move(k), std::move(v), s.heads, s.changed, std::move(nk), std::move(nv)};
        },
        gen::matrix(s.n, s.dq, -kRange, kRange), rc::gen::element(1.0, 0.25, 0.0625),
        gen::matrix(s.n, s.dk, -kRange, kRange), gen::matrix(s.n, s.dv, -kRange, kRange),
        gen::matrix(1, s.dk, -kRange, kRange), gen::matrix(1, s.dv, -kRange, kRange));
  });
}

// Two evaluations' error, split by stage (see the header comment).
Bound two_outputs(double head_dim, Eigen::Index keys, double logit_bound, double value_scale) {
  const double m = static_cast<double>(keys);
  Bound b = Bound::upper(2 * (4 * logit_bound + 3), value_scale,
                         fmt::format("2 evaluations · (4H + 3) rounding q, k, the weights, v and the output, "
                                     "H = {:.4g} · max|v|",
                                     logit_bound));
  b.plus(Stage::accumulate, 2 * (2 * (head_dim + 4) * logit_bound + 2 * m + 1), value_scale,
         fmt::format("2 evaluations · (2(d_h + 4)·H + 2m + 1) in the dot products, softmax and sums, d_h = {:g}, "
                     "m = {} · max|v|",
                     head_dim, keys));
  b.at_most(2 * value_scale);
  return b;
}

Measurement causal_measure(Subject& s, const CausalCase& c, const BoundModel& model) {
  const Eigen::Index n = c.q.rows();
  const auto j = static_cast<Eigen::Index>(c.changed);
  Matrix k2 = c.k, v2 = c.v;
  k2.row(j) = c.new_key.row(0);
  v2.row(j) = c.new_value.row(0);
  const double d_h = static_cast<double>(c.q.cols() / c.heads);
  const double h = std::max(logit_magnitude(c.q, c.k, c.heads), logit_magnitude(c.q, k2, c.heads));
  require_representable(s.info().dtype, h * std::sqrt(d_h));

  const Matrix y = ask::attention(s, c.q, c.k, c.v, AttentionMask::causal(), c.heads);
  require_shape(y, n, output_width(c.q, c.k, c.v, c.heads), "attention");
  const Matrix changed = ask::attention(s, c.q, k2, v2, AttentionMask::causal(), c.heads);
  require_shape(changed, n, y.cols(), "attention");

  Measurement m;
  // Rows 0..j−1 see the same q_i, k_0..k_i, v_0..v_i in both calls: a
  // correct, deterministic implementation computes them with the same
  // operations on the same numbers (the masked key's weight is exactly 0,
  // and adding 0 is exact), so any difference is the changed row's.
  Check before = compare_entries("rows before the change unchanged", changed.topRows(j), y.topRows(j),
                                 Bound::exact("rows 0..j−1 get the same inputs in both calls; a masked key's weight "
                                              "is exactly 0"));
  rows_are(before, "query");
  before.where.key = j;
  before.where.label = fmt::format("key and value row {} changed", j);
  before.note = fmt::format("causal output rows 0..{} after key and value row {} changed, against before", j - 1, j);
  m.checks.push_back(std::move(before));

  // The same inputs under the boolean mask tril(ones(n, n)) — narrowed to the
  // declared window and chunk (SUBJECT-PROTOCOL.md: they apply with the causal mask).
  const BoolMatrix lower = reference::visible_keys(AttentionMask::causal(), n, n, s.info().attention);
  try {
    const Matrix boolean = ask::attention(s, c.q, c.k, c.v, AttentionMask::boolean(lower), c.heads);
    require_shape(boolean, n, y.cols(), "attention");
    const Bound bound = two_outputs(d_h, n, h, max_abs(c.v));
    if (model.value(bound) < 2 * max_abs(c.v)) {
      Check same = compare_entries("causal equals the lower-triangular mask", y, boolean, bound);
      rows_are(same, "query");
      same.note = "mask causal (observed) against the boolean mask tril(ones(n, n)) (expected)";
      m.checks.push_back(std::move(same));
    } else {
      // Two code paths may round differently; at this size (a 16-bit
      // subject's large logits) their bound reaches 2·max|v|, so the first
      // check stands alone rather than the case being discarded.
      m.note = "causal against the boolean mask not judgeable at this size in this precision";
    }
  } catch (const Refusal& refusal) {
    // A causal-only implementation (minGPT's) takes no boolean mask: the
    // first check stands alone.
    m.note = fmt::format("causal against the boolean lower-triangular mask not compared: the subject refuses "
                         "boolean masks ({})",
                         refusal.what());
  }
  return m;
}

// Which keys each query sees, probed with the witness's widths and heads on
// kProbeTokens tokens (two tokens cannot tell a shifted mask from none): key
// and value row j replaced, does output row i move? Then the mask that
// explains it: a causal mask shifted by s (tril(…, diagonal=s)), none at
// all, or one inverted.
constexpr Eigen::Index kProbeTokens = 6;

std::string causal_diagnosis(Subject& s, const CausalCase& c, const BoundModel&) {
  const Eigen::Index n = kProbeTokens;
  gen::FastRandom random(0x5eed);
  auto draw = [&](Eigen::Index rows, Eigen::Index cols) {
    Matrix m(rows, cols);
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = 2 * random.unit() - 1;
    return m;
  };
  const Matrix q = draw(n, c.q.cols()), k = draw(n, c.k.cols()), v = draw(n, c.v.cols());
  const Matrix new_key = draw(1, c.k.cols()), new_value = draw(1, c.v.cols());
  const Matrix y = ask::attention(s, q, k, v, AttentionMask::causal(), c.heads);
  require_shape(y, n, output_width(q, k, v, c.heads), "attention");
  BoolMatrix sees(n, n);
  for (Eigen::Index j = 0; j < n; ++j) {
    Matrix k2 = k, v2 = v;
    k2.row(j) = new_key.row(0);
    v2.row(j) = new_value.row(0);
    const Matrix moved = ask::attention(s, q, k2, v2, AttentionMask::causal(), c.heads);
    require_shape(moved, n, y.cols(), "attention");
    for (Eigen::Index i = 0; i < n; ++i) sees(i, j) = moved.row(i) != y.row(i);
  }
  auto mask_is = [&](auto allowed) {
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index j = 0; j < n; ++j)
        if (sees(i, j) != allowed(i, j)) return false;
    return true;
  };
  if (mask_is([](Eigen::Index, Eigen::Index) { return true; })) {
    return "every query sees every key: the causal mask is not applied";
  }
  if (mask_is([](Eigen::Index i, Eigen::Index j) { return j >= i; })) {
    return "query i sees keys i..n−1, not 0..i: the mask is inverted (triu for tril, or True given where the "
           "library means 'masked out')";
  }
  if (mask_is([](Eigen::Index i, Eigen::Index j) { return j <= i; })) {
    return "with mask causal each query sees exactly keys 0..i, as it should: the boolean mask tril(ones(n, n)) "
           "is what gives another output";
  }
  for (Eigen::Index shift = 1; shift < n; ++shift) {
    if (mask_is([shift](Eigen::Index i, Eigen::Index j) { return j <= i + shift; })) {
      return fmt::format("query i sees keys 0..i+{}: a causal mask shifted by {} (tril(ones(n, n), diagonal={}) "
                         "where diagonal=0 is causal), so each query sees {} future token{}",
                         shift, shift, shift, shift, shift == 1 ? "" : "s");
    }
  }
  std::string future;
  for (Eigen::Index i = 0; i < n && future.empty(); ++i) {
    for (Eigen::Index j = i + 1; j < n; ++j) {
      if (sees(i, j)) future += fmt::format("{}{}", future.empty() ? "" : ", ", j);
    }
    if (!future.empty()) return fmt::format("query {} sees the future key(s) {}", i, future);
  }
  return "no query sees a future key when one key changes at a time: the rows moved for another reason "
         "(e.g. the output depends on a later key's value through something other than the mask)";
}

}  // namespace

PropertyImpl causal_no_lookahead() {
  return scaling({Axis::queries, Axis::width, Axis::heads},
                 define<CausalCase>("attention.causal_no_lookahead",
                                    {"rows before the change unchanged", "causal equals the lower-triangular mask"},
                                    causal_gen, causal_measure, causal_diagnosis));
}

std::vector<PropertyImpl> properties() { return {causal_no_lookahead()}; }

}  // namespace pecheck::attention::causal
