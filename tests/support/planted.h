#pragma once
// Helpers for planted-bug tests: run one property against a subject with a
// fixed seed and small budget, and assert on the outcome.
#include <string>

#include "pecheck/property/property.h"
#include "pecheck/result/result.h"

namespace pecheck::testing {

struct QuickRun {
  int cases = 100;
  std::uint64_t seed = 1;
  Position max_position = 10000;
};

// Runs property `id` against the subject named by `spec` (builtin:…, mutant:…).
PropertyResult run_property(const std::string& id, const std::string& spec, QuickRun options = {});
PropertyResult run_property(const std::string& id, Subject& subject, QuickRun options = {});

}  // namespace pecheck::testing
