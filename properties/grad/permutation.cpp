// CLAIMS.md §11 — grad.permutation_equivariance: attention without positions
// or mask is equivariant in its queries and invariant under permuting keys
// and values together, and so are its VJPs: permuting the queries (and g's
// rows with them) permutes dq alike; permuting keys and values together
// permutes dk and dv alike. A backward that applies a mask the forward was
// not asked for (a causal backward under a full forward) breaks it.
#include <fmt/format.h>

#include "grad/support.h"
#include "input_checks.h"
#include "pecheck/gen/permutation.h"
#include "pecheck/property/compare.h"
#include "pecheck/property/registry.h"
#include "pecheck/reference/vjp.h"

namespace pecheck::grad::permutation {

namespace {

struct Case {
  AttentionCase attention;  // no mask
  Permutation queries, keys;
  void validate() const {
    attention.validate();
    if (attention.mask != "none") input::invalid("attention.mask", "expected \"none\"");
    if (queries.size() != attention.q.rows() || keys.size() != attention.k.rows()) {
      input::invalid("queries", "expected permutations of the queries and of the keys");
    }
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Case, attention, queries, keys)

// A drawn permutation (a few swaps, shrinking toward one), or the reversal: small draws swap the first
// rows mostly, and a mask applied unasked to rows a swap of the first two leaves alike goes unseen.
rc::Gen<Permutation> some_permutation(int n) {
  Permutation reversal;
  for (int i = n - 1; i >= 0; --i) reversal.image.push_back(i);
  return rc::gen::oneOf(gen::permutation(n), rc::gen::just(reversal));
}

rc::Gen<Case> generate(const GenContext& ctx) {
  // As many queries as keys half the time (self-attention's shape), independent sizes otherwise.
  auto sizes = rc::gen::oneOf(rc::gen::map(rc::gen::inRange(2, 13), [](int n) { return std::pair<int, int>(n, n); }),
                              rc::gen::pair(rc::gen::inRange(2, 13), rc::gen::inRange(2, 13)));
  return rc::gen::mapcat(sizes, [ctx](std::pair<int, int> nm) {
    return rc::gen::apply([](AttentionCase a, Permutation q, Permutation k) { return Case{std::move(a), q, k}; },
                          attention_case(ctx, nm.first, nm.second, "none"), some_permutation(nm.first),
                          some_permutation(nm.second));
  });
}

// The tight bounds (issue 36) of the three comparisons. A float64 subject: pecheck's float64 VJP of the
// same three requests, each comparison's own difference between its two paths (the summation orders a
// permutation changes) as the same-dtype reference's error. Other dtypes (pecheck has no VJP in them): two
// paths of the subject, rounding errors adding as √work.
void tighten(AttentionBounds& b, const SubjectInfo& info, const Case& c, const attention::Grouped& in,
             const attention::Grouped& by_queries, const attention::Grouped& by_keys) {
  if (info.dtype != Dtype::float64) {
    for (Bound* bound : {&b.dq, &b.dk, &b.dv}) {
      bound->probabilistic(1, "two paths of one VJP, rounding errors adding as √work");
    }
    return;
  }
  const AttentionConvention convention = attention::declared(info);
  const AttentionMask none = AttentionMask::none();
  try {
    const auto base = reference::attention_vjp(in.q, in.k, in.v, none, in.heads, convention, c.attention.g);
    const auto moved_q = reference::attention_vjp(by_queries.q, by_queries.k, by_queries.v, none, in.heads, convention,
                                                  c.queries.apply_rows(c.attention.g));
    const auto moved_k = reference::attention_vjp(by_keys.q, by_keys.k, by_keys.v, none, in.heads, convention,
                                                  c.attention.g);
    auto gap = [](const Matrix& a, const Matrix& b) { return (a - b).cwiseAbs().maxCoeff(); };
    const std::string what = "the float64 reference's own difference between the two paths";
    b.dq.same_dtype(gap(moved_q.dq, c.queries.apply_rows(base.dq)), what);
    b.dk.same_dtype(gap(moved_k.dk, c.keys.apply_rows(base.dk)), what);
    b.dv.same_dtype(gap(moved_k.dv, c.keys.apply_rows(base.dv)), what);
  } catch (const Refusal&) {
    // The reference refuses the convention: the worst case judges.
  }
}

Measurement measure(Subject& s, const Case& c, const BoundModel&) {
  const SubjectInfo& info = s.info();
  const attention::Grouped in = c.attention.inputs();
  const AttentionMask none = AttentionMask::none();
  const Grads base = attention_vjp(s, in, none, c.attention.g);
  const attention::Grouped by_queries{c.queries.apply_rows(in.q), in.k, in.v, in.heads};
  const Grads moved_q = attention_vjp(s, by_queries, none, c.queries.apply_rows(c.attention.g));
  const attention::Grouped by_keys{in.q, c.keys.apply_rows(in.k), c.keys.apply_rows(in.v), in.heads};
  const Grads moved_k = attention_vjp(s, by_keys, none, c.attention.g);
  AttentionBounds b = vjp_bounds(info, in, c.attention.g, 2);
  tighten(b, info, c, in, by_queries, by_keys);
  Check q = compare_entries("queries permuted: dq permuted alike", moved_q.dq, c.queries.apply_rows(base.dq), b.dq);
  q.note = "dq of the permuted queries (g's rows permuted alike) against the permuted dq";
  Check k = compare_entries("keys and values permuted: dk permuted alike", moved_k.dk, c.keys.apply_rows(base.dk), b.dk);
  k.note = "dk of the permuted keys and values against the permuted dk";
  Check v = compare_entries("keys and values permuted: dv permuted alike", moved_k.dv, c.keys.apply_rows(base.dv), b.dv);
  v.note = "dv of the permuted keys and values against the permuted dv";
  return {{std::move(q), std::move(k), std::move(v)}, {}};
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {define<Case>("grad.permutation_equivariance",
                       {"queries permuted: dq permuted alike", "keys and values permuted: dk permuted alike",
                        "keys and values permuted: dv permuted alike"},
                       generate, measure)};
}

}  // namespace pecheck::grad::permutation
