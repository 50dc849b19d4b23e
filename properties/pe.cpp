// CLAIMS.md §2 — the sinusoidal encoding.
#include <fmt/format.h>

#include <cmath>

#include "property/compare.h"
#include "registry.h"

namespace pecheck {

namespace {

const char* const kSources = "001_2a828f9fd478cad3.txt, 003_3eecc86811d96425.txt, 004_188869e7d8bec090.txt";

// pe.bounded -----------------------------------------------------------------
struct BoundedCase {
  int dim = 2;
  Position position = 0;
  Position seq_len = 1;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(BoundedCase, dim, position, seq_len)

rc::Gen<BoundedCase> bounded_gen(const GenContext& ctx) {
  return rc::gen::apply(
      [](int half, Position t, Position extra) { return BoundedCase{2 * half, t, t + 1 + extra}; },
      rc::gen::inRange(1, 257), rc::gen::inRange<Position>(0, ctx.max_position + 1),
      rc::gen::inRange<Position>(0, 16));
}

Measurement bounded_measure(Subject& s, const BoundedCase& c, const ErrorModel& model) {
  const Matrix p = s.encode(c.dim, {c.position}, c.seq_len);
  require_shape(p, 1, c.dim, "encode");
  const double amplitude = s.info().amplitude;
  // sin and cos of a rounded angle still lie in [-1, 1]; only the final
  // scaling by the amplitude rounds: one rounding relative to the amplitude.
  Tolerance tol = model.bound("pe.bounded", 1, amplitude, "1 rounding · amplitude");
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
  m.note = "how far a component exceeds the amplitude";
  return m;
}

}  // namespace

std::vector<PropertyDef> pe_properties() {
  std::vector<PropertyDef> out;
  out.push_back(define<BoundedCase>(
      {.id = "pe.bounded",
       .family = "pe",
       .claim = "every component lies in [-1, 1] (times the amplitude, for a scaled encoding), "
                "even for enormous sequence lengths",
       .sources = kSources,
       .op = Op::encode,
       .expect = Expect::holds,
       .expect_for = {{"integer", Expect::violated}, {"normalized", Expect::holds}}},
      bounded_gen, bounded_measure));
  return out;
}

}  // namespace pecheck
