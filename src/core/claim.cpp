#include "pecheck/core/claim.h"

namespace pecheck {

std::string_view name(Expect e) { return e == Expect::holds ? "holds" : "violated"; }

Expect PropertyInfo::expectation(std::string_view scheme) const {
  auto it = expect_for.find(std::string(scheme));
  return it == expect_for.end() ? expect : it->second;
}

}  // namespace pecheck
