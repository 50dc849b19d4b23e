#pragma once
// The bound that follows the computation actually done (issue 36).
//
// The error model's worst case (core/tolerance.h) grows with the work of a
// computation, N roundings for a sum of N terms; real rounding errors of a
// sum grow like √N (Higham & Mary 2019, "A new approach to probabilistic
// rounding error analysis"), so at real sizes the worst case is tens of
// times looser than any correct implementation's error, and a bug smaller
// than it (one key of 4,096 rolled out early) is green. A check may carry a
// tight bound beside its worst case (result/check.h, Bound::tight); the judged
// bound is the smaller of the two, so the worst case stays a ceiling:
//
//   same-dtype:    2 × e_ref + λ_floor · Σ u · √work · scale  + fixed
//     e_ref = max |pecheck's reference in the subject's dtype − in float64|
//     over the compared entries: the rule kernel test suites use (an output
//     within twice the error of a same-dtype reference, plus a floor), the
//     floor covering a correct implementation whose rounding order differs
//     from the reference's (its size is the typical, √work, one).
//   probabilistic: factor · Σ u · w · scale + fixed, w = √(paths · work) for
//     a term of independent roundings in a precision of float32 or finer,
//     else the worst case's work: a 16-bit sum of many terms stagnates (its
//     rounding errors share a sign once the partial sum dwarfs the terms),
//     and an angle's error grows deterministically with the position.
//   In both, `work` and `scale` are a term's typical ones where it has them
//   and is rooted (or is an angle): BoundTerm::typical_work, typical_scale.
//
// Both are data: the multiple and the floor's λ are here, printed in every
// formula; `factor` is the error model's (--tolerance-factor).
#include <optional>
#include <string>

#include "pecheck/result/check.h"

namespace pecheck {

class BoundModel;

inline constexpr double kSameDtypeMultiple = 2;  // error ≤ 2 × the same-dtype reference's error + floor
inline constexpr double kFloorLambda = 2;        // the floor: λ · Σ u · √work · scale

struct TightValue {
  double bound = 0;
  std::string formula;
  std::string judged_by;  // "same-dtype reference" or "probabilistic"
};

// The tight bound of `bound` under `model` (its dtypes and factor), or
// nullopt where the bound carries none (or is not an upper bound).
std::optional<TightValue> tight_value(const BoundModel& model, const Bound& bound);
// Its value alone, without the words (what the judge asks of every case).
std::optional<double> tight_bound_value(const BoundModel& model, const Bound& bound);

}  // namespace pecheck
