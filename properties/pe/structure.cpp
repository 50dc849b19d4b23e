// CLAIMS.md §2 — the sinusoidal encoding: its claims about one position at a
// time (bounded, constant norm, length independence). The others live in the
// other files of properties/pe/.
#include <fmt/format.h>

#include <cmath>

#include "pe/common.h"
#include "pecheck/core/dtype.h"
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
  const SubjectInfo& info = s.info();
  const double amplitude = info.amplitude, a2 = amplitude * amplitude;
  // The harness sums the d squares and forms A²·d/2 in long double, so that
  // the error is the subject's alone (a float64 sum of d squares errs by a
  // few ulps of A²·d/2, the size of a float64 subject's own error).
  long double norm = 0;
  for (Eigen::Index i = 0; i < p.cols(); ++i) norm += static_cast<long double>(p(0, i)) * p(0, i);
  const long double exact = static_cast<long double>(amplitude) * amplitude * c.dim / 2;
  // d squared components, each off by a few roundings relative to A²; sin² + cos²
  // of one rounded angle is still 1, but an implementation may round the angles
  // of its sines and cosines apart, which costs up to ~u·|t·ω_i| per pair.
  Bound bound = bound_of(summed_work(info, c.dim, c.position), a2, "W(t), the work of the d components of p_t · A²");
  // The tight bound: p_i² is off by 2|p_i||δp_i| with δp_i up to r·u|p_i| (r roundings: the sine or
  // cosine, and the product by A where A ≠ 1), 2r roundings of A² a component, apart; the angles as
  // split_angle_work says.
  const double r = amplitude == 1 ? 1 : 2;
  bound.terms.front().typical_work = 4 * r * r * c.dim;
  bound.terms.back().typical_work = split_angle_work(info, c.dim, c.position);
  // An amplitude the subject's dtype cannot hold is rounded once for every component alike: 2u·A²·d/2.
  if (round_to(info.dtype, amplitude) != amplitude) {
    bound.plus(Stage::values, 1, a2 * c.dim, "A rounded once for all d components · A²·d");
    bound.terms.back().independent = false;
  }
  bound.probabilistic(1, "the d squares' roundings apart; a pair's angles apart only where its cosine's angle is "
                         "formed from its sine's");
  Location where;
  where.position = c.position;
  Check check = compare_scalars("squared norm", static_cast<double>(norm), static_cast<double>(exact), std::move(bound),
                                where);
  check.error = static_cast<double>(std::fabs(norm - exact));
  check.note = fmt::format("‖p_t‖² against A²·d/2 = {:g}", static_cast<double>(exact));
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
