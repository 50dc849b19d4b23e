// CLAIMS.md §2 — pe.distinct_positions: positions in [0, L) get pairwise
// distinct encodings.
//
// Two encodings collide when they are closer than q = factor·u·√d·A (the same
// vector to within a few roundings per component). A pair is judged only where
// the exact encodings lie further apart than two encodings' rounding blur
// (one computed encoding's error each, pe/common.h's row work) plus q: where a correct encoder in the declared
// dtype could itself land that close — float16 cannot even tell 2048 from 2049
// — the claim cannot be checked, and the error model says so by its size.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "pe/common.h"
#include "pecheck/gen/fast_random.h"
#include "pecheck/gen/positions.h"
#include "pecheck/reference/sinusoidal.h"
#include "input_checks.h"

namespace pecheck::pe::distinct {

namespace {

struct DistinctCase {
  int dim = 2;
  Position seq_len = 2;
  Positions positions;
  void validate() const {
    input::width("dim", dim);
    input::length("seq_len", seq_len);
    input::positions("positions", positions, seq_len, 2);
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(DistinctCase, dim, seq_len, positions)

// Shrinks a sample toward two small positions: drop positions, slide the whole
// sample down to start at 0, then each position toward 0.
rc::Seq<Positions> shrink_sample(Positions v) {
  Positions slid = v;
  const Position low = v.empty() ? 0 : *std::min_element(v.begin(), v.end());
  for (auto& t : slid) t -= low;
  return rc::seq::concat(rc::shrink::removeChunks(v), low > 0 ? rc::seq::just(std::move(slid)) : rc::Seq<Positions>(),
                         rc::shrink::eachElement(v, [](Position t) { return rc::shrink::towards<Position>(t, 0); }));
}

// 2 to 64 distinct positions, uniform over [0, span]; count and span grow with
// size. A quarter of the samples also hold an edge position and its
// neighbour (gen/positions.h: 2048 and 2049, where float16 runs out of
// integers; a power of two, the maximum). Values come from one seed (no
// generator per element).
rc::Gen<Positions> position_sample(Position max_position, Dtype precision) {
  const auto edges = gen::edge_positions(0, std::max<Position>(max_position - 1, 0), precision);
  return rc::Gen<Positions>([max_position, edges](const rc::Random& random, int size) {
    rc::Random r = random;
    const int scaled = std::clamp(size, 0, 100);
    const int count = static_cast<int>(std::min<Position>(2 + 62 * scaled / 100, max_position + 1));
    const Position span = std::max<Position>(1, max_position * scaled / 100);
    gen::FastRandom values(r.next());
    Positions v = sample_distinct(values.next(), count, std::max<Position>(span, count - 1));
    if (!edges.empty() && values.unit() < gen::kEdgeShare) {
      const Position t = edges[values.next() % edges.size()];
      for (Position e : {t, t + 1}) {
        if (e <= max_position && std::find(v.begin(), v.end(), e) == v.end()) v.push_back(e);
      }
      std::sort(v.begin(), v.end());
    }
    return rc::shrinkable::shrinkRecur(std::move(v), &shrink_sample);
  });
}

rc::Gen<DistinctCase> distinct_gen(const GenContext& ctx) {
  return rc::gen::apply(
      [ctx](int dim, Positions ts, Position extra) {
        const Position last = ts.empty() ? 0 : *std::max_element(ts.begin(), ts.end());
        return DistinctCase{dim, length_of(ctx, last, extra), std::move(ts)};
      },
      even_dim(ctx, 32), position_sample(largest_position(ctx), ctx.subject.angles_dtype()),
      rc::gen::inRange<Position>(0, 16));
}

// ‖p_t − p_s‖ of the exact encoding (amplitude 1, the declared frequencies):
// Σ_i 4·sin²((t−s)·ω_i/2).
double reference_distance(const SubjectInfo& subject, int dim, Position t, Position s) {
  double sum = 0;
  for (int i = 0; i < dim / 2; ++i) {
    const double half = 0.5 * static_cast<double>(t - s) * omega(subject, i, dim);
    sum += 4 * std::sin(half) * std::sin(half);
  }
  return std::sqrt(sum);
}

Measurement distinct_measure(Subject& subject, const DistinctCase& c, const BoundModel& model) {
  Positions ts = c.positions;
  std::sort(ts.begin(), ts.end());
  ts.erase(std::unique(ts.begin(), ts.end()), ts.end());
  const double amplitude = subject.info().amplitude, root_d = std::sqrt(static_cast<double>(c.dim));
  // Two encodings collide when they are closer than q: the same vector to
  // within a few roundings per component.
  Check check;
  check.name = "closest pair apart";
  check.bound = Bound::lower(root_d, amplitude, "√d · A");
  const double q = model.value(check.bound);
  if (ts.size() < 2) {
    // Fewer than two distinct positions: nothing can collide.
    check.error = INFINITY;
    check.where.label = "fewer than two distinct positions";
    check.note = check.where.label;
    return {{std::move(check)}, {}};
  }
  const Matrix p = encode(subject, c.dim, ts, c.seq_len);
  double closest = std::numeric_limits<double>::infinity(), judged = closest;
  size_t ci = 0, cj = 1, vi = 0, vj = 1;
  int excused = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    for (size_t j = i + 1; j < ts.size(); ++j) {
      double dist = (p.row(static_cast<Eigen::Index>(i)) - p.row(static_cast<Eigen::Index>(j))).norm();
      if (std::isnan(dist)) dist = 0;  // a NaN encoding tells no position apart
      if (dist < closest) { closest = dist; ci = i; cj = j; }
      // A pair closer than q is judged only where the exact encodings lie
      // further apart than two encodings' rounding blur plus q: where a
      // correct encoder in the declared dtype could itself land that close
      // (float16 cannot tell 2048 from 2049), the claim cannot be checked.
      if (dist <= q) {
        const double blur = model.value(bound_of(row_work(subject.info(), c.dim, ts[j]), amplitude, ""));
        if (amplitude * reference_distance(subject.info(), c.dim, ts[i], ts[j]) <= 2 * blur + q) {
          ++excused;
          continue;
        }
      }
      if (dist < judged) { judged = dist; vi = i; vj = j; }
    }
  }
  const size_t a = vi, b = vj;
  const double dist = judged;
  // The closest judged pair must lie at least q apart.
  check.error = judged;
  check.where.position = ts[a];
  check.where.other_position = ts[b];
  check.observed = number_to_json(dist);
  check.expected = fmt::format("> {:.3g}", q);
  check.note = fmt::format("closest of {} positions in [0, {}): {} and {}, {:.3g} apart{}", ts.size(), c.seq_len,
                           ts[ci], ts[cj], closest,
                           excused ? fmt::format("; {} pair(s) within the dtype's rounding blur not judged", excused)
                                   : "");
  return {{std::move(check)}, {}};
}

}  // namespace

PropertyImpl distinct_positions() {
  return define<DistinctCase>("pe.distinct_positions", {"closest pair apart"}, distinct_gen, distinct_measure);
}

std::vector<PropertyImpl> properties() { return {distinct_positions()}; }

}  // namespace pecheck::pe::distinct
