#pragma once
// One property × one subject on top of RapidCheck: generate, measure, judge,
// shrink, and the result as a value. Nothing is scraped from text output.
#include <cstdint>
#include <string>
#include <string_view>

#include "pecheck/property/property.h"
#include "pecheck/result/result.h"
#include "pecheck/runner/options.h"

namespace pecheck {

// The seed of one property × subject: stable across selections and runs.
std::uint64_t derive_seed(std::uint64_t seed, std::string_view property, std::string_view subject);

// What `property` is expected to do on a subject judged as `scheme` (a
// built-in's scheme or a profile), with the options' per-property overrides.
Expect expectation_for(const PropertyInfo& property, std::string_view scheme, const RunOptions& options);
// The same for `subject`, whose declared conventions may make the claim false
// (PropertyInfo::violated_when).
Expect expectation_for(const PropertyInfo& property, std::string_view scheme, const RunOptions& options,
                       const SubjectInfo& subject);

// Runs one cell. A subject failure, a give-up or an internal error is an
// outcome, never an exception.
PropertyResult run_cell(const PropertyDef& property, Subject& subject, const RunOptions& options, Expect expectation);

// A subject's exception as the record a report keeps.
SubjectFailureInfo failure_info(const SubjectFailure& failure);

}  // namespace pecheck
