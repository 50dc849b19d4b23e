// CLAIMS.md §5 — rope.distinct_positions: R_t x ≠ R_s x for t ≠ s, up to the
// tested maximum, at the declared angle precision. Positions that collapse
// (Hugging Face's bfloat16 cache rebuild: past 2048 tokens positions 256 and
// 257 rotate alike) fail here, with the precision their collapse points to.
//
// Two answers are alike when they differ by less than one rounding of the
// values, q = factor·u(values)·s over the features compared (s: the pairs'
// sizes m·(|x_a| + |x_b|)). Only the feature pairs a correct subject at the
// declared precisions must keep apart are compared: those whose exact
// distance exceeds both answers' rounding blur (one computed rotation each,
// rope/common.h) plus q. A pair of positions with no such feature pair is
// not judged (a case with none at all is not checkable): all-bfloat16 angles
// cannot tell 300 from 301, and nothing can be concluded there.
//
// Each case draws anchor positions (edges mixed in) and sends each with its
// neighbour t + 1, so a collapse of neighbours — the first to happen when a
// precision runs out of integers — is in every case. Shrinking tries the
// neighbours at each power of two first (where a binary format's integers
// run out), then drops and slides positions toward 0.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "angle_error.h"
#include "pecheck/gen/fast_random.h"
#include "pecheck/gen/matrix.h"
#include "pecheck/reference/rotary.h"
#include "rope/common.h"
#include "input_checks.h"

