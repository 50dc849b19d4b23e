// CLAIMS.md §2, §5 — pe.reference_values: the encoding matches the closed
// form (reference/sinusoidal.h) under the subject's declared convention —
// base, schedule, position offset, amplitude, layout; the paper's form where
// it declares none — and, for the paper's form, reproduces the numbers
// published in 003 at d = 16. One wrong frequency schedule (or base, offset,
// layout) fails here, and the diagnosis names which (property/identify.h).
//
// Each component is judged against the bound of one computed encoding at its
// own position and frequency (values: one rounding of A; angles: the work of
// angle_error.h at t + offset), and where a correct encoder at the declared
// precision cannot resolve a component at all — the bound reaches 2A, the
// largest difference two encodings of amplitude A can have — it is not
// judged; a case with nothing left to judge is not checkable.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "angle_error.h"
#include "pe/common.h"
#include "pecheck/gen/fast_random.h"
#include "pecheck/gen/positions.h"
#include "pecheck/property/identify.h"
#include "pecheck/reference/sinusoidal.h"
#include "input_checks.h"

namespace pecheck::pe::reference_values {

namespace {

struct ReferenceCase {
  bool published = true;  // also check 003's numbers at d = 16
  int dim = 2;
  Positions positions = {0};
  Position seq_len = 1;
  void validate() const {
    input::width("dim", dim);
    input::length("seq_len", seq_len);
    input::positions("positions", positions, seq_len);
    if (positions.empty() || dim < 1) throw InvalidInput("pe.reference_values: a width and one position or more");
    for (Position t : positions) {
      if (t < 0 || t >= seq_len) throw InvalidInput("pe.reference_values: positions lie in [0, seq_len)");
    }
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ReferenceCase, published, dim, positions, seq_len)

// 003's dot products at d = 16, printed there to 4 decimals.
struct Published {
  Position t, s;
  double value;
};
constexpr int kPublishedDim = 16;
constexpr std::array<Published, 3> kPublished{{{5, 6, 7.4852}, {105, 106, 7.4852}, {5, 10, 6.1370}}};
constexpr std::array<Position, 5> kPublishedPositions{5, 6, 10, 105, 106};
constexpr double kHalfLastDecimal = 0.5e-4;  // a value printed to 4 decimals is this close to the truth
constexpr int kMaxPositions = 4;

Position last_of(const Positions& ts) { return *std::max_element(ts.begin(), ts.end()); }

// Every case checks the published numbers as well (where the run allows
// d = 16 and position 106). Shrinking first drops them (keeping the case if
// its own entries are wrong), then tries the published positions themselves
// as cases, so that a subject that only misses 003's numbers still shrinks to
// its smallest wrong position; then fewer positions (halving a ladder case's
// thousands first), a smaller d, each position toward 0, a shorter sequence.
// Every candidate's sequence length is the one the run allows (sizes.h).
rc::Seq<ReferenceCase> shrink_reference(const ReferenceCase& c, int min_dim, const GenContext& ctx) {
  const Position extra = c.seq_len - last_of(c.positions) - 1;
  auto length = [ctx](const Positions& ts, Position e) { return length_of(ctx, last_of(ts), e); };
  std::vector<ReferenceCase> candidates;
  if (c.published) {
    candidates.push_back({false, c.dim, c.positions, c.seq_len});
    for (Position t : kPublishedPositions) candidates.push_back({false, kPublishedDim, {t}, length({t}, 0)});
  }
  if (c.positions.size() > static_cast<size_t>(kMaxPositions)) {
    // A ladder case's rows: the first half, a quarter, … before one at a time.
    for (size_t keep = c.positions.size() / 2; keep >= 1; keep /= 2) {
      Positions ts(c.positions.begin(), c.positions.begin() + static_cast<std::ptrdiff_t>(keep));
      candidates.push_back({c.published, c.dim, ts, length(ts, extra)});
    }
  }
  for (size_t i = 0; c.positions.size() > 1 && i < c.positions.size(); ++i) {
    ReferenceCase d = c;
    d.positions.erase(d.positions.begin() + static_cast<std::ptrdiff_t>(i));
    d.seq_len = length(d.positions, extra);
    candidates.push_back(std::move(d));
  }
  auto with_positions = [c, extra, length](Positions ts) {
    const Position seq_len = length(ts, extra);
    return ReferenceCase{c.published, c.dim, std::move(ts), seq_len};
  };
  auto dims = rc::seq::map(rc::shrink::towards(c.dim / 2, min_dim / 2), [c](int half) {
    ReferenceCase d = c;
    d.dim = 2 * half;
    return d;
  });
  auto each = rc::seq::map(
      rc::shrink::eachElement(c.positions, [](Position t) { return rc::shrink::towards<Position>(t, 0); }),
      with_positions);
  auto longer = rc::seq::map(rc::shrink::towards<Position>(extra, 0), [c, length](Position e) {
    ReferenceCase d = c;
    d.seq_len = length(c.positions, e);
    return d;
  });
  return rc::seq::concat(rc::seq::fromContainer(std::move(candidates)), std::move(dims), std::move(each),
                         std::move(longer));
}

bool even(std::int64_t d) { return d % 2 == 0; }

// Whether 003's numbers can be checked in this run: d = 16 allowed, and its
// positions (up to 106) within --max-position and the declared lengths.
bool published_allowed(const GenContext& ctx) {
  return axis_limits(ctx.subject, ctx.max_position, ctx.max_width, Op::encode, Axis::width).allows(kPublishedDim) &&
         largest_position(ctx) >= kPublishedPositions.back() &&
         length_of(ctx, kPublishedPositions.back(), 0) == kPublishedPositions.back() + 1;
}

// A ladder case: d or the row count at its rung (property/sizes.h), the
// other small; positions over the whole range.
rc::Gen<ReferenceCase> reference_ladder(const GenContext& ctx, int min_dim) {
  const Position max = largest_position(ctx);
  return rc::gen::mapcat(
      rc::gen::pair(size_on(ctx, Op::encode, Axis::width, min_dim, min_dim + 254, even),
                    size_on(ctx, Op::encode, Axis::rows, 1, kMaxPositions)),
      [ctx, max](const std::pair<int, int>& shape) {
        return rc::gen::apply(
            [ctx, dim = shape.first](Positions ts, Position extra) {
              const Position seq_len = length_of(ctx, last_of(ts), extra);
              return ReferenceCase{false, dim, std::move(ts), seq_len};
            },
            rc::gen::container<Positions>(static_cast<std::size_t>(shape.second), position(ctx.subject, max)),
            rc::gen::inRange<Position>(0, 16));
      });
}

// d up to 256 and positions up to max_position, both growing with
// RapidCheck's size; a quarter of the positions are edges (gen/positions.h).
rc::Gen<ReferenceCase> reference_gen(const GenContext& ctx) {
  const Position max = largest_position(ctx);
  const int min_dim = declared(ctx.subject).schedule == Schedule::i_over_h_minus_1 ? 4 : 2;
  if (focused(ctx, Axis::width) || focused(ctx, Axis::rows)) return reference_ladder(ctx, min_dim);
  const auto edges = gen::edge_positions(0, max, ctx.subject.angles_dtype());
  const std::vector<int> dims = small_sizes(ctx, Op::encode, Axis::width, min_dim, min_dim + 254, even);
  const bool published = published_allowed(ctx);
  return rc::Gen<ReferenceCase>([ctx, max, min_dim, edges, dims, published](const rc::Random& random, int size) {
    rc::Random r = random;
    gen::FastRandom values(r.next());
    const auto scaled = static_cast<std::uint64_t>(std::clamp(size, 0, 100));
    const std::size_t pick = values.next() % (1 + (dims.size() - 1) * scaled / 100);
    ReferenceCase c{published, dims[pick], {}, 0};
    const int count = 1 + static_cast<int>(values.next() % kMaxPositions);
    for (int k = 0; k < count; ++k) {
      const bool edge = !edges.empty() && values.unit() < gen::kEdgeShare;
      c.positions.push_back(edge ? edges[values.next() % edges.size()]
                                 : static_cast<Position>(values.next() % (1 + static_cast<std::uint64_t>(max) * scaled / 100)));
    }
    c.seq_len = length_of(ctx, last_of(c.positions), static_cast<Position>(values.next() % 16));
    return rc::shrinkable::shrinkRecur(std::move(c), [min_dim, ctx](const ReferenceCase& k) {
      return shrink_reference(k, min_dim, ctx);
    });
  });
}

bool papers_form(const EncodeConvention& c) {
  return c.base == 10000 && c.schedule == Schedule::two_i_over_d && c.position_offset == 0 && c.amplitude == 1;
}

// The published dot products against the subject's, each a check; `summary` gets the numbers.
std::vector<Check> published_checks(Subject& subject, std::string& summary) {
  const Positions ts(kPublishedPositions.begin(), kPublishedPositions.end());
  auto row = [&ts](Position t) { return static_cast<Eigen::Index>(std::find(ts.begin(), ts.end(), t) - ts.begin()); };
  const Matrix p = encode(subject, kPublishedDim, ts, ts.back() + 1);
  std::vector<Check> out;
  std::string published, observed;
  for (const auto& [t, s, value] : kPublished) {
    const double dot = dot_rows(p, row(t), row(s));
    Location where;
    where.label = fmt::format("p_{}·p_{} at d = 16 (published in 003)", t, s);
    where.position = t;
    where.other_position = s;
    Bound bound = bound_of(summed_work(subject.info(), kPublishedDim, 106) * 2, 1.0,
                           "2·W(106), W(t) the work of p_t's 16 components · 1");
    bound.plus_fixed(kHalfLastDecimal, "published to 4 decimals");
    out.push_back(compare_scalars("published dot products", dot, value, std::move(bound), std::move(where)));
    out.back().note = "003's published dot product at d = 16";
    published += fmt::format("{}p{}·p{} = {:.4f}", published.empty() ? "" : ", ", t, s, value);
    observed += fmt::format("{}{:.4f}", observed.empty() ? "" : ", ", dot);
  }
  summary = fmt::format("published (003, d=16): {}; observed {}", published, observed);
  return out;
}

// The component whose error is furthest past (or closest to) its own bound:
// one rounding of A in the values, the angle's work at t + offset in the angles.
Check entries_check(const BoundModel& model, const ReferenceCase& c, const Matrix& p, const Matrix& want,
                    const EncodeConvention& convention, int& unresolved) {
  const double a = std::fabs(convention.amplitude);
  const double u_values = model.u(Stage::values), u_angles = model.u(Stage::angles), factor = model.factor();
  struct Worst {
    Eigen::Index row = -1;
    int pair = 0, column = 0;
    double work = 0, ratio = -1;
  } worst, unresolved_at;
  for (int i = 0; i < (c.dim + 1) / 2; ++i) {
    const double w = reference::frequency(i, c.dim, convention);
    for (int col : {reference::sin_index(i, c.dim, convention.layout), reference::cos_index(i, c.dim, convention.layout)}) {
      if (col >= c.dim) continue;
      for (Eigen::Index row = 0; row < p.rows(); ++row) {
        const double work = angle_work(static_cast<double>(c.positions[static_cast<size_t>(row)] +
                                                           convention.position_offset), w);
        const double tolerance = factor * (u_values + u_angles * work) * a;
        if (tolerance >= 2 * a) {
          if (unresolved++ == 0) unresolved_at = {row, i, col, work, 0};
          continue;
        }
        const double error = std::isnan(p(row, col)) ? INFINITY : std::fabs(p(row, col) - want(row, col));
        const double ratio = tolerance > 0 ? error / tolerance : (error > 0 ? INFINITY : 0);
        if (ratio > worst.ratio) worst = {row, i, col, work, ratio};
      }
    }
  }
  const Worst& at = worst.row >= 0 ? worst : unresolved_at;
  Bound bound = Bound::upper(1, a, "one rounding · A");
  bound.plus(Stage::angles, at.work, a, "angle work(t + offset, ω_i) · A");
  bound.at_most(2 * a);
  const Position t = c.positions[static_cast<size_t>(std::max<Eigen::Index>(at.row, 0))];
  Location where;
  where.position = t;
  where.pair = at.pair;
  where.component = at.column;
  where.label = fmt::format("d = {}", c.dim);
  const Eigen::Index row = std::max<Eigen::Index>(at.row, 0);
  Check check = compare_scalars("entries", p(row, at.column), want(row, at.column), std::move(bound), std::move(where));
  if (std::isnan(p(row, at.column))) check.error = INFINITY;
  return check;
}

Measurement reference_measure(Subject& subject, const ReferenceCase& c, const BoundModel& model) {
  const EncodeConvention convention = declared(subject.info());
  const Matrix want = reference::sinusoidal(c.dim, c.positions, convention);
  const Matrix p = encode(subject, c.dim, c.positions, c.seq_len);
  int unresolved = 0;
  Check entries = entries_check(model, c, p, want, convention, unresolved);
  entries.note = fmt::format("entries against the declared reference ({})", identify::describe(convention));

  Measurement m;
  m.checks.push_back(std::move(entries));
  std::string summary = "published (003, d=16): not checked in this case";
  if (c.published && !papers_form(convention)) {
    summary = "published (003, d=16): not checked, the subject declares another convention than the paper's";
  } else if (c.published) {
    try {
      for (auto& check : published_checks(subject, summary)) m.checks.push_back(std::move(check));
    } catch (const Refusal& refusal) {
      summary = fmt::format("published (003, d=16): not checked, the subject refuses d = 16 ({})", refusal.what());
    }
  }
  if (unresolved > 0) {
    summary += fmt::format("; {} component(s) not checkable in {} angles (the bound reaches 2A)", unresolved,
                           name(model.dtype(Stage::angles)));
  }
  m.note = summary;
  return m;
}

std::string reference_diagnose(Subject& subject, const ReferenceCase& c, const BoundModel& model) {
  return identify::diagnose_encoder(subject, model, c.dim, c.positions, c.seq_len);
}

}  // namespace

PropertyImpl reference_values() {
  return scaling({Axis::width, Axis::rows},
                 define<ReferenceCase>("pe.reference_values", {"entries", "published dot products"}, reference_gen,
                                       reference_measure, reference_diagnose));
}

std::vector<PropertyImpl> properties() { return {reference_values()}; }

}  // namespace pecheck::pe::reference_values
