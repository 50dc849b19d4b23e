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

// The published dot products against the subject's; `summary` gets the numbers.
Measurement published_measure(Subject& subject, const ErrorModel& model, std::string& summary) {
  const Positions ts(kPublishedPositions.begin(), kPublishedPositions.end());
  auto row = [&ts](Position t) { return static_cast<Eigen::Index>(std::find(ts.begin(), ts.end(), t) - ts.begin()); };
  const Matrix p = encode(subject, kPublishedDim, ts, ts.back() + 1);
  const Tolerance rounding = model.bound("pe.reference_values", 2 * summed_work(kPublishedDim, 106), 1.0,
                                         "2·W(106), W(t) = Σ_i 2·(1+t·ω_i) at d = 16 · 1");
  const Tolerance tol{kHalfLastDecimal + rounding.bound,
                      fmt::format("{:g} (published to 4 decimals) + {}", kHalfLastDecimal, rounding.formula)};
  Measurement worst;
  worst.error = -1;
  std::string published, observed;
  for (const auto& [t, s, value] : kPublished) {
    const double dot = dot_rows(p, row(t), row(s));
    Measurement m = compare_scalars(dot, value, tol, fmt::format("p_{}·p_{} at d = 16 (published in 003)", t, s));
    if (std::isnan(m.error) || m.error > worst.error) worst = m;
    published += fmt::format("{}p{}·p{} = {:.4f}", published.empty() ? "" : ", ", t, s, value);
    observed += fmt::format("{}{:.4f}", observed.empty() ? "" : ", ", dot);
  }
  summary = fmt::format("published (003, d=16): {}; observed {}", published, observed);
  return worst;
}

Measurement reference_measure(Subject& subject, const ReferenceCase& c, const ErrorModel& model) {
  const Layout layout = declared_or_interleaved(subject.info());
  const Matrix p = encode(subject, c.dim, {c.position}, c.seq_len);
  // One component: the angle t·ω_i (≤ t) and its sine or cosine, against the
  // reference's unit amplitude (a scaled encoding is not the reference).
  Measurement entries = compare_entries(p, reference::sinusoidal(c.dim, {c.position}, layout),
                                        model.bound("pe.reference_values", angle_work(c.position), 1.0, "(1+|t|) · 1"),
                                        "position");
  entries.where = fmt::format("position {}, d = {}, {}", c.position, c.dim,
                              entries.where.substr(entries.where.find("column")));

  std::string summary = "published (003, d=16): not checked in this case";
  Measurement m = entries;
  if (c.published) {
    try {
      m = worst_of({entries, published_measure(subject, model, summary)});
    } catch (const Refusal& refusal) {
      summary = fmt::format("published (003, d=16): not checked, the subject refuses d = 16 ({})", refusal.what());
    }
  }
  m.note = fmt::format("{}; entries against the {} reference", summary, name(layout));
  return m;
}

}  // namespace

PropertyDef reference_values() {
  return define<ReferenceCase>(
      {.id = "pe.reference_values",
       .family = "pe",
       .claim = "matches the reference formula p_t[2i] = sin(t·ω_i), p_t[2i+1] = cos(t·ω_i) (in the declared layout); "
                "d = 16: p_5·p_6 = p_105·p_106 = 7.4852, p_5·p_10 = 6.1370 (4 decimals, as published in 003)",
       .sources = kSources,
       .op = Op::encode,
       .expect = Expect::holds,
       .expect_for = {{"sinusoidal-halves", Expect::violated},
                      {"sinusoidal-scaled", Expect::violated},
                      {"learned", Expect::violated},
                      {"normalized", Expect::violated},
                      {"integer", Expect::violated}}},
      reference_gen, reference_measure);
}

}  // namespace pecheck::pe
