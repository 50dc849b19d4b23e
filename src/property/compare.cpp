#include "pecheck/property/compare.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "pecheck/subjects/subject.h"

namespace pecheck {

namespace {

double entry_error(double o, double e) {
  double err = std::fabs(o - e);
  if (std::isnan(err)) err = (o == e) ? 0 : std::numeric_limits<double>::infinity();
  if (std::isnan(o) || std::isnan(e)) err = std::numeric_limits<double>::infinity();
  return err;
}

// The entry where error / size is largest (size 1: the largest error).
template <class Size>
Check worst_entry(std::string name, const Matrix& observed, const Matrix& expected, Bound bound, Size size) {
  Check c;
  c.name = std::move(name);
  c.bound = std::move(bound);
  Eigen::Index worst_r = 0, worst_c = 0;
  double worst = -1, worst_error = 0;
  for (Eigen::Index r = 0; r < expected.rows(); ++r) {
    for (Eigen::Index col = 0; col < expected.cols(); ++col) {
      const double err = entry_error(observed(r, col), expected(r, col));
      const double s = size(r, col);
      const double ratio = err == 0 ? 0 : s > 0 ? err / s : std::numeric_limits<double>::infinity();
      if (ratio > worst) { worst = ratio; worst_error = err; worst_r = r; worst_c = col; }
    }
  }
  if (worst < 0) return c;  // empty: nothing differs
  c.error = worst_error;
  const double o = observed(worst_r, worst_c);
  if (std::isnan(o)) c.error = std::numeric_limits<double>::quiet_NaN();
  c.where.row = worst_r;
  c.where.column = worst_c;
  c.observed = number_to_json(o);
  c.expected = number_to_json(expected(worst_r, worst_c));
  return c;
}

}  // namespace

Check compare_entries(std::string name, const Matrix& observed, const Matrix& expected, Bound bound) {
  return worst_entry(std::move(name), observed, expected, std::move(bound),
                     [](Eigen::Index, Eigen::Index) { return 1.0; });
}

Check compare_entries_each(std::string name, const Matrix& observed, const Matrix& expected, const Matrix& scales,
                           Bound bound) {
  Check c = worst_entry(std::move(name), observed, expected, std::move(bound),
                        [&scales](Eigen::Index r, Eigen::Index col) { return scales(r, col); });
  if (c.where.row && c.where.column && !c.bound.terms.empty()) {
    c.bound.terms.front().typical_scale = scales(*c.where.row, *c.where.column);
  }
  return c;
}

double scalar_error(double observed, double expected) {
  return std::isinf(observed) && observed == expected ? 0 : std::fabs(observed - expected);
}

Check compare_scalars(std::string name, double observed, double expected, Bound bound, Location where) {
  Check c;
  c.name = std::move(name);
  c.bound = std::move(bound);
  c.error = scalar_error(observed, expected);
  c.where = std::move(where);
  c.observed = number_to_json(observed);
  c.expected = number_to_json(expected);
  return c;
}

void require_shape(const Matrix& m, Eigen::Index rows, Eigen::Index cols, std::string_view what) {
  if (m.rows() != rows || m.cols() != cols) {
    throw SubjectFailure(fmt::format("{} returned a {}×{} result, expected {}×{}", what, m.rows(), m.cols(), rows,
                                     cols));
  }
}

double max_abs(const Matrix& m) { return m.size() == 0 ? 0.0 : m.cwiseAbs().maxCoeff(); }

}  // namespace pecheck
