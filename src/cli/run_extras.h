#pragma once
// What `pecheck run` does around the claims matrix, kept out of
// run_command.cpp: the regression store (replayed first, saved after), the
// probe step that gathers plot data for report.html, the precision budgets
// (--budget), and GitHub annotation lines (--github-annotations N).
#include <deque>
#include <optional>
#include <vector>

#include "cli/commands.h"
#include "pecheck/property/property.h"
#include "pecheck/replay/regression_store.h"
#include "pecheck/result/result.h"
#include "pecheck/subjects/subject.h"

namespace pecheck::cli {

// The run's regression store, or nullopt when it is off: --no-regressions,
// PECHECK_NO_REGRESSIONS=1 in the environment (hermetic CI), or --reproduce
// (which asks for exactly one generated case).
std::optional<RegressionStore> open_regression_store(const RunOptions& options, const RunConfig& config);

// `properties` with each one's stored regressions replayed first; `keep` owns
// the wrapped copies the pointers refer to. Unchanged without a store.
std::vector<const PropertyDef*> regressions_first(const std::vector<const PropertyDef*>& properties,
                                                  const RegressionStore* store, std::deque<PropertyDef>& keep);

// Fills what the writers need beyond the results: the error model and
// directories, plot data from each encoder and rotary subject that did not
// fail, and (--budget) the precision budget of every structural property
// that held on such a subject.
void complete_report(RunReport& report, const std::vector<SubjectPtr>& subjects,
                     const std::vector<const PropertyDef*>& properties, const RunConfig& config,
                     const RunOptions& options, const RegressionStore* store);

// After the reports are written: saves the run's unexpected failures to the
// store, prints the budgets and (--github-annotations N) annotation lines.
void after_reports(const RunReport& report, const RegressionStore* store, const RunOptions& options);

}  // namespace pecheck::cli
