#pragma once
// Helpers for planted-bug tests: run one property against a subject with the
// session's defaults (RunOptions, seed 1, 100 cases) and its expectation for
// the subject's scheme, through the same cell runner as `pecheck run`.
#include <string>

#include "pecheck/property/property.h"
#include "pecheck/result/result.h"
#include "pecheck/runner/options.h"

namespace pecheck::testing {

using QuickRun = RunOptions;

// Runs property `id` against the subject named by `spec` (builtin:…, mutant:…).
PropertyResult run_property(const std::string& id, const std::string& spec, QuickRun options = {});
PropertyResult run_property(const std::string& id, Subject& subject, QuickRun options = {});

}  // namespace pecheck::testing
