#pragma once
// What the module tests share (header-only): fixed random token batches,
// the largest difference between the real rows of two answers, and the
// error model those differences are judged by.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>

#include "pecheck/core/dtype.h"
#include "pecheck/core/vocabulary.h"
#include "pecheck/gen/fast_random.h"

namespace pecheck::testing {

// B sequences of N tokens of width d, entries uniform in [−1, 1].
inline Batch random_batch(std::uint64_t seed, int sequences, int tokens, int width) {
  gen::FastRandom random(seed);
  Batch x;
  for (int b = 0; b < sequences; ++b) {
    Matrix m(tokens, width);
    for (int r = 0; r < tokens; ++r) {
      for (int c = 0; c < width; ++c) m(r, c) = random.uniform(-1, 1);
    }
    x.push_back(m);
  }
  return x;
}

inline std::vector<Positions> counting(int sequences, int tokens, Position from = 0) {
  Positions row(static_cast<size_t>(tokens));
  for (int r = 0; r < tokens; ++r) row[static_cast<size_t>(r)] = from + r;
  return std::vector<Positions>(static_cast<size_t>(sequences), row);
}

inline BoolMatrix all_real(int sequences, int tokens) { return BoolMatrix::Constant(sequences, tokens, true); }

// max |a(r, :) − b(r, :)| over the rows listed, rows_a[k] against rows_b[k].
inline double max_row_error(const Matrix& a, const std::vector<Eigen::Index>& rows_a, const Matrix& b,
                            const std::vector<Eigen::Index>& rows_b) {
  double worst = 0;
  for (size_t k = 0; k < rows_a.size(); ++k) {
    worst = std::max(worst, (a.row(rows_a[k]) - b.row(rows_b[k])).cwiseAbs().maxCoeff());
  }
  return worst;
}
inline double max_error(const Matrix& a, const Matrix& b) { return (a - b).cwiseAbs().maxCoeff(); }

// The error model of a float64 module evaluated twice on the same real
// tokens (reordered, padded, batched or decoded one by one): the two
// evaluations round differently, never more than
//     8 · u(float64) · depth · width · scale
// where depth is the number of stages whose errors add up along a path
// from input to output (norms, projections, logits, softmax, value mix,
// residuals, the MLP's layers: 12 for either block), width the longest
// inner sum of one stage (the MLP's hidden width), and scale the largest
// magnitude along the way (the output's, at least 1). 8 is the suite's
// default safety factor (core/tolerance.h).
struct ModuleErrorModel {
  int depth = 12;
  int width = 64;
  double bound(double scale) const {
    return 8 * unit_roundoff(Dtype::float64) * depth * width * std::max(1.0, scale);
  }
  std::string formula(double scale) const {
    return fmt::format("8·u(float64)·{}·{}·{:.3g} = {:.3g}", depth, width, std::max(1.0, scale), bound(scale));
  }
};

inline double magnitude(const Batch& y) {
  double m = 0;
  for (const auto& s : y) m = std::max(m, s.cwiseAbs().maxCoeff());
  return m;
}

// Measure, then judge: both log the measured error beside the bound.
// agrees: within the error model; differs: beyond 1000 times it (a bug,
// not rounding).
inline bool agrees(double error, double scale, const std::string& what = "") {
  const ModuleErrorModel model;
  BOOST_TEST_MESSAGE(what << (what.empty() ? "" : ": ") << "error " << error << ", bound " << model.formula(scale));
  return error <= model.bound(scale);
}
inline bool differs(double error, double scale, const std::string& what = "") {
  const ModuleErrorModel model;
  BOOST_TEST_MESSAGE(what << (what.empty() ? "" : ": ") << "error " << error << ", more than 1000 × "
                          << model.formula(scale) << "?");
  return error > 1e3 * model.bound(scale);
}

}  // namespace pecheck::testing
