#pragma once
// Generators for matrices. Values come from one 64-bit seed and a fast PRNG
// (generation is on the hot path: a RapidCheck generator per entry would cost
// ~100× the arithmetic being checked); shrinking is lazy and only runs on a
// failure: all zeros, then whole integers, then entry by entry toward 0 and
// toward small integers — a counterexample a person reads at a glance.
#include <rapidcheck.h>

#include "pecheck/core/matrix.h"

namespace pecheck::gen {

// rows × cols, entries uniform in [lo, hi].
rc::Gen<Matrix> matrix(Eigen::Index rows, Eigen::Index cols, double lo, double hi);
// rows × cols, entries uniform integers in [lo, hi] (for exact-arithmetic claims).
rc::Gen<Matrix> integer_matrix(Eigen::Index rows, Eigen::Index cols, int lo, int hi);
// rows × cols booleans, each true with probability 1/2, shrinking toward all true.
rc::Gen<BoolMatrix> bool_matrix(Eigen::Index rows, Eigen::Index cols);

// The shrink candidates of a matrix, in the order described above.
rc::Seq<Matrix> shrink_matrix(Matrix m);

}  // namespace pecheck::gen
