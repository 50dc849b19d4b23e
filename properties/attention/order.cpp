// CLAIMS.md §1 — attention and order: which permutations attention is blind
// to (equivariance, invariance) and which break it (a causal mask, a PE).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "attention/same_dtype.h"
#include "attention/support.h"
#include "pecheck/property/compare.h"
#include "pecheck/reference/sinusoidal.h"

namespace pecheck::attention::order {

namespace {

Positions first_positions(Eigen::Index n) {
  Positions t(static_cast<size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) t[static_cast<size_t>(i)] = i;
  return t;
}

// Self-attention of tokens x (+ a PE added by position), projected row-wise.
struct SelfAttention {
  Matrix q, k, v, y;
};
SelfAttention self_attention(Subject& s, const TokenCase& c, const Matrix& x, const AttentionMask& mask) {
  SelfAttention a{project_rows(x, c.w_q), project_rows(x, c.w_k), project_rows(x, c.w_v), {}};
  require_representable(s.info().dtype, logit_magnitude(a.q, a.k, c.heads) *
                                            std::sqrt(static_cast<double>(a.q.cols() / c.heads)));
  a.y = ask::attention(s, a.q, a.k, a.v, mask, c.heads);
  require_shape(a.y, x.rows(), output_width(a.q, a.k, a.v, c.heads), "attention");
  return a;
}

// Attn(P·X [+ PE]) against P·Attn(X [+ PE]): the positions stay where they are.
Measurement token_equivariance(Subject& s, const TokenCase& c, const AttentionMask& mask, bool with_pe) {
  const Eigen::Index n = c.x.rows();
  Matrix x = c.x, px = c.permutation.apply_rows(c.x);
  if (with_pe) {
    const Matrix pe = reference::sinusoidal(static_cast<int>(c.x.cols()), first_positions(n));
    x += pe;
    px += pe;
  }
  const SelfAttention plain = self_attention(s, c, x, mask), permuted = self_attention(s, c, px, mask);
  const double h = std::max(logit_magnitude(plain.q, plain.k, c.heads), logit_magnitude(permuted.q, permuted.k, c.heads));
  const double d_h = static_cast<double>(plain.q.cols() / c.heads);
  Bound bound = output_bound(2, d_h, n, h, std::max(max_abs(plain.v), max_abs(permuted.v)));
  spread_logit_errors(bound, d_h, std::max(weight_spread(plain.q, plain.k, mask, c.heads),
                                           weight_spread(permuted.q, permuted.k, mask, c.heads)));
  with_same_dtype(bound, s.info(), {{plain.q, plain.k, plain.v, mask, c.heads}, {permuted.q, permuted.k, permuted.v, mask, c.heads}});
  Check check = compare_entries("rows permuted alike", permuted.y, c.permutation.apply_rows(plain.y), bound);
  rows_are(check, "token");
  check.note = with_pe ? "row r of Attn(P·X + PE) against row image[r] of Attn(X + PE) (tokens permuted, positions kept)"
                       : "row r of Attn(P·X) against row image[r] of Attn(X)";
  return {{std::move(check)}, {}};
}

rc::Gen<TokenCase> permuted_tokens(const GenContext& ctx) { return token_case(ctx); }

// Keys (with their values and mask columns) or queries (with their mask rows) permuted.
Measurement qkv_permuted(Subject& s, const QkvCase& c, Permuted permuted) {
  const Eigen::Index n = c.q.rows(), m = c.k.rows();
  const double h = logit_magnitude(c.q, c.k, c.heads);
  require_representable(s.info().dtype, h * std::sqrt(static_cast<double>(c.q.cols() / c.heads)));
  const Matrix y = ask::attention(s, c.q, c.k, c.v, mask_of(c.mask, c.allowed), c.heads);
  require_shape(y, n, output_width(c.q, c.k, c.v, c.heads), "attention");
  const auto& p = c.permutation;
  const bool masked = c.mask == "boolean";
  Matrix observed, expected;
  if (permuted == Permuted::keys) {
    observed = ask::attention(s, c.q, p.apply_rows(c.k), p.apply_rows(c.v),
                           mask_of(c.mask, masked ? permute_cols(p, c.allowed) : c.allowed), c.heads);
    expected = y;
  } else {
    observed = ask::attention(s, p.apply_rows(c.q), c.k, c.v,
                           mask_of(c.mask, masked ? permute_rows(p, c.allowed) : c.allowed), c.heads);
    expected = p.apply_rows(y);
  }
  require_shape(observed, n, y.cols(), "attention");
  const double d_h = static_cast<double>(c.q.cols() / c.heads);
  Bound bound = output_bound(2, d_h, m, h, max_abs(c.v));
  // Both requests are the same numbers in another order: one same-dtype error, twice.
  if (const auto e = same_dtype_error(s.info(), {c.q, c.k, c.v, mask_of(c.mask, c.allowed), c.heads})) {
    bound.same_dtype(2 * *e, fmt::format("the {} reference's own error, once per request", name(s.info().dtype)));
  }
  Check check = compare_entries(permuted == Permuted::keys ? "output unchanged" : "rows permuted alike", observed,
                                expected, bound);
  rows_are(check, "query");
  check.note = permuted == Permuted::keys
                   ? "Attn(Q, P·K, P·V) (mask columns permuted alike) against Attn(Q, K, V)"
                   : "row r of Attn(P·Q, K, V) (mask rows permuted alike) against row image[r] of Attn(Q, K, V)";
  return {{std::move(check)}, {}};
}

}  // namespace

std::vector<PropertyImpl> properties() {
  const auto tokens = [](const AttentionMask& mask, bool with_pe) {
    return [mask, with_pe](Subject& s, const TokenCase& c, const BoundModel&) {
      return token_equivariance(s, c, mask, with_pe);
    };
  };
  const auto qkv = [](Permuted permuted) {
    return [permuted](Subject& s, const QkvCase& c, const BoundModel&) { return qkv_permuted(s, c, permuted); };
  };
  return {
      scaling(token_axes(), define<TokenCase>("attention.permutation_equivariance", {"rows permuted alike"},
                                            permuted_tokens, tokens(AttentionMask::none(), false))),
      scaling(qkv_axes(), define<QkvCase>("attention.kv_permutation_invariance", {"output unchanged"},
                                        [](const GenContext& ctx) { return qkv_case(ctx, Permuted::keys); },
                                        qkv(Permuted::keys))),
      scaling(qkv_axes(), define<QkvCase>("attention.query_permutation_equivariance", {"rows permuted alike"},
                                        [](const GenContext& ctx) { return qkv_case(ctx, Permuted::queries); },
                                        qkv(Permuted::queries))),
      scaling(token_axes(), define<TokenCase>("attention.causal_permutation_equivariance", {"rows permuted alike"},
                                            permuted_tokens, tokens(AttentionMask::causal(), false))),
      scaling(token_axes(), define<TokenCase>("attention.permutation_equivariance_with_pe", {"rows permuted alike"},
                                            permuted_tokens, tokens(AttentionMask::none(), true))),
  };
}

}  // namespace pecheck::attention::order
