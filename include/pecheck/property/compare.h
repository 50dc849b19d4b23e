#pragma once
// Named comparisons, in the manner of Eigen's test helpers: each returns a
// Measurement saying where the largest error is, what was observed there and
// what was expected, judged against the tolerance passed in.
#include <string_view>

#include "pecheck/core/matrix.h"
#include "pecheck/result/measurement.h"

namespace pecheck {

// Largest |observed − expected| over all entries; a NaN entry counts as an
// infinite error and wins. `row_name` names rows in `where` ("position", "token").
Measurement compare_entries(const Matrix& observed, const Matrix& expected, Tolerance tolerance,
                            std::string_view row_name = "row");
// The same for two scalars, with `where` given.
Measurement compare_scalars(double observed, double expected, Tolerance tolerance, std::string where);

// Throws SubjectFailure when a subject returned the wrong shape (a broken
// protocol, not a property violation).
void require_shape(const Matrix& m, Eigen::Index rows, Eigen::Index cols, std::string_view what);

// max_i |x_i| (0 for an empty matrix); the reference scale of many bounds.
double max_abs(const Matrix& m);

}  // namespace pecheck
