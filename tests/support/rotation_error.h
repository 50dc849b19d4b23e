#pragma once
// Header-only helpers for the reference tests: reproducible random inputs and
// the error bound of one computed rotation, from the project's error model.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "pecheck/core/matrix.h"
#include "pecheck/core/tolerance.h"
#include "support/bounds.h"
#include "pecheck/gen/fast_random.h"

namespace pecheck::testing {

// Entries uniform in [lo, hi), the same for the same seed.
inline Matrix random_matrix(Eigen::Index rows, Eigen::Index cols, std::uint64_t seed, double lo = -4.0,
                            double hi = 4.0) {
  gen::FastRandom r(seed);
  Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j) m(i, j) = r.uniform(lo, hi);
  return m;
}

inline double max_abs_diff(const Matrix& a, const Matrix& b) { return (a - b).cwiseAbs().maxCoeff(); }

// The bound on one entry of R_t x computed with values in `values` and
// angles in `angles` (ErrorModel's default factor): the value path rounds 5
// times (x, the table cast, a product, the other product, the sum), each
// relative to the pair's size 2·max|x|; the angle path rounds t, ω and their
// product, an error of u·|θ| ≤ u·|t| in θ (ω_0 = 1 is the largest frequency),
// which moves the entry by that times the pair's size.
inline double rotation_bound(Dtype values, Dtype angles, Position t, double max_abs_x, double magnitude = 1.0) {
  const double scale = 2 * max_abs_x * std::max(1.0, magnitude);
  const double value_part = bound_in(values, 5, scale);
  const double angle_part =
      bound_in(angles, 3 + 3 * std::fabs(static_cast<double>(t)), scale);
  return value_part + angle_part;
}

}  // namespace pecheck::testing