namespace pecheck::rope::distinct {

namespace {

struct DistinctCase {
  int dim = 2;
  Positions positions;
  Position seq_len = 2;
  Matrix x;  // 1 × dim, rotated at every position
  void validate() const {
    input::width("dim", dim);
    input::length("seq_len", seq_len);
    input::positions("positions", positions, seq_len, 2);
    input::matrix("x", x, 1, dim);
    if (positions.size() < 2 || x.rows() != 1 || x.cols() != dim) {
      throw InvalidInput("rope.distinct_positions: two positions or more and one vector of width dim");
    }
    for (Position t : positions) {
      if (t < 0 || t >= seq_len) throw InvalidInput("rope.distinct_positions: positions lie in [0, seq_len)");
    }
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(DistinctCase, dim, positions, seq_len, x)

constexpr int kMaxAnchors = 4;  // 8 positions, 28 pairs: the default matrix stays under 1 s

Positions sorted_unique(Positions ts) {
  std::sort(ts.begin(), ts.end());
  ts.erase(std::unique(ts.begin(), ts.end()), ts.end());
  return ts;
}

Position last_of(const Positions& ts) { return ts.empty() ? 0 : *std::max_element(ts.begin(), ts.end()); }

// Shrink candidates, in order: neighbours at powers of two, fewer positions,
// the set slid down, each position lower, a smaller width, a shorter
// sequence, a simpler vector. Every candidate keeps two distinct positions.
rc::Seq<DistinctCase> shrink_distinct(const DistinctCase& c, const std::vector<int>& dims) {
  std::vector<DistinctCase> out;
  // Every position candidate must be strictly smaller by (largest position,
  // count, −smallest, sum): the neighbours {256, 257} of {0, 257} are, and
  // {0, 257} of {256, 257} is not — without this order shrinking can cycle.
  auto key = [](const Positions& ts) {
    Position sum = 0;
    for (Position t : ts) sum += t;
    return std::make_tuple(last_of(ts), ts.size(), -ts.front(), sum);
  };
  const auto own = key(sorted_unique(c.positions));
  auto with_positions = [&](Positions ts) {
    ts = sorted_unique(std::move(ts));
    if (ts.size() < 2 || ts.front() < 0 || !(key(ts) < own)) return;
    DistinctCase d = c;
    d.positions = std::move(ts);
    out.push_back(std::move(d));
  };
  const Position last = last_of(c.positions);
  // Collapses begin at powers of two (where a float's spacing doubles), so an
  // adjacent pair anywhere first tries the pairs that start at one.
  for (Position p = 1; p + 1 <= last; p *= 2) with_positions({p, p + 1});
  for (size_t i = 0; i < c.positions.size(); ++i) {  // drop one
    Positions ts = c.positions;
    ts.erase(ts.begin() + static_cast<std::ptrdiff_t>(i));
    with_positions(std::move(ts));
  }
  const Position low = c.positions.front();
  for (Position by : {low, low / 2, Position{1}}) {  // slide the set toward 0
    if (by <= 0) continue;
    Positions ts = c.positions;
    for (auto& t : ts) t -= by;
    with_positions(std::move(ts));
  }
  for (size_t i = 0; i < c.positions.size(); ++i) {  // one position lower
    for (Position t : {Position{0}, c.positions[i] / 2, c.positions[i] - 1}) {
      if (t >= c.positions[i] || t < 0) continue;
      Positions ts = c.positions;
      ts[i] = t;
      with_positions(std::move(ts));
    }
  }
  for (int d : dims) {  // a smaller width
    if (d >= c.dim) break;
    DistinctCase s = c;
    s.dim = d;
    s.x = c.x.leftCols(d);
    out.push_back(std::move(s));
  }
  if (c.seq_len > last + 1) {  // a shorter sequence
    for (Position len : {last + 1, last + 1 + (c.seq_len - last - 1) / 2}) {
      if (len >= c.seq_len) continue;
      DistinctCase s = c;
      s.seq_len = len;
      out.push_back(std::move(s));
    }
  }
  auto candidates = rc::seq::fromContainer(std::move(out));
  auto vectors = rc::seq::map(gen::shrink_matrix(c.x), [c](Matrix x) {
    DistinctCase s = c;
    s.x = std::move(x);
    return s;
  });
  return rc::seq::concat(std::move(candidates), std::move(vectors));
}

rc::Gen<DistinctCase> distinct_gen(const GenContext& ctx) {
  std::vector<int> dims = within_gate(valid_dims(ctx.subject), ctx);
  if (dims.empty()) dims = small_sizes(ctx, Op::rotate, Axis::width, 2, 128, defined_width(ctx.subject));
  const Position max = std::max<Position>(position_limit(ctx, Op::rotate), 1);
  const auto edges = gen::edge_positions(0, max - 1, ctx.subject.angles_dtype());
  return rc::Gen<DistinctCase>([ctx, dims, max, edges](const rc::Random& random, int) {
    rc::Random r = random;
    gen::FastRandom values(r.next());
    DistinctCase c;
    c.dim = dims.empty() ? 2 : dims[values.next() % dims.size()];
    const int anchors = 1 + static_cast<int>(values.next() % kMaxAnchors);
    Positions ts;
    for (int k = 0; k < anchors; ++k) {
      const Position t = (!edges.empty() && values.unit() < gen::kEdgeShare)
                             ? edges[values.next() % edges.size()]
                             : static_cast<Position>(values.next() % static_cast<std::uint64_t>(max));
      ts.insert(ts.end(), {t, t + 1});
    }
    c.positions = sorted_unique(std::move(ts));
    const Position extra = values.unit() < 0.5 ? static_cast<Position>(values.next() % 16)
                                               : static_cast<Position>(values.next() % static_cast<std::uint64_t>(max));
    c.seq_len = length_of(ctx, last_of(c.positions), extra);
    c.x.resize(1, c.dim);
    for (int j = 0; j < c.dim; ++j) c.x(0, j) = values.uniform(-kValueBound, kValueBound);
    return rc::shrinkable::shrinkRecur(std::move(c), [dims](const DistinctCase& k) { return shrink_distinct(k, dims); });
  });
}

// The highest precision among the 16- and 32-bit formats in which t and s
// round to the same number: where the subject's positions (or angles) must
// have been, for the two to rotate alike.
std::optional<Dtype> where_alike(Position t, Position s) {
  for (Dtype d : {Dtype::float32, Dtype::float16, Dtype::bfloat16}) {
    if (round_to(d, static_cast<double>(t)) == round_to(d, static_cast<double>(s))) return d;
  }
  return std::nullopt;
}

struct PairVerdict {
  size_t a = 0, b = 0;
  double distance = 0, scale = 0, ratio = std::numeric_limits<double>::infinity();
  int compared = 0;  // feature pairs compared
};

// What tells two positions apart on each feature pair of the rotated block:
// its columns, its size m(|x_a| + |x_b|), and the error of one computed
// rotation on it.
struct PairScale {
  std::vector<double> size;
  std::vector<int> first, second;
  std::vector<double> omegas;
  double factor = 0, u_values = 0, u_angles = 0;
  int scale_family = 0;

  double gap(const Matrix& v, size_t a, size_t b, int i) const {
    const auto ra = static_cast<Eigen::Index>(a), rb = static_cast<Eigen::Index>(b);
    return std::hypot(v(ra, first[static_cast<size_t>(i)]) - v(rb, first[static_cast<size_t>(i)]),
                      v(ra, second[static_cast<size_t>(i)]) - v(rb, second[static_cast<size_t>(i)]));
  }
  // One computed rotation's error on pair i at position t, in norm (√2 entries).
  double blur(Position t, int i) const {
    return std::sqrt(2.0) * factor *
           (u_values * 5 + u_angles * angle_work(static_cast<double>(t), omegas[static_cast<size_t>(i)], scale_family)) *
           size[static_cast<size_t>(i)];
  }
};

PairScale pair_scale(const SubjectInfo& info, const DistinctCase& c, const Positions& ts, int r,
                     const RotateConvention& convention, const BoundModel& model) {
  PairScale p;
  p.omegas = frequencies(info, c.dim, request_length(info, ts, c.seq_len));
  const double m = magnitude(info);
  p.factor = model.factor();
  p.u_values = model.u(Stage::values);
  p.u_angles = model.u(Stage::angles);
  p.scale_family = frequency_roundings(info);
  p.size.resize(static_cast<size_t>(r / 2));
  p.first.resize(static_cast<size_t>(r / 2));
  p.second.resize(static_cast<size_t>(r / 2));
  for (int i = 0; i < r / 2; ++i) {
    p.first[static_cast<size_t>(i)] = reference::rotary_first_column(i, r, convention.layout);
    p.second[static_cast<size_t>(i)] = reference::rotary_second_column(i, r, convention.layout);
    p.size[static_cast<size_t>(i)] = m * (std::fabs(c.x(0, p.first[static_cast<size_t>(i)])) +
                                          std::fabs(c.x(0, p.second[static_cast<size_t>(i)])));
  }
  return p;
}

struct Closest {
  std::optional<PairVerdict> pair;  // none: no two positions a correct subject must keep apart
  int unresolved = 0;               // pairs of positions closer in exact arithmetic than the angles resolve
};

// The two positions whose answers come closest, in roundings of the values,
// over the feature pairs whose exact answers lie further apart than two
// computed rotations' errors (the others a correct subject may merge too).
Closest closest_pair(const Positions& ts, const Matrix& answer, const Matrix& exact, const PairScale& p, int r) {
  Closest out;
  for (size_t a = 0; a < ts.size(); ++a) {
    for (size_t b = a + 1; b < ts.size(); ++b) {
      PairVerdict v{a, b};
      double gap2 = 0, scale2 = 0;
      for (int i = 0; i < r / 2; ++i) {
        const double q = p.factor * p.u_values * p.size[static_cast<size_t>(i)];
        if (p.gap(exact, a, b, i) <= p.blur(ts[a], i) + p.blur(ts[b], i) + q) continue;
        const double g = p.gap(answer, a, b, i);
        gap2 += std::isnan(g) ? 0 : g * g;
        scale2 += p.size[static_cast<size_t>(i)] * p.size[static_cast<size_t>(i)];
        ++v.compared;
      }
      if (v.compared == 0) {
        ++out.unresolved;
        continue;
      }
      v.distance = std::sqrt(gap2);
      v.scale = std::sqrt(scale2);
      v.ratio = v.distance / (p.factor * p.u_values * v.scale);
      if (!out.pair || v.ratio < out.pair->ratio) out.pair = v;
    }
  }
  return out;
}

// Nothing a correct subject must keep apart: not checkable at this size.
Measurement nothing_to_compare(Check check, const Positions& ts, const BoundModel& model) {
  Measurement out;
  check.error = 0;
  check.bound = Bound::lower(1, 0, "nothing to compare");
  check.bound.at_most(0);
  check.where.position = ts.front();
  check.where.other_position = ts.back();
  check.note = fmt::format("no two of these {} positions are far enough apart in exact arithmetic for {} angles "
                           "to resolve", ts.size(), name(model.dtype(Stage::angles)));
  out.checks.push_back(std::move(check));
  return out;
}

// The closest pair judged against one rounding of the values, and where its positions are one number.
Measurement closest_measurement(Check check, const DistinctCase& c, const Positions& ts, const Closest& found,
                                const BoundModel& model) {
  Measurement out;
  const PairVerdict& closest = *found.pair;
  const Position t = ts[closest.a], u = ts[closest.b];
  check.error = closest.distance;
  check.bound = Bound::lower(1, closest.scale, fmt::format("one rounding of the values · m(|x_a| + |x_b|) over the "
                                                           "{} feature pair(s) a correct subject keeps apart",
                                                           closest.compared));
  check.where.position = t;
  check.where.other_position = u;
  check.where.label = fmt::format("R_{} x against R_{} x", t, u);
  check.observed = number_to_json(closest.distance);
  check.expected = fmt::format("> one rounding of the values ({} feature pair(s) compared)", closest.compared);
  const auto alike_in = where_alike(t, u);
  const Dtype angles = model.dtype(Stage::angles);
  std::string why;
  if (alike_in && unit_roundoff(*alike_in) > unit_roundoff(angles)) {
    why = fmt::format(": angles computed in {} ({} and {} are one number there), declared {}", name(*alike_in), t, u,
                      name(angles));
  }
  check.note = fmt::format("positions {} and {} rotate {}{}", t, u,
                           closest.ratio < 1 ? "alike" : fmt::format("{:.3g} roundings apart", closest.ratio), why);
  out.note = fmt::format("{} positions in a sequence of {}{}", ts.size(), c.seq_len,
                         found.unresolved ? fmt::format("; {} pair(s) closer in exact arithmetic than {} angles can tell "
                                                        "apart (a correct subject too), so left out by the error model",
                                                        found.unresolved, name(angles))
                                          : "");
  out.checks.push_back(std::move(check));
  return out;
}

Measurement distinct_measure(Subject& s, const DistinctCase& c, const BoundModel& model) {
  const SubjectInfo& info = s.info();
  const Positions ts = sorted_unique(c.positions);
  const RotateConvention convention = declared(info);
  const int r = rotated_width(info, c.dim);
  Check check;
  check.name = "closest pair apart";
  if (ts.size() < 2) throw InvalidInput("rope.distinct_positions needs two distinct positions");
  const Matrix x = c.x.replicate(static_cast<Eigen::Index>(ts.size()), 1);
  const Matrix answer = rotate(s, ts, x, c.seq_len);
  const Matrix exact =
      reference::rotary_input_order(reference::rotary(ts, x, convention, c.seq_len), r, convention.layout);
  const PairScale scale = pair_scale(info, c, ts, r, convention, model);
  const Closest closest = closest_pair(ts, answer, exact, scale, r);
  if (!closest.pair) return nothing_to_compare(std::move(check), ts, model);
  return closest_measurement(std::move(check), c, ts, closest, model);
}

std::string distinct_diagnose(Subject& s, const DistinctCase& c, const BoundModel& model) {
  constexpr Position kMaxProbe = 1 << 14;
  const Position top = std::min(last_of(c.positions), kMaxProbe);
  if (top < 1) return {};
  Positions ts;
  for (Position t = 0; t <= top; ++t) ts.push_back(t);
  const Matrix x = c.x.replicate(static_cast<Eigen::Index>(ts.size()), 1);
  const Matrix answer = rotate(s, ts, x, c.seq_len);
  const double q = model.factor() * model.u(Stage::values) * magnitude(s.info()) * c.x.cwiseAbs().sum();
  for (Position t = 1; t <= top; ++t) {
    const double gap = (answer.row(static_cast<Eigen::Index>(t)) - answer.row(static_cast<Eigen::Index>(t - 1))).norm();
    if (!(gap > q)) {
      if (t == 1) {
        return fmt::format("position 1 rotates as 0 does (at d = {} in a sequence of {}): no position is told apart "
                           "from its neighbour",
                           c.dim, c.seq_len);
      }
      return fmt::format("positions 0 to {} rotate distinctly (each from the one before, at d = {} in a sequence of "
                         "{}); {} rotates as {} does",
                         t - 1, c.dim, c.seq_len, t, t - 1);
    }
  }
  return fmt::format("every position from 0 to {} rotates distinctly from the one before it (at d = {} in a "
                     "sequence of {}): the collapse needs positions further apart",
                     top, c.dim, c.seq_len);
}

}  // namespace

PropertyImpl distinct_positions() {
  return define<DistinctCase>("rope.distinct_positions", {"closest pair apart"}, distinct_gen, distinct_measure,
                              distinct_diagnose);
}

std::vector<PropertyImpl> properties() { return {distinct_positions()}; }

}  // namespace pecheck::rope::distinct
