// The diagnosis of a failed rotary check (pecheck/property/identify.h):
// the answers re-queried around the witness, sine and cosine measured apart,
// the usual suspects (identify/rotary_suspects.cpp) ranked, the verdict
// phrased (identify/search.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "angle_error.h"
#include "identify/rotary.h"
#include "identify/search.h"
#include "pecheck/property/compare.h"
#include "pecheck/reference/rotary.h"
#include "pecheck/subjects/typed_subject.h"
#include "rope/common.h"

namespace pecheck::identify {

namespace rotary {

namespace {

// The pairs whose angle per position differs from the declared one, in words.
std::string frequency_report(const Probe& p, const RotateConvention& declared, const Precision& precision) {
  if (declared.decoupled() || declared.rope_2d) return {};  // pairs read over the head as one block: not these
  const Reading reading = read(p, declared.layout, precision);
  if (reading.omegas.empty()) return {};
  std::vector<double> want;
  try {
    want = reference::rotary_inv_freq(reference::rotary_block(p.dim, declared), declared, p.seq_len);
  } catch (const Refusal&) {
    return {};
  }
  int first = -1, last = -1, worst = -1;
  double worst_factor = 1;
  for (size_t i = 0; i < std::min(want.size(), reading.omegas.size()); ++i) {
    const double tol = precision.bound(5, angle_work(1, want[i], frequency_work(declared)), 1);
    if (std::fabs(reading.omegas[i] - want[i]) <= tol) continue;
    if (first < 0) first = static_cast<int>(i);
    last = static_cast<int>(i);
    const double f = std::max(reading.omegas[i] / want[i], want[i] / std::max(reading.omegas[i], 1e-300));
    if (f > worst_factor) {
      worst_factor = f;
      worst = static_cast<int>(i);
    }
  }
  if (first < 0) return {};
  return fmt::format("; at d = {} pairs {}–{} turn at other frequencies than declared (pair {}: {:.4g} per position, "
                     "declared {:.4g})",
                     p.dim, first, last, worst, reading.omegas[static_cast<size_t>(worst)],
                     want[static_cast<size_t>(worst)]);
}

// The probe set of a diagnosis: the witness's width and the valid width
// nearest 128, at the witness's positions and a few more.
std::vector<Probe> diagnosis_probes(Subject& subject, int dim, const Positions& witness, Position seq_len) {
  const auto [ts, length] = detail::around_witness({0, 1, 2, 3, 7, 100, 1000}, witness, seq_len);
  std::vector<int> dims = {dim};
  const auto valid = rope::valid_dims(subject.info());
  if (!valid.empty()) {
    const int wide = *std::min_element(valid.begin(), valid.end(), [](int a, int b) {
      return std::abs(a - 128) < std::abs(b - 128);
    });
    if (wide != dim) dims.push_back(wide);
  }
  std::vector<Probe> out;
  std::uint64_t seed = 0xd1a9;
  const RotateConvention declared = rope::declared(subject.info());
  // A 2-D rotary: a row and a column per vector, apart (the columns the rows reversed).
  const std::vector<Positions> streams =
      declared.rope_2d ? std::vector<Positions>{ts, Positions(ts.rbegin(), ts.rend())} : std::vector<Positions>{};
  for (int d : dims) {
    if (auto p = ask(subject, d, ts, length, seed++, streams)) out.push_back(std::move(*p));
  }
  // LongRoPE: a sequence on each side of the original length, the early positions in both.
  if (declared.scaling.type == ScalingType::longrope) {
    const Position L = declared.scaling.original_max_position;
    Positions early;
    for (Position t : ts) {
      if (t < L) early.push_back(t);
    }
    if (!early.empty()) {
      for (Position at : {L, std::max(length, L + 1)}) {
        if (auto p = ask(subject, dim, early, at, seed++)) out.push_back(std::move(*p));
      }
    }
  }
  // Multi-axis: the three streams apart (t as drawn, h and w reordered).
  if (declared.multi_axis()) {
    std::vector<Positions> axes(declared.mrope_section.size(), ts);
    for (size_t a = 1; a < axes.size(); ++a) {
      std::reverse(axes[a].begin(), axes[a].end());
      if (a == 2) std::rotate(axes[a].begin(), axes[a].begin() + 1, axes[a].end());
    }
    if (auto p = ask(subject, dim, ts, length, seed++, axes)) out.push_back(std::move(*p));
  }
  return out;
}

// Whether sine and cosine turn at the same frequency: each probed pair's
// columns rotated alone (one row, x = e_a or e_b, at position 1): the column
// keeps cos θ_c, its partner gets sin θ_s. One angle per pair (a rotation at
// any precision, by any wrong angle or length) keeps cos² + sin² the same for
// every pair; cos and sin tables built from different frequencies do not. A
// pair that leaks into other columns (a layout slip) is no evidence: "" then,
// as when all agree.
std::string sin_cos_mismatch(Subject& subject, int dim, const RotateConvention& declared, const Precision& precision) {
  if (declared.decoupled() || declared.rope_2d) return {};  // one-stream requests over the head as one block
  int r = 0;
  std::vector<double> want;
  try {
    r = reference::rotary_block(dim, declared);
    want = reference::rotary_inv_freq(r, declared, 2);
  } catch (const Refusal&) {
    return {};
  }
  if (r < 4) return {};
  std::vector<int> pairs = {0, 1, 2, 3, r / 8, r / 4, r / 2 - 1};
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  const double m = reference::rotary_magnitude(declared);
  struct Read {
    int pair, column, partner;
    double c, s, length, bound;
  };
  std::vector<Read> reads;
  for (int i : pairs) {
    if (i < 0 || i >= r / 2) continue;
    const int a = reference::rotary_first_column(i, r, declared.layout);
    const int b = reference::rotary_second_column(i, r, declared.layout);
    const double bound = precision.bound(5, angle_work(1, want[static_cast<size_t>(i)], frequency_work(declared)), m);
    for (int column : {a, b}) {
      Matrix x = Matrix::Zero(1, dim);
      x(0, column) = 1;
      Matrix y;
      try {
        y = ask::rotate(subject, {1}, x, Position{2});
      } catch (const Refusal&) {
        return {};
      }
      if (y.rows() != 1 || y.cols() != dim) return {};
      const int partner = column == a ? b : a;
      for (int j = 0; j < dim; ++j) {  // only the pair's own two columns may change
        if (j != column && j != partner && std::fabs(y(0, j)) > bound) return {};
      }
      reads.push_back({i, column, partner, y(0, column), y(0, partner), std::hypot(y(0, column), y(0, partner)), bound});
    }
  }
  if (reads.size() < 2) return {};
  const auto [low, high] = std::minmax_element(reads.begin(), reads.end(),
                                               [](const Read& p, const Read& q) { return p.length < q.length; });
  if (!(high->length - low->length > 4 * (high->bound + low->bound))) return {};
  // The pair furthest from the others' length names it.
  const Read& odd = std::fabs(high->length - m) > std::fabs(low->length - m) ? *high : *low;
  const double tc = std::acos(std::clamp(odd.c / m, -1.0, 1.0)), ts = std::asin(std::clamp(std::fabs(odd.s) / m, 0.0, 1.0));
  return fmt::format("sine and cosine turn at different frequencies: at position 1, pair {} rotates column {} by "
                     "cos({:.6g}) and sin({:.6g}) (declared ω = {:.6g}), so cos² + sin² = {:.6g}, not {:g} as for "
                     "other pairs — the cos and sin tables are built from different frequencies (e.g. one from "
                     "cat(freqs, freqs), the other from repeat_interleave, or from another index)",
                     odd.pair, odd.column, tc, ts, want[static_cast<size_t>(odd.pair)], odd.length * odd.length / (m * m),
                     1.0);
}

// Where frequencies rounded to `lower` show most: the pair whose ω moves
// most, at a position where t·Δω reaches about π (at most kFarthest), measured
// on the subject against the declared rotation: the margin by which the
// defect fails, not the shrunk witness's, which sits at the edge by design.
std::string rounding_margin(Subject& subject, int dim, const RotateConvention& declared, Dtype lower,
                            const Precision& precision) {
  if (declared.decoupled() || declared.rope_2d) return {};
  constexpr Position kFarthest = 8192;
  int r = 0;
  std::vector<double> omegas;
  try {
    r = reference::rotary_block(dim, declared);
    omegas = reference::rotary_inv_freq(r, declared, kFarthest + 1);
  } catch (const Refusal&) {
    return {};
  }
  int worst = -1;
  double delta = 0;
  for (size_t i = 0; i < omegas.size(); ++i) {
    const double d = std::fabs(round_to(lower, omegas[i]) - omegas[i]);
    if (d > delta) {
      delta = d;
      worst = static_cast<int>(i);
    }
  }
  if (worst < 0) return {};
  const auto t = static_cast<Position>(std::min<double>(kFarthest, std::max(1.0, std::floor(std::numbers::pi / delta))));
  const int a = reference::rotary_first_column(worst, r, declared.layout);
  const int b = reference::rotary_second_column(worst, r, declared.layout);
  Matrix x = Matrix::Zero(1, dim);
  x(0, a) = 1;
  Matrix y;
  try {
    y = ask::rotate(subject, {t}, x, t + 1);
  } catch (const Refusal&) {
    return {};
  }
  if (y.rows() != 1 || y.cols() != dim) return {};
  const double w = omegas[static_cast<size_t>(worst)], m = reference::rotary_magnitude(declared);
  const double theta = static_cast<double>(t) * w;
  const double error = std::max(std::fabs(y(0, a) - m * std::cos(theta)), std::fabs(y(0, b) - m * std::sin(theta)));
  const double bound = precision.bound(5, angle_work(static_cast<double>(t), w, frequency_work(declared)), m);
  if (!(bound < 2 * m)) return {};  // no position here that a correct subject's precision resolves
  return fmt::format("; where it shows most, pair {} (ω = {:.6g} rounds to {:.6g}) at position {}, the answer is off "
                     "by {:.3g}, {:.3g}× its bound {:.3g}",
                     worst, w, round_to(lower, w), t, error, error / bound, bound);
}

// What scheme_suspects tried for the declared scheme, in the words "no usual suspect" lists.
std::string scheme_ruled_out(const RotateConvention& declared) {
  std::string out;
  switch (declared.scaling.type) {
    case ScalingType::llama3: out += ", Llama 3's bands swapped, its smoothing reversed, its boundary L"; break;
    case ScalingType::yarn: out += ", YaRN's attention factor, its range rounded or not"; break;
    case ScalingType::longrope: out += ", LongRoPE's factor sets and their switch"; break;
    default: break;
  }
  if (!declared.freq_factors.empty()) out += ", freq_factors ignored or multiplied";
  if (declared.multi_axis()) out += ", the axes' sections";
  if (declared.decoupled()) out += ", the slice that turns, the nope features zeroed";
  if (declared.rope_2d) out += ", rows and columns swapped, the frequency split, a 64-patch table";
  return out;
}


// The witness's own request (dim, positions, seq_len), asked again when the
// declared convention fits the probes.
struct Witness {
  int dim = 0;
  const Positions& positions;
  Position seq_len = 1;
};

// The diagnosis of a failed rotary check (identify/search.h).
struct RotaryDiagnosis {
  using Hypothesis = rotary::Hypothesis;
  Subject& subject;
  RotateConvention convention;  // the declared one
  std::vector<Probe> probes;
  Precision precision;
  Witness witness;

