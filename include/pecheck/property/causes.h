#pragma once
// Cause first: when several claims of one subject fail, the claim built to
// isolate a convention (attention.gqa_grouping, attention.window_no_lookback,
// rope.pass_through, …) names the cause, and the structural claims that fail
// beside it (convex_combination, permutation equivariance, …) are its
// consequences. The table says which claim explains which (data, in priority
// order); the report marks each consequence with the claim that explains it,
// and every writer leads with the causes (issue 40).
#include <string_view>
#include <vector>

#include "pecheck/result/result.h"

namespace pecheck {

struct CauseRow {
  const char* cause;         // a claim id
  const char* consequences;  // space-separated globs of the claim ids its failure explains
};

const std::vector<CauseRow>& cause_table();  // properties/causes.cpp

// Sets `consequence_of` on every failed result that a failed cause
// of the same subject explains: the first such cause in table order, itself no
// consequence. Results keep their order.
void mark_consequences(std::vector<PropertyResult>& results);

}  // namespace pecheck
