#pragma once
// The failures of a run in the order a person should read them: each cause
// (a failure no other failure of its subject explains) followed by the
// failures marked its consequences (PropertyResult::consequence_of, set by
// property/causes.h), causes in the run's order. Errors that no claim
// explains come in the run's order among the causes. Pure: the writers and
// the console read it.
#include <vector>

#include "pecheck/result/result.h"

namespace pecheck {

struct FailureGroup {
  const PropertyResult* cause;
  std::vector<const PropertyResult*> consequences;
};

std::vector<FailureGroup> cause_first(const std::vector<PropertyResult>& results);

// "a, b and c": the consequences' ids, for a one-line mention.
std::string consequence_ids(const FailureGroup& group);

}  // namespace pecheck
