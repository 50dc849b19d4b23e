#pragma once
// The error model's bound for one term in one dtype, as a property's judge
// computes it (result/judge.h, default factor): for tests that check a
// subject or a reference directly against the same error model.
#include "pecheck/result/judge.h"

namespace pecheck::testing {

inline double bound_in(Dtype dtype, double work, double scale) {
  SubjectInfo info;
  info.dtype = dtype;
  return BoundModel(ErrorModel{}, "test", info).value(Bound::upper(work, scale, ""));
}

}  // namespace pecheck::testing
