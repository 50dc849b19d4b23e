#pragma once
// Runs the selected properties against the subjects: the claims matrix.
#include <functional>
#include <string>
#include <vector>

#include "pecheck/property/property.h"
#include "pecheck/result/result.h"

namespace pecheck {

// Progress events, for the console (reporting is an observer, as in RapidCheck).
struct RunObserver {
  virtual ~RunObserver() = default;
  virtual void on_start(const PropertyInfo&, const SubjectInfo&) {}
  virtual void on_result(const PropertyResult&) {}
};

// True when `id` matches any of the shell-style globs (or when there are none).
bool matches_any(const std::string& id, const std::vector<std::string>& globs);

// Runs every applicable (property, subject) pair, subject by subject. After a
// subject fails (crash, hang, broken protocol) its remaining properties are
// recorded as skipped with the reason; results already obtained are kept.
std::vector<PropertyResult> run_matrix(const std::vector<const PropertyDef*>& properties,
                                       const std::vector<Subject*>& subjects, const RunConfig& config,
                                       RunObserver& observer);

SubjectSummary summarize(const SubjectInfo& info);

}  // namespace pecheck
