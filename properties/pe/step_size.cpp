// CLAIMS.md §2, §5 — pe.step_size: ‖p_{t+1} − p_t‖ is the same for every t,
// and pair i moves by A·2·sin(ω_i/2) at every t (the first pairs a lot, the
// last barely: 002's observation).
//
// The claim is about the encoding's structure, so each pair is held to its
// own frequency — ω_i read from its turn between positions 0 and 1 — and the
// declared amplitude: a wrong frequency schedule or base is one cause, and
// pe.reference_values (with its diagnosis) is where it fails; a subject that
// computes the schedule it declares, tensor2tensor's i/(h−1) included, passes
// here, and so does one that computes another. The declared convention sets
// the error model (its ω_i and position offset in each angle's work).
//
// Which components form pair i is where they are stored, not how the
// encoding moves: the declared layout and the other conventional one are both
// tried and the better fitting judged (a misdeclared layout is
// pe.reference_values' to name); CLAIMS.md has the concatenated-halves scheme
// pass every structural property.
#include <fmt/format.h>

#include <cmath>

#include "pe/common.h"
#include "pecheck/reference/sinusoidal.h"
#include "input_checks.h"

namespace pecheck::pe::step_size {

namespace {

struct StepCase {
  int dim = 2;
  Position position = 0;
  Position seq_len = 2;
  void validate() const {
    input::width("dim", dim);
    input::length("seq_len", seq_len);
    input::position("position", position, seq_len - 1);  // position + 1 is encoded too
    if (seq_len < 2) input::invalid("seq_len", "expected at least 2 (positions 0 and 1 are encoded)");
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(StepCase, dim, position, seq_len)

rc::Gen<StepCase> step_gen(const GenContext& ctx) {
  const Position max = std::max<Position>(largest_position(ctx), 2);
  return rc::gen::apply(
      [max, ctx](int dim, Position t, Position extra) {
        t = std::min(t, max - 1);
        return StepCase{dim, t, length_of(ctx, t + 1, extra)};
      },
      even_dim(ctx, 64), position(ctx.subject, max), rc::gen::inRange<Position>(0, 16));
}

// An error relative to its bound (a NaN error is infinitely far).
double ratio(double error, double limit) {
  if (std::isnan(error)) return INFINITY;
  return limit > 0 ? error / limit : (error > 0 ? INFINITY : 0);
}

double ratio_of(const Check& check, const BoundModel& model) { return ratio(check.error, model.value(check.bound)); }

// The pair whose step at t strays furthest (relative to its bound) from
// A·2·sin(ω̂_i/2), ω̂_i its turn from position 0 to 1, pairing the components
// as `layout` does. Each of the encodings involved is within one computed
// encoding's error of exact.
Check pair_steps(const Matrix& p, Layout layout, const StepCase& c, const SubjectInfo& subject,
                 const BoundModel& model) {
  const Eigen::RowVectorXd step = p.row(3) - p.row(2);
  const double amplitude = subject.amplitude;
  const Work work = (component_work(subject, c.dim, c.position + 1) + component_work(subject, c.dim, 1)) *
                    (2 * std::sqrt(2.0));
  // One bound for every pair; a pair's Check (its label, its numbers) is
  // built only when it is the worst so far.
  const Bound bound = bound_of(work, amplitude, "2·√2·(work of a component at t+1 and at 1) · A");
  const double limit = model.value(bound);
  Check worst;
  double worst_ratio = -1;
  for (int i = 0; i < c.dim / 2; ++i) {
    const int si = reference::sin_index(i, c.dim, layout), ci = reference::cos_index(i, c.dim, layout);
    // The turn of the pair from p_0 to p_1 (amplitude-free).
    const double cross = p(0, si) * p(1, ci) - p(0, ci) * p(1, si);
    const double dot = p(0, si) * p(1, si) + p(0, ci) * p(1, ci);
    const double turn = std::fabs(std::atan2(cross, dot));
    const double observed = std::hypot(step(si), step(ci)), expected = amplitude * 2 * std::sin(turn / 2);
    double error = scalar_error(observed, expected);
    if (std::isnan(error)) error = INFINITY;
    const double relative = ratio(error, limit);
    if (!(relative > worst_ratio)) continue;
    Location where;
    where.label = fmt::format("components {}, {} ({} layout), turning {:.6g} per position", si, ci, name(layout), turn);
    where.pair = i;
    where.position = c.position;
    where.other_position = c.position + 1;
    worst = compare_scalars("pair step", observed, expected, bound, std::move(where));
    worst.error = error;
    worst_ratio = relative;
  }
  return worst;
}

Measurement step_measure(Subject& subject, const StepCase& c, const BoundModel& model) {
  const SubjectInfo& info = subject.info();
  const Matrix p = encode(subject, c.dim, {0, 1, c.position, c.position + 1}, c.seq_len);
  const double amplitude = info.amplitude;
  const Eigen::RowVectorXd first = p.row(1) - p.row(0), step = p.row(3) - p.row(2);

  // Two steps, each the difference of two encodings off by a row's work.
  Location where;
  where.label = fmt::format("‖p_{} − p_{}‖ against ‖p_1 − p_0‖", c.position + 1, c.position);
  where.position = c.position;
  Check norm = compare_scalars("step norm", step.norm(), first.norm(),
                               bound_of((row_work(info, c.dim, c.position + 1) + row_work(info, c.dim, 1)) * 2,
                                        amplitude, "2·(R(t+1) + R(1)), R(t) the work of p_t in quadrature · A"),
                               std::move(where));
  norm.note = "the step's norm against the first step's";

  const Layout declared_layout = declared(info).layout;
  const Layout other = declared_layout == Layout::halves ? Layout::interleaved : Layout::halves;
  Check pairs = pair_steps(p, declared_layout, c, info, model);
  Layout pairing = declared_layout;
  if (c.dim >= 4) {
    Check alternative = pair_steps(p, other, c, info, model);
    if (ratio_of(alternative, model) < ratio_of(pairs, model)) {
      pairs = std::move(alternative);
      pairing = other;
    }
  }
  const std::string how = pairing == declared_layout
                              ? fmt::format("{} layout (as declared)", name(pairing))
                              : fmt::format("{} layout (the better fitting; declared {})", name(pairing),
                                            name(declared_layout));
  pairs.note = fmt::format("each pair's step against A·2·sin(ω_i/2), ω_i its turn from position 0 to 1, pairs in the {}",
                           how);
  Measurement m;
  m.note = fmt::format("step from position {} to {}: its norm against the first step's, each pair's against "
                       "A·2·sin(ω_i/2) with ω_i its own turn per position, pairs in the {}",
                       c.position, c.position + 1, how);
  m.checks = {std::move(norm), std::move(pairs)};
  return m;
}

}  // namespace

PropertyImpl step_size() {
  return scaling({Axis::width}, define<StepCase>("pe.step_size", {"step norm", "pair step"}, step_gen, step_measure));
}

std::vector<PropertyImpl> properties() { return {step_size()}; }

}  // namespace pecheck::pe::step_size
