// CLAIMS.md §2 — pe.reference_values: the encoding matches the closed form
// (src/reference/sinusoidal.h) in the subject's declared layout — interleaved
// when it declares none — and reproduces the numbers published in 003 at d = 16.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "pecheck/gen/fast_random.h"
#include "pe_common.h"
#include "pecheck/reference/sinusoidal.h"

namespace pecheck::pe {

namespace {

struct ReferenceCase {
  bool published = true;  // also check 003's numbers at d = 16
  int dim = 2;
  Position position = 0;
  Position seq_len = 1;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ReferenceCase, published, dim, position, seq_len)

// 003's dot products at d = 16, printed there to 4 decimals.
struct Published {
  Position t, s;
  double value;
};
constexpr int kPublishedDim = 16;
constexpr std::array<Published, 3> kPublished{{{5, 6, 7.4852}, {105, 106, 7.4852}, {5, 10, 6.1370}}};
constexpr std::array<Position, 5> kPublishedPositions{5, 6, 10, 105, 106};
constexpr double kHalfLastDecimal = 0.5e-4;  // a value printed to 4 decimals is this close to the truth

// Every case checks the published numbers as well. Shrinking first drops them
// (keeping the case if its own entries are wrong), then tries the published
// positions themselves as cases, so that a subject that only misses 003's
// numbers still shrinks to its smallest wrong position; then d, t, the length.
rc::Seq<ReferenceCase> shrink_reference(const ReferenceCase& c) {
  const Position extra = c.seq_len - c.position - 1;
  rc::Seq<ReferenceCase> probes;
  if (c.published) {
    std::vector<ReferenceCase> candidates{{false, c.dim, c.position, c.seq_len}};
    for (Position t : kPublishedPositions) candidates.push_back({false, kPublishedDim, t, t + 1});
    probes = rc::seq::fromContainer(std::move(candidates));
  }
  return rc::seq::concat(
      std::move(probes),
      rc::seq::map(rc::shrink::towards(c.dim / 2, 1),
                   [c](int half) { return ReferenceCase{c.published, 2 * half, c.position, c.seq_len}; }),
      rc::seq::map(rc::shrink::towards<Position>(c.position, 0),
                   [c, extra](Position t) { return ReferenceCase{c.published, c.dim, t, t + 1 + extra}; }),
      rc::seq::map(rc::shrink::towards<Position>(extra, 0),
                   [c](Position e) { return ReferenceCase{c.published, c.dim, c.position, c.position + 1 + e}; }));
}

// d up to 256 and t up to max_position, both growing with RapidCheck's size.
rc::Gen<ReferenceCase> reference_gen(const GenContext& ctx) {
  const Position max = ctx.max_position;
  return rc::Gen<ReferenceCase>([max](const rc::Random& random, int size) {
    rc::Random r = random;
    gen::FastRandom values(r.next());
    const auto scaled = static_cast<std::uint64_t>(std::clamp(size, 0, 100));
    const int half = 1 + static_cast<int>(values.next() % (1 + 127 * scaled / 100));
    const Position t = static_cast<Position>(values.next() % (1 + static_cast<std::uint64_t>(max) * scaled / 100));
    const Position extra = static_cast<Position>(values.next() % 16);
    return rc::shrinkable::shrinkRecur(ReferenceCase{true, 2 * half, t, t + 1 + extra}, &shrink_reference);
  });
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
    Bound bound = Bound::upper(2 * summed_work(kPublishedDim, 106), 1.0, "2·W(106), W(t) = Σ_i 2·(1+t·ω_i) at d = 16 · 1");
    bound.plus_fixed(kHalfLastDecimal, "published to 4 decimals");
    out.push_back(compare_scalars("published dot products", dot, value, std::move(bound), std::move(where)));
    out.back().note = "003's published dot product at d = 16";
    published += fmt::format("{}p{}·p{} = {:.4f}", published.empty() ? "" : ", ", t, s, value);
    observed += fmt::format("{}{:.4f}", observed.empty() ? "" : ", ", dot);
  }
  summary = fmt::format("published (003, d=16): {}; observed {}", published, observed);
  return out;
}

Measurement reference_measure(Subject& subject, const ReferenceCase& c, const BoundModel&) {
  const Layout layout = declared_or_interleaved(subject.info());
  const Matrix p = encode(subject, c.dim, {c.position}, c.seq_len);
  // One component: the angle t·ω_i (≤ t) and its sine or cosine, against the
  // reference's unit amplitude (a scaled encoding is not the reference).
  Check entries = compare_entries("entries", p, reference::sinusoidal(c.dim, {c.position}, layout),
                                  Bound::upper(angle_work(c.position), 1.0, "(1+|t|) · 1"));
  entries.where.row.reset();
  entries.where.position = c.position;
  entries.where.label = fmt::format("d = {}", c.dim);
  entries.note = fmt::format("entries against the {} reference", name(layout));

  Measurement m;
  m.checks.push_back(std::move(entries));
  std::string summary = "published (003, d=16): not checked in this case";
  if (c.published) {
    try {
      for (auto& check : published_checks(subject, summary)) m.checks.push_back(std::move(check));
    } catch (const Refusal& refusal) {
      summary = fmt::format("published (003, d=16): not checked, the subject refuses d = 16 ({})", refusal.what());
    }
  }
  m.note = summary;
  return m;
}

}  // namespace

PropertyImpl reference_values() {
  return define<ReferenceCase>("pe.reference_values", {"entries", "published dot products"}, reference_gen,
                               reference_measure);
}

}  // namespace pecheck::pe
