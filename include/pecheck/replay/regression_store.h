#pragma once
// The regression store, after Hypothesis's example database: every unexpected
// failure of a run is saved as a file, and the next run for the same
// property × subject replays the saved inputs first, before generating any
// case. A saved failure that still fails is the result at once (no case is
// generated); one that now holds is kept (a fixed bug may come back) and the
// run goes on to generate as usual. It is a step of the plan
// (runner/session.h): around each cell, and after the cells to save.
//
// Layout (documented in reports/README.md):
//   <dir>/<property>--<subject, file-safe>--<16 hex digits of FNV-1a(inputs)>.json
// each a counterexample file (format "pecheck-counterexample", replayable with
// `pecheck replay FILE`) plus "stored_at". Default dir: .pecheck/regressions.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "pecheck/replay/replay.h"
#include "pecheck/runner/session.h"

namespace pecheck {

// At most this many stored cases are replayed per property × subject (smallest first).
inline constexpr size_t kMaxRegressionsReplayed = 32;

struct StoredCase {
  std::filesystem::path file;
  RecordedCase recorded;
};

class RegressionStore final : public CellStep, public FinishStep {
 public:
  // Reads every entry of `dir` (a missing directory is an empty store).
  explicit RegressionStore(std::filesystem::path dir);

  const std::filesystem::path& dir() const { return dir_; }
  // The stored cases of this property × subject, smallest inputs first.
  std::vector<const StoredCase*> cases_for(std::string_view property, std::string_view subject) const;
  size_t size() const { return cases_.size(); }
  // Entries that could not be read, one line each (they are left in place).
  const std::vector<std::string>& problems() const { return problems_; }

  // Saves a counterexample record (counterexample_json) unless an entry with
  // the same inputs exists; returns the entry's path. Throws ReportWriteError.
  std::filesystem::path save(const json& record) const;

  // CellStep: replays the stored cases of the cell first.
  std::optional<PropertyResult> before(const PropertyDef& property, Subject& subject, const RunOptions& options,
                                       Expect expectation, PropertyResult& counts) override;
  // FinishStep: saves the run's unexpected failures (report.regressions_saved).
  void finish(Plan& plan, RunReport& report) override;

 private:
  std::filesystem::path dir_;
  std::vector<StoredCase> cases_;
  std::vector<std::string> problems_;
};

// <property>--<subject>--<hash>.json
std::string regression_file_name(std::string_view property, std::string_view subject, const json& inputs);

// Saves every unexpected failure of `report` that has a counterexample and
// did not come from the store. Returns the paths of entries written now.
std::vector<std::filesystem::path> save_regressions(const RegressionStore& store, const RunReport& report);

}  // namespace pecheck
