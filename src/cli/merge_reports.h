#pragma once
// The core of `pecheck merge`, apart from the file system: the reports of
// a sharded run's shards, each already read and checked on its own
// (cli/shard_dir.h), checked to be one whole run — the same seed, options,
// selection and subjects, every shard once, every cell in its own shard —
// and joined into the report the unsharded run writes, apart from timings.
// Statuses, counts and the exit code are recomputed from the results.
#include <stdexcept>
#include <string>
#include <vector>

#include "pecheck/result/result.h"

namespace pecheck::cli {

struct MergeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ShardReport {
  std::string dir;  // where it was read from, for messages
  RunReport report;
};

// Throws MergeError naming the shard and what makes it not part of the run.
RunReport merge_reports(std::vector<ShardReport> shards);

// The recorded command without its --report-dir (each shard writes its own):
// " --report-dir X" or "=X", X quoted '…' or a word.
std::string without_report_dir(const std::string& command);

}  // namespace pecheck::cli
