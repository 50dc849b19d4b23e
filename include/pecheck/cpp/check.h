#pragma once
// Checking an in-process C++ subject with the session library (runner/
// session.h): the cells its profile selects, running one, and the failure
// text a test framework shows. The Boost.Test front end (pecheck/boost_test.h)
// is a thin layer over this; it plans and runs exactly as `pecheck run` does,
// with no steps besides the cells (no regression store, plots or budgets: a
// test binary leaves no files behind).
#include <string>

#include "pecheck/runner/session.h"

namespace pecheck::cpp {

// The session's options: one type, one set of defaults.
using CheckOptions = RunOptions;

// The defaults overridden by the environment: PECHECK_SEED, PECHECK_CASES,
// PECHECK_MAX_POSITION, PECHECK_PROFILE, PECHECK_REPRODUCE. Throws
// std::invalid_argument for a malformed value.
RunOptions options_from_environment(RunOptions defaults = {});

// The cells of `subject` under `options` (its profile, scheme and the
// properties that apply, in registry order). Throws PlanError for an unknown profile.
PlannedSubject plan(SubjectPtr subject, const RunOptions& options);

// Runs one cell of a planned subject.
PropertyResult check_property(PlannedSubject& planned, const PropertyDef& property, const RunOptions& options);

// A failed or broken result as text: property, claim, inputs, the failing
// sub-check, where, observed, expected, error, bound, and how to rerun
// (`rerun` is the command prefix, e.g. "./my_test --run_test=suite/pe.bounded").
std::string failure_text(const PropertyResult& result, const PropertyInfo& property, const RunOptions& options,
                         const std::string& rerun);

}  // namespace pecheck::cpp
