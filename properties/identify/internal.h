#pragma once
// The parts of the diagnosis (pecheck/property/identify.h) that its files
// share: the precision a fit is judged at, deterministic probe vectors, and
// the ranking of hypotheses by their worst error / bound.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "pecheck/property/identify.h"

namespace pecheck::identify::detail {

// What a fit's bounds are made of: the tolerance factor and the unit
// roundoff of each stage (BoundModel's, without a configured fixed bound: a
// diagnosis explains, it does not judge).
struct Precision {
  double factor = kDefaultToleranceFactor;
  double u_values = 0, u_angles = 0;
  static Precision of(const BoundModel& model) {
    return {model.factor(), model.u(Stage::values), model.u(Stage::angles)};
  }
  // factor · (u_values · values_work + u_angles · angle_work) · scale
  double bound(double values_work, double angle_work, double scale) const {
    return factor * (u_values * values_work + u_angles * angle_work) * scale;
  }
};

// Rows of probe vectors, entries uniform in [-4, 4], the same for the same seed.
Matrix probe_vectors(Eigen::Index rows, int dim, std::uint64_t seed);

// error / bound, infinite past a zero bound, NaN as infinite.
inline double ratio(double error, double bound) {
  if (std::isnan(error)) return std::numeric_limits<double>::infinity();
  if (bound > 0) return error / bound;
  return error > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

// A hypothesis's verdict over all probes.
struct Score {
  double ratio = 0;        // the worst entry's error / bound (inf: it cannot predict some probe)
  std::string where;       // that entry, in words
  bool usable = true;      // it predicted every probe
};

// "0 to 3000" and the widths, for the sentence that says what was probed.
std::string span_of(const std::vector<Positions>& positions, const std::vector<int>& dims);
// The same for probes (anything with `positions` and `dim`).
template <class Probe>
std::string span_of(const std::vector<Probe>& probes) {
  std::vector<Positions> positions;
  std::vector<int> dims;
  for (const auto& p : probes) {
    positions.push_back(p.positions);
    if (std::find(dims.begin(), dims.end(), p.dim) == dims.end()) dims.push_back(p.dim);
  }
  return span_of(positions, dims);
}

// The widest probe (fits read best there).
template <class Probe>
const Probe& widest(const std::vector<Probe>& probes) {
  return *std::max_element(probes.begin(), probes.end(), [](const Probe& a, const Probe& b) { return a.dim < b.dim; });
}

template <class Hypothesis>
struct Ranked {
  Hypothesis hypothesis;
  Score score;
};

// The hypotheses with their scores, best (smallest worst ratio) first; ties
// keep the order given, so the plainest explanation listed first wins.
template <class Hypothesis, class ScoreOf>
std::vector<Ranked<Hypothesis>> rank(const std::vector<Hypothesis>& hypotheses, ScoreOf score_of) {
  std::vector<Ranked<Hypothesis>> out;
  for (const auto& h : hypotheses) out.push_back({h, score_of(h)});
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.score.ratio < b.score.ratio; });
  return out;
}

// Rounds to `digits` significant digits (a fitted base is named, not printed to 17 digits).
double round_significant(double value, int digits);
// True when a and b agree to a relative `tolerance`.
inline bool near(double a, double b, double tolerance) {
  return std::fabs(a - b) <= tolerance * std::max(std::fabs(a), std::fabs(b));
}

// The common bases real code uses (rope_theta and the sinusoid's 10000).
inline constexpr double kCommonBases[] = {1000, 10000, 100000, 500000, 1000000};

// Rotary and encoder identification (identify/rotary.cpp, identify/encoder.cpp).
Identification identify_rotary(Subject& subject, const Precision& precision, Position max_position);
Identification identify_encoder(Subject& subject, const Precision& precision, Position max_position);
// Attention's scale, cap, window or chunk, alignment and grouping (identify/attention.cpp).
Identification identify_attention(Subject& subject, const Precision& precision);

}  // namespace pecheck::identify::detail
