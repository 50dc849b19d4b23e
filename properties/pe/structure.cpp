// CLAIMS.md §2 — the sinusoidal encoding: its claims about one position at a
// time (bounded, constant norm, length independence). The others live in the
// other files of properties/pe/.
#include <fmt/format.h>

#include <cmath>

#include "pe/common.h"
#include "pecheck/property/registry.h"
#include "input_checks.h"

namespace pecheck::pe::structure {

namespace {

// One position in a sequence of seq_len tokens.
struct PositionCase {
  int dim = 2;
  Position position = 0;
  Position seq_len = 1;
  void validate() const {
    input::width("dim", dim);
    input::length("seq_len", seq_len);
    input::position("position", position, seq_len);
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PositionCase, dim, position, seq_len)

rc::Gen<PositionCase> position_gen(int max_half, const GenContext& ctx) {
  return rc::gen::apply(
      [ctx](int dim, Position t, Position extra) { return PositionCase{dim, t, length_of(ctx, t, extra)}; },
      even_dim(ctx, max_half), position(ctx.subject, largest_position(ctx)),
      rc::gen::inRange<Position>(0, 16));
}

// pe.bounded -----------------------------------------------------------------
Measurement bounded_measure(Subject& s, const PositionCase& c, const BoundModel&) {
  const Matrix p = encode(s, c.dim, {c.position}, c.seq_len);
  const double amplitude = s.info().amplitude;
  Eigen::Index worst = 0;
  double excess = -INFINITY;
  for (Eigen::Index j = 0; j < p.cols(); ++j) {
    const double e = std::isnan(p(0, j)) ? INFINITY : std::fabs(p(0, j)) - amplitude;
    if (e > excess) { excess = e; worst = j; }
  }
  Check check;
  check.name = "within the amplitude";
  check.error = std::max(0.0, excess);
  // sin and cos of a rounded angle still lie in [-1, 1]; only the final
  // scaling by the amplitude rounds: one rounding relative to the amplitude.
  check.bound = Bound::upper(1, amplitude, "1 rounding · A");
  check.where.position = c.position;
  check.where.component = worst;
  check.observed = number_to_json(p(0, worst));
  check.expected = fmt::format("|value| <= {}", amplitude);
  check.note = "how far a component exceeds the amplitude A";
  return {{std::move(check)}, {}};
}

// pe.constant_norm ------------------------------------------------------------
Measurement constant_norm_measure(Subject& s, const PositionCase& c, const BoundModel&) {
  const Matrix p = encode(s, c.dim, {c.position}, c.seq_len);
  const double amplitude = s.info().amplitude;
  const double expected = amplitude * amplitude * c.dim / 2.0;
  // d squared components, each off by a few roundings relative to A²; sin² + cos²
  // of one rounded angle is still 1, but an implementation may round the angles
  // of its sines and cosines apart, which costs up to ~u·|t·ω_i| per pair.
  Location where;
  where.position = c.position;
  // No tight bound: the harness's own sum of d squares, whose partial sums
  // reach A²·d/2, errs by a few ulps of that sum, which a same-dtype reference
  // summed the same way cancels (stop 47: built-ins came within 1.15 of it).
  Check check = compare_scalars("squared norm", p.row(0).squaredNorm(), expected,
                                bound_of(summed_work(s.info(), c.dim, c.position), amplitude * amplitude,
                                         "W(t), the work of the d components of p_t · A²"),
                                where);
  check.note = fmt::format("‖p_t‖² against A²·d/2 = {:g}", expected);
  return {{std::move(check)}, {}};
}

// pe.length_independence -------------------------------------------------------
struct TwoLengthsCase {
  int dim = 2;
  Position position = 0;
  Position seq_len_a = 1;
  Position seq_len_b = 1;
  void validate() const {
    input::width("dim", dim);
    input::length("seq_len_a", seq_len_a);
    input::length("seq_len_b", seq_len_b);
    input::position("position", position, std::min(seq_len_a, seq_len_b));
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TwoLengthsCase, dim, position, seq_len_a, seq_len_b)

rc::Gen<TwoLengthsCase> two_lengths_gen(const GenContext& ctx) {
  const Position max = largest_position(ctx);
  return rc::gen::apply(
      [ctx](int dim, Position t, Position extra_a, Position extra_b) {
        return TwoLengthsCase{dim, t, length_of(ctx, t, extra_a), length_of(ctx, t, extra_b)};
      },
      even_dim(ctx, 64), position(ctx.subject, max), extra_length(max), extra_length(max));
}

Measurement length_independence_measure(Subject& s, const TwoLengthsCase& c, const BoundModel&) {
  const Matrix a = encode(s, c.dim, {c.position}, c.seq_len_a);
  const Matrix b = encode(s, c.dim, {c.position}, c.seq_len_b);
  // Two computations of p_t, each within ~u·(1+|t|)·A of the exact value.
  Check check = compare_entries("entries", b, a,
                                bound_of(component_work(s.info(), c.dim, c.position) * 2, s.info().amplitude,
                                         "2 computations of the largest component's work · A"));
  check.where.row.reset();
  check.where.position = c.position;
  check.note = fmt::format("p_t in a sequence of {} tokens (observed) against {} tokens (expected)", c.seq_len_b,
                           c.seq_len_a);
  return {{std::move(check)}, {}};
}

}  // namespace

PropertyImpl bounded() {
  return scaling({Axis::width},
                 define<PositionCase>("pe.bounded", {"within the amplitude"},
                                      [](const GenContext& ctx) { return position_gen(256, ctx); }, bounded_measure));
}

PropertyImpl constant_norm() {
  return scaling({Axis::width}, define<PositionCase>("pe.constant_norm", {"squared norm"},
                                                     [](const GenContext& ctx) { return position_gen(256, ctx); },
                                                     constant_norm_measure));
}

PropertyImpl length_independence() {
  return scaling({Axis::width}, define<TwoLengthsCase>("pe.length_independence", {"entries"}, two_lengths_gen,
                                                       length_independence_measure));
}


std::vector<PropertyImpl> properties() { return {bounded(), constant_norm(), length_independence()}; }

}  // namespace pecheck::pe::structure
