// CLAIMS.md §2 — dot products of encodings depend on the offset only
// (pe.offset_only_dot, across positions and sequence lengths) and are
// symmetric in its sign (pe.dot_symmetry).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "pe/common.h"
#include "input_checks.h"

namespace pecheck::pe::dot {

namespace {

// Two dot products, each of d terms off by ~u·(1+|t·ω_i|)·A² through the
// angles of the largest position involved.
// The scale is the magnitude actually compared: the declared amplitude, or the
// largest entry if the subject's entries are larger (rounding errors grow with
// the values; a wrong magnitude is pe.bounded's and pe.constant_norm's to catch).
Bound two_dots(const SubjectInfo& subject, int dim, Position largest, double largest_entry) {
  const double a = std::max(subject.amplitude, largest_entry);
  return summed_bound(subject, dim, largest, 2, a * a,
                      "2·W(largest t), W(t) the work of p_t's d components · max(A, max|p|)²");
}

// The same-dtype reference of compared dot products p_a·p_b (issue 36): the
// sum of pecheck's own errors on each, its encodings in the subject's dtypes
// (the dot formed in double, as the harness forms the subject's).
void with_same_dtype_dots(Bound& bound, const SubjectInfo& subject, int dim,
                          const std::vector<std::pair<Position, Position>>& dots) {
  double sum = 0;
  for (const auto& [a, b] : dots) {
    const auto ref = same_dtype_encoding(subject, dim, {a, b});
    if (!ref || !ref->rounded.allFinite()) return;
    sum += std::fabs(dot_rows(ref->rounded, 0, 1) - dot_rows(ref->exact, 0, 1));
  }
  bound.same_dtype(sum, fmt::format("the {} encoding's own errors in the {} dot products", name(subject.dtype),
                                    dots.size()));
}

// pe.offset_only_dot -----------------------------------------------------------
// p_t·p_{t+k} in a sequence of seq_len_t tokens against p_s·p_{s+k} in one of
// seq_len_s: the claim holds across positions and across sequence lengths.
struct OffsetCase {
  int dim = 2;
  Position t = 0;
  Position s = 0;
  Position offset = 1;
  Position seq_len_t = 2;
  Position seq_len_s = 2;
  void validate() const {
    input::width("dim", dim);
    input::length("seq_len_t", seq_len_t);
    input::length("seq_len_s", seq_len_s);
    input::position("offset", offset);
    input::position("t", t, seq_len_t - offset);
    input::position("s", s, seq_len_s - offset);
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(OffsetCase, dim, t, s, offset, seq_len_t, seq_len_s)

rc::Gen<OffsetCase> offset_gen(const GenContext& ctx) {
  const Position max = largest_position(ctx);
  return rc::gen::apply(
      [max, ctx](int dim, Position k, Position apart, Position t, Position extra_t, Position extra_s) {
        k = std::min(k, max);
        t = std::min(t, max - k);
        const Position s = std::min(t + apart, max - k);
        return OffsetCase{dim, t, s, k, length_of(ctx, t + k, extra_t), length_of(ctx, s + k, extra_s)};
      },
      // s − t shrinks before t: a scheme that fails across lengths alone (the
      // normalized one) shrinks to s = t with two different lengths.
      // d = 2h, h ∈ [1, 256]; offsets up to a tenth of the context (k ∈ [1, 1000]
      // at the default 10000): the benchmark's distribution, so figures compare.
      even_dim(ctx, 256), offset(std::max<Position>(max / 10, 1)), position(ctx.subject, max),
      position(ctx.subject, max), extra_length(max), extra_length(max));
}

Measurement offset_measure(Subject& subject, const OffsetCase& c, const BoundModel&) {
  const Matrix pt = encode(subject, c.dim, {c.t, c.t + c.offset}, c.seq_len_t);
  const Matrix ps = encode(subject, c.dim, {c.s, c.s + c.offset}, c.seq_len_s);
  const double at_t = dot_rows(pt, 0, 1), at_s = dot_rows(ps, 0, 1);
  Location where;
  where.label = fmt::format("p_{}·p_{} in {} tokens against p_{}·p_{} in {}", c.s, c.s + c.offset, c.seq_len_s, c.t,
                            c.t + c.offset, c.seq_len_t);
  where.position = c.s;
  where.other_position = c.t;
  Bound bound = two_dots(subject.info(), c.dim, std::max(c.t, c.s) + c.offset, std::max(max_abs(pt), max_abs(ps)));
  with_same_dtype_dots(bound, subject.info(), c.dim, {{c.t, c.t + c.offset}, {c.s, c.s + c.offset}});
  Check check = compare_scalars("dot at the same offset", at_s, at_t, std::move(bound), std::move(where));
  check.note = fmt::format("p_s·p_(s+k) (observed) against p_t·p_(t+k) (expected) for offset k = {}", c.offset);
  return {{std::move(check)}, {}};
}

// pe.dot_symmetry ----------------------------------------------------------------
struct SymmetryCase {
  int dim = 2;
  Position t = 1;
  Position offset = 1;
  Position seq_len = 3;
  void validate() const {
    input::width("dim", dim);
    input::length("seq_len", seq_len);
    input::position("offset", offset);
    input::position("t", t, seq_len - offset);
    if (t < offset) input::invalid("t", fmt::format("expected at least the offset {}, got {}", offset, t));
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SymmetryCase, dim, t, offset, seq_len)

rc::Gen<SymmetryCase> symmetry_gen(const GenContext& ctx) {
  const Position max = std::max<Position>(largest_position(ctx), 2);
  return rc::gen::apply(
      [max, ctx](int dim, Position k, Position beyond, Position extra) {
        k = std::min(k, max / 2);
        const Position t = std::min(k + beyond, max - k);  // t − k ≥ 0 and t + k ≤ max
        return SymmetryCase{dim, t, k, length_of(ctx, t + k, extra)};
      },
      even_dim(ctx, 64), offset(max / 2), position(ctx.subject, max), rc::gen::inRange<Position>(0, 16));
}

Measurement symmetry_measure(Subject& subject, const SymmetryCase& c, const BoundModel&) {
  const Matrix p = encode(subject, c.dim, {c.t - c.offset, c.t, c.t + c.offset}, c.seq_len);
  const double ahead = dot_rows(p, 1, 2), behind = dot_rows(p, 1, 0);
  Location where;
  where.label = fmt::format("p_{}·p_{} against p_{}·p_{}", c.t, c.t - c.offset, c.t, c.t + c.offset);
  where.position = c.t;
  Bound bound = two_dots(subject.info(), c.dim, c.t + c.offset, max_abs(p));
  with_same_dtype_dots(bound, subject.info(), c.dim, {{c.t, c.t - c.offset}, {c.t, c.t + c.offset}});
  Check check = compare_scalars("dot behind and ahead", behind, ahead, std::move(bound), std::move(where));
  check.note = "p_t·p_(t-k) (observed) against p_t·p_(t+k) (expected)";
  return {{std::move(check)}, {}};
}

}  // namespace

PropertyImpl offset_only_dot() {
  return scaling({Axis::width},
                 define<OffsetCase>("pe.offset_only_dot", {"dot at the same offset"}, offset_gen, offset_measure));
}

PropertyImpl dot_symmetry() {
  return scaling({Axis::width},
                 define<SymmetryCase>("pe.dot_symmetry", {"dot behind and ahead"}, symmetry_gen, symmetry_measure));
}

std::vector<PropertyImpl> properties() { return {offset_only_dot(), dot_symmetry()}; }

}  // namespace pecheck::pe::dot
