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

Measurement measure(Subject& s, const Case& c, const BoundModel&) {
  const SubjectInfo& info = s.info();
  const attention::Grouped in = c.attention.inputs();
  const AttentionMask none = AttentionMask::none();
  const Grads base = attention_vjp(s, in, none, c.attention.g);
  const attention::Grouped by_queries{c.queries.apply_rows(in.q), in.k, in.v, in.heads};
  const Grads moved_q = attention_vjp(s, by_queries, none, c.queries.apply_rows(c.attention.g));
  const attention::Grouped by_keys{in.q, c.keys.apply_rows(in.k), c.keys.apply_rows(in.v), in.heads};
  const Grads moved_k = attention_vjp(s, by_keys, none, c.attention.g);
  const AttentionBounds b = vjp_bounds(info, in, c.attention.g, 2);
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
