#pragma once
// Named comparisons, in the manner of Eigen's test helpers: each returns one
// sub-check saying where the largest error is, what was observed there and
// what was expected, with the bound it is to be judged against (result/check.h).
#include <string>

#include "pecheck/core/matrix.h"
#include "pecheck/result/check.h"

namespace pecheck {

// Largest |observed − expected| over all entries (a NaN entry counts as an
// infinite error and wins); the location names its row and column.
Check compare_entries(std::string name, const Matrix& observed, const Matrix& expected, Bound bound);
// The same where each entry's rounding has its own size (`scales`, one per
// entry: what its products and partial sums reach): the entry reported is the
// one with the largest |observed − expected| / scale, and its scale becomes
// the first term's typical_scale, so the tight bound judges every entry
// against its own size (a worst case that holds for the largest holds for it).
Check compare_entries_each(std::string name, const Matrix& observed, const Matrix& expected, const Matrix& scales,
                           Bound bound);
// The same for two scalars, at `where`; its error is scalar_error's.
Check compare_scalars(std::string name, double observed, double expected, Bound bound, Location where);
// |observed − expected|, 0 where both are the same infinity (NaN where either is NaN).
double scalar_error(double observed, double expected);

// Throws SubjectFailure when a subject returned the wrong shape (a broken
// protocol, not a property violation).
void require_shape(const Matrix& m, Eigen::Index rows, Eigen::Index cols, std::string_view what);

// max_i |x_i| (0 for an empty matrix); the reference scale of many bounds.
double max_abs(const Matrix& m);

}  // namespace pecheck
