#pragma once
// summary.md: fit for a CI job summary — the matrix first, then failures with
// their minimal inputs, then the witnesses of expected violations. Bounded in
// size (well under GitHub's 1 MiB job-summary limit) whatever subjects send.
#include <string>

#include "pecheck/result/result.h"

namespace pecheck {

std::string write_markdown(const RunReport& report);

}  // namespace pecheck
