#include "pecheck/core/claim.h"

namespace pecheck {

std::string_view name(Expect e) { return e == Expect::holds ? "holds" : "violated"; }

Expect PropertyInfo::expectation(std::string_view scheme) const {
  auto it = expect_for.find(std::string(scheme));
  return it == expect_for.end() ? expect : it->second;
}

Expect PropertyInfo::expectation(std::string_view scheme, const SubjectInfo& subject) const {
  if (expect_for.contains(std::string(scheme))) return expectation(scheme);
  if (violated_by && violated_by(subject)) return Expect::violated;
  return expect;
}

}  // namespace pecheck
