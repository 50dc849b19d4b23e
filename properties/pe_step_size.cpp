// CLAIMS.md §2 — pe.step_size: ‖p_{t+1} − p_t‖ is the same for every t, and
// pair i moves by exactly A·2·sin(ω_i/2) (the first pairs a lot, the last
// barely: 002's observation).
//
// Which components form pair i depends on the layout: the subject's declared
// one, or — when it declares none — the better fitting of the two conventional
// ones (interleaved, halves). The step of a pair is a fact about the encoding,
// not about where its components are stored; CLAIMS.md has the concatenated-
// halves scheme pass every structural property.
#include <fmt/format.h>

#include <cmath>

#include "pe_common.h"
#include "pecheck/reference/sinusoidal.h"

namespace pecheck::pe {

namespace {

struct StepCase {
  int dim = 2;
  Position position = 0;
  Position seq_len = 2;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(StepCase, dim, position, seq_len)

rc::Gen<StepCase> step_gen(const GenContext& ctx) {
  const Position max = std::max<Position>(ctx.max_position, 2);
  return rc::gen::apply(
      [max](int dim, Position t, Position extra) {
        t = std::min(t, max - 1);
        return StepCase{dim, t, t + 2 + extra};
      },
      even_dim(64), position(max), rc::gen::inRange<Position>(0, 16));
}

// The pair whose step strays furthest (relative to its bound) from
// A·2·sin(ω_i/2), pairing the components as `layout` does. A pair's two
// encodings are each within ~u·(1+(t+1)·ω_i)·A per component.
Check pair_steps(const Eigen::RowVectorXd& step, Layout layout, const StepCase& c, double amplitude,
                 const BoundModel& model) {
  Check worst;
  double worst_ratio = -1;
  for (int i = 0; i < c.dim / 2; ++i) {
    const int si = reference::sin_index(i, c.dim, layout), ci = reference::cos_index(i, c.dim, layout);
    const double w = reference::frequency(i, c.dim);
    Location where;
    where.label = fmt::format("components {}, {} ({} layout)", si, ci, name(layout));
    where.pair = i;
    where.position = c.position;
    where.other_position = c.position + 1;
    Check check = compare_scalars("pair step", std::hypot(step(si), step(ci)), amplitude * 2 * std::sin(w / 2),
                                  Bound::upper(2 * std::sqrt(2.0) * (1 + static_cast<double>(c.position + 1) * w),
                                               amplitude, "2·√2·(1+(t+1)·ω_i) · A"),
                                  std::move(where));
    if (std::isnan(check.error)) check.error = INFINITY;
    const double tolerance = model.value(check.bound);
    const double ratio = tolerance > 0 ? check.error / tolerance : (check.error > 0 ? INFINITY : 0);
    if (ratio > worst_ratio) {
      worst = std::move(check);
      worst_ratio = ratio;
    }
  }
  return worst;
}

Measurement step_measure(Subject& subject, const StepCase& c, const BoundModel& model) {
  const Matrix p = encode(subject, c.dim, {0, 1, c.position, c.position + 1}, c.seq_len);
  const double amplitude = subject.info().amplitude;
  const Eigen::RowVectorXd first = p.row(1) - p.row(0), step = p.row(3) - p.row(2);

  // Two steps, each the difference of two encodings whose errors have norm ~u·R(t)·A.
  Location where;
  where.label = fmt::format("‖p_{} − p_{}‖ against ‖p_1 − p_0‖", c.position + 1, c.position);
  where.position = c.position;
  Check norm = compare_scalars("step norm", step.norm(), first.norm(),
                               Bound::upper(2 * (row_work(c.dim, c.position + 1) + row_work(c.dim, 1)), amplitude,
                                            "2·(R(t+1) + R(1)), R(t) = √(Σ_i 2·(1+t·ω_i)²) · A"),
                               std::move(where));
  norm.note = "the step's norm against the first step's";

  const Layout declared = subject.info().layout;
  Layout pairing = declared == Layout::halves ? Layout::halves : Layout::interleaved;
  Check pairs = pair_steps(step, pairing, c, amplitude, model);
  if (declared == Layout::unspecified) {
    Check halves = pair_steps(step, Layout::halves, c, amplitude, model);
    const auto ratio = [&model](const Check& k) {
      const double t = model.value(k.bound);
      return t > 0 ? k.error / t : (k.error > 0 ? INFINITY : 0);
    };
    if (ratio(halves) < ratio(pairs)) {
      pairs = std::move(halves);
      pairing = Layout::halves;
    }
  }
  pairs.note = fmt::format("each pair's movement against A·2·sin(ω_i/2), pairs in the {} layout ({})", name(pairing),
                           declared == Layout::unspecified ? "none declared: the better fitting" : "as declared");

  Measurement m;
  m.note = fmt::format("step from position {} to {}: its norm against the first step's, and each pair's movement "
                       "against A·2·sin(ω_i/2), pairs in the {} layout ({})",
                       c.position, c.position + 1, name(pairing),
                       declared == Layout::unspecified ? "none declared: the better fitting" : "as declared");
  m.checks = {std::move(norm), std::move(pairs)};
  return m;
}

}  // namespace

PropertyImpl step_size() {
  return define<StepCase>("pe.step_size", {"step norm", "pair step"}, step_gen, step_measure);
}

}  // namespace pecheck::pe
