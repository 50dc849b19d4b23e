#pragma once
// The same-dtype reference of the attention claims (issue 36,
// result/tight_bound.h): pecheck's reference evaluated in the subject's dtype
// (reference::attention rounds every stage to it: float32 natively, float16
// and bfloat16 simulated) against float64, on the very request the subject
// was sent. Twice its error plus a floor is the tight bound; the worst case
// (support.h's output_bound) stays the ceiling.
#include <optional>
#include <vector>

#include "pecheck/core/matrix.h"
#include "pecheck/core/vocabulary.h"
#include "pecheck/result/check.h"

namespace pecheck::attention {

// One request the compared answers came from.
struct Request {
  const Matrix& q;
  const Matrix& k;
  const Matrix& v;
  AttentionMask mask;
  int heads = 1;
};

// max |reference in the subject's dtype − in float64| over every entry of
// the request's answer, under the declared convention (0 for a float64
// subject); nullopt where the reference refuses the request or either
// answer is not finite.
std::optional<double> same_dtype_error(const SubjectInfo& subject, const Request& request);

// Attaches the same-dtype bound to `bound`: the sum of the errors of every
// request whose answers the check compares. Leaves the worst case alone
// where one of them has none.
void with_same_dtype(Bound& bound, const SubjectInfo& subject, const std::vector<Request>& requests);

}  // namespace pecheck::attention
