#pragma once
// The edge where reports meet the file system.
//
// A run's report set — report.json, junit.xml, summary.md, report.html,
// counterexamples/*.json and the marker file .pecheck-report — replaces the
// previous set in the report directory DIR as one unit:
//
//   1. take the lock: flock(LOCK_EX) on PARENT/.NAME.lock, waiting at most
//      the lock wait (another run writing DIR finishes first); then fail
//      with ReportDirBusy;
//   2. remove leftovers of writers that were killed (PARENT/.NAME.new.* and
//      PARENT/.NAME.old.*; only writers holding the lock create them);
//   3. refuse DIR when it is not empty and not a report directory
//      (is_report_dir; ForeignReportDir), unless replace_foreign;
//   4. write the whole new set into the sibling PARENT/.NAME.new.PID.N,
//      every file fsync'ed, then the staging directory itself;
//   5. swap: rename(2) the staging directory to DIR when there is none, else
//      renameat2(RENAME_EXCHANGE) staging and DIR — one atomic step: DIR names
//      the old set until it names the new one; on a file system without
//      RENAME_EXCHANGE, DIR is renamed aside to PARENT/.NAME.old.PID and the
//      staging directory renamed to DIR (DIR is then missing for an instant,
//      never mixed);
//   6. fsync PARENT, remove the old set, release the lock.
//
// So at every instant DIR is entirely one run's, or (only with the fallback,
// for an instant) absent. A failure before step 5 (full disk, a signal, a
// kill -9) leaves the previous set untouched; its leftovers are removed by
// the next writer. A reader that opens files one by one by path can still
// straddle a swap; to read one run's set, open DIR once and read relative to
// that handle (openat: a swapped-out set's files vanish, they are never
// replaced by another run's), or hold report_dir_lock(DIR) with LOCK_SH.
//
// DIR is pecheck's: files people put into a report directory are replaced with
// it. A non-empty directory that pecheck did not write is never replaced
// unless the caller says so (replace_foreign).
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "pecheck/result/result.h"

namespace pecheck {

struct ReportWriteError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Another run held the report directory's lock for longer than the wait.
struct ReportDirBusy : ReportWriteError {
  using ReportWriteError::ReportWriteError;
};
// The directory is not empty and holds files pecheck did not write.
struct ForeignReportDir : ReportWriteError {
  using ReportWriteError::ReportWriteError;
};

// In every report set: {"format": "pecheck-report-dir", "run_id": ...}.
inline constexpr std::string_view kReportDirMarker = ".pecheck-report";
// The default lock wait; the environment's PECHECK_REPORT_LOCK_WAIT (seconds) replaces it.
inline constexpr double kReportLockWaitSeconds = 60;

// Writes `text` to `path` atomically (a unique temporary file in the same
// directory, fsync, rename): `path` holds the old text or the new, whole.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

struct ReportDirOptions {
  // How long to wait for another run writing the same directory; nullopt:
  // PECHECK_REPORT_LOCK_WAIT from the environment, else kReportLockWaitSeconds.
  std::optional<double> lock_wait_seconds;
  // Replace a non-empty directory that is not a report directory.
  bool replace_foreign = false;
  // Writes one file of the new set (into the staging directory); tests
  // inject a failing disk here. Default: write, fsync, close; throws
  // ReportWriteError.
  std::function<void(const std::filesystem::path&, const std::string&)> write_file;
};

// Replaces DIR's report set with `report`'s, as described above. A report
// without a run_id gets a fresh one (report.json, every counterexample file
// and the marker carry it). Returns the paths written under DIR: the
// counterexample files, then junit.xml, summary.md, report.html, report.json.
// Throws ReportWriteError (ReportDirBusy, ForeignReportDir).
std::vector<std::filesystem::path> write_reports(const std::filesystem::path& dir, const RunReport& report,
                                                 const ReportDirOptions& options = {});

// PARENT/.NAME.lock: writers hold it exclusively while they write and swap.
std::filesystem::path report_dir_lock(const std::filesystem::path& dir);

// Whether pecheck may replace `dir`: it does not exist, is empty, holds the
// marker, or holds nothing but an earlier pecheck's report files (from before
// the marker).
bool is_report_dir(const std::filesystem::path& dir);

// 32 hex digits from the system's random source.
std::string new_run_id();

}  // namespace pecheck
