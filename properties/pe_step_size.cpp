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
Measurement pair_steps(const Eigen::RowVectorXd& step, Layout layout, const StepCase& c, double amplitude,
                       const ErrorModel& model) {
  Measurement worst;
  for (int i = 0; i < c.dim / 2; ++i) {
    const int si = reference::sin_index(i, c.dim, layout), ci = reference::cos_index(i, c.dim, layout);
    const double w = reference::frequency(i, c.dim);
    Measurement m = compare_scalars(
        std::hypot(step(si), step(ci)), amplitude * 2 * std::sin(w / 2),
        model.bound("pe.step_size", 2 * std::sqrt(2.0) * (1 + static_cast<double>(c.position + 1) * w), amplitude,
                    "2·√2·(1+(t+1)·ω_i) · A"),
        fmt::format("pair {} (components {}, {}; {} layout) from position {} to {}", i, si, ci, name(layout),
                    c.position, c.position + 1));
    if (std::isnan(m.error)) m.error = INFINITY;
    if (i == 0 || m.ratio() > worst.ratio()) worst = std::move(m);
  }
  return worst;
}

Measurement step_measure(Subject& subject, const StepCase& c, const ErrorModel& model) {
  const Matrix p = encode(subject, c.dim, {0, 1, c.position, c.position + 1}, c.seq_len);
  const double amplitude = subject.info().amplitude;
  const std::string id = "pe.step_size";
  const Eigen::RowVectorXd first = p.row(1) - p.row(0), step = p.row(3) - p.row(2);

  // Two steps, each the difference of two encodings whose errors have norm ~u·R(t)·A.
  Measurement norm = compare_scalars(
      step.norm(), first.norm(),
      model.bound(id, 2 * (row_work(c.dim, c.position + 1) + row_work(c.dim, 1)), amplitude,
                  "2·(R(t+1) + R(1)), R(t) = √(Σ_i 2·(1+t·ω_i)²) · A"),
      fmt::format("‖p_{} − p_{}‖ against ‖p_1 − p_0‖", c.position + 1, c.position));

  const Layout declared = subject.info().layout;
  Layout pairing = declared == Layout::halves ? Layout::halves : Layout::interleaved;
  Measurement pairs = pair_steps(step, pairing, c, amplitude, model);
  if (declared == Layout::unspecified) {
    Measurement halves = pair_steps(step, Layout::halves, c, amplitude, model);
    if (halves.ratio() < pairs.ratio()) {
      pairs = halves;
      pairing = Layout::halves;
    }
  }

  Measurement m = worst_of({norm, pairs});
  m.note = fmt::format("step from position {} to {}: its norm against the first step's, and each pair's movement "
                       "against A·2·sin(ω_i/2), pairs in the {} layout ({})",
                       c.position, c.position + 1, name(pairing),
                       declared == Layout::unspecified ? "none declared: the better fitting" : "as declared");
  return m;
}

}  // namespace

PropertyDef step_size() {
  return define<StepCase>(
      {.id = "pe.step_size",
       .family = "pe",
       .claim = "‖p_{t+1} − p_t‖ is the same for every t; pair i moves by exactly A·2·sin(ω_i/2), which shrinks "
                "along the dimensions",
       .sources = kSources,
       .op = Op::encode,
       .expect = Expect::holds,
       .expect_for = {{"learned", Expect::violated}, {"normalized", Expect::violated}, {"integer", Expect::violated}}},
      step_gen, step_measure);
}

}  // namespace pecheck::pe
