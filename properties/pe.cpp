// CLAIMS.md §2 — the sinusoidal encoding: the registry of the pe family, and
// its claims about one position at a time (bounded, constant norm, length
// independence). The others live in pe_<topic>.cpp.
#include <fmt/format.h>

#include <cmath>

#include "pe_common.h"
#include "pecheck/property/registry.h"

namespace pecheck {

namespace pe {

namespace {

// One position in a sequence of seq_len tokens.
struct PositionCase {
  int dim = 2;
  Position position = 0;
  Position seq_len = 1;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PositionCase, dim, position, seq_len)

rc::Gen<PositionCase> position_gen(int max_half, const GenContext& ctx) {
  return rc::gen::apply(
      [](int dim, Position t, Position extra) { return PositionCase{dim, t, t + 1 + extra}; },
      even_dim(max_half), position(ctx.max_position), rc::gen::inRange<Position>(0, 16));
}

// pe.bounded -----------------------------------------------------------------
Measurement bounded_measure(Subject& s, const PositionCase& c, const ErrorModel& model) {
  const Matrix p = encode(s, c.dim, {c.position}, c.seq_len);
  const double amplitude = s.info().amplitude;
  // sin and cos of a rounded angle still lie in [-1, 1]; only the final
  // scaling by the amplitude rounds: one rounding relative to the amplitude.
  Tolerance tol = model.bound("pe.bounded", 1, amplitude, "1 rounding · A");
  Eigen::Index worst = 0;
  double excess = -INFINITY;
  for (Eigen::Index j = 0; j < p.cols(); ++j) {
    const double e = std::isnan(p(0, j)) ? INFINITY : std::fabs(p(0, j)) - amplitude;
    if (e > excess) { excess = e; worst = j; }
  }
  Measurement m;
  m.error = std::max(0.0, excess);
  m.tolerance = tol;
  m.where = fmt::format("position {}, component {}", c.position, worst);
  m.observed = number_to_json(p(0, worst));
  m.expected = fmt::format("|value| <= {}", amplitude);
  m.note = "how far a component exceeds the amplitude A";
  return m;
}

// pe.constant_norm ------------------------------------------------------------
Measurement constant_norm_measure(Subject& s, const PositionCase& c, const ErrorModel& model) {
  const Matrix p = encode(s, c.dim, {c.position}, c.seq_len);
  const double amplitude = s.info().amplitude;
  const double expected = amplitude * amplitude * c.dim / 2.0;
  // d squared components, each off by a few roundings relative to A²; sin² + cos²
  // of one rounded angle is still 1, but an implementation may round the angles
  // of its sines and cosines apart, which costs up to ~u·|t·ω_i| per pair.
  Measurement m = compare_scalars(p.row(0).squaredNorm(), expected,
                                  model.bound("pe.constant_norm", summed_work(c.dim, c.position),
                                              amplitude * amplitude, "W(t), W(t) = Σ_i 2·(1+t·ω_i) · A²"),
                                  fmt::format("position {}", c.position));
  m.note = fmt::format("‖p_t‖² against A²·d/2 = {:g}", expected);
  return m;
}

// pe.length_independence -------------------------------------------------------
struct TwoLengthsCase {
  int dim = 2;
  Position position = 0;
  Position seq_len_a = 1;
  Position seq_len_b = 1;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TwoLengthsCase, dim, position, seq_len_a, seq_len_b)

rc::Gen<TwoLengthsCase> two_lengths_gen(const GenContext& ctx) {
  return rc::gen::apply(
      [](int dim, Position t, Position extra_a, Position extra_b) {
        return TwoLengthsCase{dim, t, t + 1 + extra_a, t + 1 + extra_b};
      },
      even_dim(64), position(ctx.max_position), extra_length(ctx.max_position), extra_length(ctx.max_position));
}

Measurement length_independence_measure(Subject& s, const TwoLengthsCase& c, const ErrorModel& model) {
  const Matrix a = encode(s, c.dim, {c.position}, c.seq_len_a);
  const Matrix b = encode(s, c.dim, {c.position}, c.seq_len_b);
  // Two computations of p_t, each within ~u·(1+|t|)·A of the exact value.
  Measurement m = compare_entries(b, a,
                                  model.bound("pe.length_independence", 2 * angle_work(c.position),
                                              s.info().amplitude, "2·(1+|t|) · A"),
                                  "position");
  m.where = fmt::format("position {}, {}", c.position, m.where.substr(m.where.find("column")));
  m.note = fmt::format("p_t in a sequence of {} tokens (observed) against {} tokens (expected)", c.seq_len_b,
                       c.seq_len_a);
  return m;
}

}  // namespace

PropertyDef bounded() {
  return define<PositionCase>(
      {.id = "pe.bounded",
       .family = "pe",
       .claim = "every component lies in [-1, 1] (times the amplitude, for a scaled encoding), "
                "even for enormous sequence lengths",
       .sources = kSources,
       .op = Op::encode,
       .expect = Expect::holds,
       .expect_for = {{"integer", Expect::violated}}},
      [](const GenContext& ctx) { return position_gen(256, ctx); }, bounded_measure);
}

PropertyDef constant_norm() {
  return define<PositionCase>(
      {.id = "pe.constant_norm",
       .family = "pe",
       .claim = "‖p_t‖² = A²·d/2 for every position t (even d; A = 1 for the reference)",
       .sources = kSources,
       .op = Op::encode,
       .expect = Expect::holds,
       .expect_for = {{"learned", Expect::violated}, {"normalized", Expect::violated}, {"integer", Expect::violated}}},
      [](const GenContext& ctx) { return position_gen(256, ctx); }, constant_norm_measure);
}

PropertyDef length_independence() {
  return define<TwoLengthsCase>(
      {.id = "pe.length_independence",
       .family = "pe",
       .claim = "the encoding of position t is the same whatever the sequence length",
       .sources = kSources,
       .op = Op::encode,
       .expect = Expect::holds,
       .expect_for = {{"normalized", Expect::violated}}},
      two_lengths_gen, length_independence_measure);
}

}  // namespace pe

std::vector<PropertyDef> pe_properties() {
  std::vector<PropertyDef> out;
  for (auto make : {pe::bounded, pe::constant_norm, pe::offset_only_dot, pe::dot_symmetry, pe::linear_shift,
                    pe::length_independence, pe::distinct_positions, pe::step_size, pe::reference_values}) {
    out.push_back(make());
  }
  return out;
}

}  // namespace pecheck
