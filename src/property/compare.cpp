#include "pecheck/property/compare.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "pecheck/subjects/subject.h"

namespace pecheck {

Measurement compare_entries(const Matrix& observed, const Matrix& expected, Tolerance tolerance,
                            std::string_view row_name) {
  Measurement m;
  m.tolerance = std::move(tolerance);
  Eigen::Index worst_r = 0, worst_c = 0;
  double worst = -1;
  for (Eigen::Index r = 0; r < expected.rows(); ++r) {
    for (Eigen::Index c = 0; c < expected.cols(); ++c) {
      const double o = observed(r, c), e = expected(r, c);
      double err = std::fabs(o - e);
      if (std::isnan(err)) err = (o == e) ? 0 : std::numeric_limits<double>::infinity();
      if (std::isnan(o) || std::isnan(e)) err = std::numeric_limits<double>::infinity();
      if (err > worst) { worst = err; worst_r = r; worst_c = c; }
    }
  }
  if (worst < 0) return m;  // empty
  m.error = worst;
  const double o = observed(worst_r, worst_c);
  if (std::isnan(o)) m.error = std::numeric_limits<double>::quiet_NaN();
  m.where = fmt::format("{} {}, column {}", row_name, worst_r, worst_c);
  m.observed = number_to_json(o);
  m.expected = number_to_json(expected(worst_r, worst_c));
  return m;
}

Measurement compare_scalars(double observed, double expected, Tolerance tolerance, std::string where) {
  Measurement m;
  m.tolerance = std::move(tolerance);
  m.error = std::fabs(observed - expected);
  if (std::isinf(observed) && observed == expected) m.error = 0;
  m.where = std::move(where);
  m.observed = number_to_json(observed);
  m.expected = number_to_json(expected);
  return m;
}

void require_shape(const Matrix& m, Eigen::Index rows, Eigen::Index cols, std::string_view what) {
  if (m.rows() != rows || m.cols() != cols) {
    throw SubjectFailure(fmt::format("{} returned a {}×{} result, expected {}×{}", what, m.rows(),
                                     m.cols(), rows, cols));
  }
}

double max_abs(const Matrix& m) { return m.size() == 0 ? 0.0 : m.cwiseAbs().maxCoeff(); }

}  // namespace pecheck
