#include "attention/same_dtype.h"

#include <fmt/format.h>

#include <cmath>

#include "attention/conventions.h"
#include "pecheck/reference/attention.h"

namespace pecheck::attention {

std::optional<double> same_dtype_error(const SubjectInfo& subject, const Request& r) {
  if (subject.dtype == Dtype::float64) return 0.0;
  try {
    const Matrix exact = reference::attention(r.q, r.k, r.v, r.mask, r.heads, Dtype::float64, declared(subject));
    const Matrix rounded = reference::attention(r.q, r.k, r.v, r.mask, r.heads, subject.dtype, declared(subject));
    if (!exact.allFinite() || !rounded.allFinite()) return std::nullopt;
    return (rounded - exact).cwiseAbs().maxCoeff();
  } catch (const Refusal&) {
    return std::nullopt;
  }
}

void with_same_dtype(Bound& bound, const SubjectInfo& subject, const std::vector<Request>& requests) {
  double sum = 0;
  for (const auto& r : requests) {
    const auto e = same_dtype_error(subject, r);
    if (!e) return;
    sum += *e;
  }
  bound.same_dtype(sum, requests.size() == 1
                            ? fmt::format("the {} reference's own error", name(subject.dtype))
                            : fmt::format("the {} reference's own errors on the {} requests compared",
                                          name(subject.dtype), requests.size()));
}

}  // namespace pecheck::attention