  std::string measured() const { return sin_cos_mismatch(subject, widest(probes).dim, convention, precision); }
  std::vector<Hypothesis> suspects() const { return rotary::suspects(convention, subject.info(), probes, precision); }
  Score score(const Hypothesis& h) const { return rotary::score(h, probes, precision, subject.info().dtype); }
  std::string declared() const { return describe(convention); }

  // Only when it fits the probes: the witness's own request, asked again,
  // tells whether its difference repeats there (an answer that depends on the
  // request's length or company) or not at all (on earlier requests).
  std::optional<std::string> declared_first(const detail::Ranked<Hypothesis>& best, const std::string& probed) const {
    if (best.score.ratio > 1) return std::nullopt;
    if (auto own = ask(subject, witness.dim, witness.positions, witness.seq_len, 0x0e11)) {
      const Score again = rotary::score(best.hypothesis, {*own}, precision, subject.info().dtype);
      if (again.ratio > 1) {
        return fmt::format("the declared convention ({}) explains the re-queried answers ({}) but not the witness's "
                           "own request asked again (seq_len {}): off by {:.3g}× its bound at {} — the answer depends "
                           "on the request's length, on the positions asked with it or on earlier requests (a cos/sin "
                           "cache sized, clamped or grown by another length?)",
                           declared(), probed, witness.seq_len, again.ratio, again.where);
      }
    }
    return fmt::format("the declared convention ({}) explains the re-queried answers ({}) and the witness's own "
                       "request asked again: the witness's difference did not repeat (an answer that depends on "
                       "earlier requests?)",
                       declared(), probed);
  }
  std::string explained_tail(const Hypothesis& best) const {
    if (!best.frequencies) return {};
    return rounding_margin(subject, widest(probes).dim, convention, *best.frequencies, precision);
  }
  std::string ruled_out() const {
    return "ruled out base, exponent, layout, direction, rotary width, scaling, position offset, a cos/sin cache too "
           "short, sine/cosine, angle precision, identity" +
           scheme_ruled_out(convention);
  }
  std::string unexplained_tail(const detail::Ranked<Hypothesis>& best) const {
    return frequency_report(widest(probes), convention, precision) +
           (best.hypothesis.words == detail::kDeclared
                ? " — nothing fits better than what is declared: answers that depend on earlier requests (a "
                  "cos/sin cache grown or rebuilt by another length) read so; history_independence tells"
                : "");
  }
};
static_assert(detail::DiagnosisSearch<RotaryDiagnosis>);

}  // namespace

}  // namespace rotary

std::string diagnose_rotary(Subject& subject, const BoundModel& model, int dim, const Positions& positions,
                            Position seq_len) {
  rotary::RotaryDiagnosis search{subject, rope::declared(subject.info()),
                                 rotary::diagnosis_probes(subject, dim, positions, seq_len), detail::Precision::of(model),
                                 {dim, positions, seq_len}};
  return detail::diagnose_with(search);
}

}  // namespace pecheck::identify
