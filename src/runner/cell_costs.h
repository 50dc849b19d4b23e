#pragma once
// What each cell of a run is expected to cost, so that parallel jobs take the
// costliest cells first and a run does not end on one long cell alone
// (longest-first scheduling). A cell's cost is the rate of its cases as
// measured the last time it ran without shrinking (a record beside the
// regression store, cell-costs.tsv), scaled to the cases asked now; a cell never measured is estimated from what
// its cases need: one that compares with fresh copies of its subject
// (history_independence: several subject instances a case) far above one that
// asks one instance, and a process subject (a round trip a case) above an
// in-process one. Costs change the order cells start in, never a result.
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "pecheck/core/claim.h"

namespace pecheck {

class CellCosts {
 public:
  // Reads `record` (a missing or unreadable one measures nothing; bad lines
  // are skipped: it is a cache); an empty path: no record, and save() does nothing.
  explicit CellCosts(std::filesystem::path record = {});

  // The expected seconds of `property` on the subject `spec` for `cases` cases.
  double estimate(const PropertyInfo& property, const SubjectSpec& spec, int cases) const;
  // A cell's measured seconds for `cases` cases (0 cases: not measured). Thread-safe.
  void measured(const std::string& property, const SubjectSpec& spec, int cases, double seconds);
  // Writes the record with every measurement, read or new (best effort).
  void save() const;

 private:
  using Key = std::pair<std::string, std::string>;  // property, subject key
  struct Measurement {
    int cases = 0;
    double seconds = 0;
  };
  std::filesystem::path record_;
  mutable std::mutex mutex_;
  std::map<Key, Measurement> cells_;
};

// The order in which jobs take the cells: costliest first (ties in planned
// order), except that the cells of one `serial` group (a subject that runs
// its cells one at a time on one instance: a value other than npos) keep
// their planned order among themselves, in the places the group's cells take.
std::vector<std::size_t> start_order(const std::vector<double>& costs, const std::vector<std::size_t>& serial);

}  // namespace pecheck
