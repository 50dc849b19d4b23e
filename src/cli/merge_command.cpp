// `pecheck merge DIR… --report-dir OUT`: the report directories of a sharded
// run (`pecheck run --shard I/N`, one per CI machine) joined into one report
// set equal to the unsharded run's apart from timings, exiting as that run
// would. Each shard's report.json is the source of truth; every format
// (counterexample files included, their replay paths pointing into OUT) is
// written again from the merged report. Shards of different runs (seed,
// options, selection, subjects), a shard given twice, a missing shard or a
// cell in the wrong shard are refused (exit 2), and so is a shard that
// contradicts itself (cli/shard_dir.h: a result whose status is not what its
// outcome and expectation give, a counterexample file its report does not
// account for): every status, count and the exit code are recomputed from
// the results, never taken from a shard.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "cli/merge_reports.h"
#include "cli/shard_dir.h"
#include "pecheck/core/bounded_file.h"
#include "pecheck/core/escape.h"
#include "pecheck/core/shell_quote.h"
#include "pecheck/report/console_writer.h"
#include "pecheck/report/report_files.h"
#include "pecheck/runner/session.h"

namespace pecheck::cli {

namespace {

namespace fs = std::filesystem;

// What the shards' report.json files may hold together: each is read whole
// (at most kMaxReportBytes), and the merge holds every shard's results.
constexpr std::uintmax_t kMaxMergedBytes = std::uintmax_t{2} << 30;

// Each directory read and checked on its own (cli/shard_dir.h).
std::vector<ShardReport> read_shards(const std::vector<std::string>& dirs) {
  std::vector<ShardReport> shards;
  std::uintmax_t total = 0;
  for (const auto& dir : dirs) {
    std::error_code ec;
    // A path that is not a regular file counts 0 here: its read refuses it.
    const std::uintmax_t size = fs::file_size(fs::path(dir) / "report.json", ec);
    total += ec ? 0 : size;
    if (total > kMaxMergedBytes) {
      throw MergeError(fmt::format("the shards' reports hold more than {} in all (at {}): pecheck merge reads at "
                                   "most that much",
                                   size_text(kMaxMergedBytes), dir));
    }
    try {
      shards.push_back({dir, read_shard_dir(dir)});
    } catch (const ShardDirError& e) {
      throw MergeError(e.what());
    }
  }
  return shards;
}

}  // namespace

int merge(const MergeOptions& options, const std::string& program) {
  RunReport report;
  try {
    report = merge_reports(read_shards(options.dirs));
  } catch (const MergeError& e) {
    // Its text quotes files anyone could have written: escaped for the terminal.
    std::cerr << "pecheck merge: " << escape_terminal(e.what()) << "\n";
    return kExitUsage;
  }
  (void)program;  // the rerun commands keep the program the shards recorded
  report.report_dir = options.report_dir;
  // The command of the unsharded run that writes where the merge writes.
  report.command = without_report_dir(report.command) + " --report-dir " + shell_quote(options.report_dir);
  for (const auto& r : report.results) {
    if (!options.quiet || r.status() != Status::passed) std::cout << progress_line(r) << "\n";
  }
  std::cout << write_console_matrix(report);
  try {
    const auto files = write_reports(options.report_dir, report);
    std::cout << fmt::format("merged {} shards: reports in {}/ ({} counterexample files)\n", options.dirs.size(),
                             options.report_dir, files.size() - 4);
  } catch (const ReportWriteError& e) {
    std::cerr << "pecheck merge: " << e.what() << "\n";
    return kExitUsage;
  }
  return report.exit_code;
}

}  // namespace pecheck::cli
