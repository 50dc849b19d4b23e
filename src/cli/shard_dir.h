#pragma once
// One shard's report directory, read for `pecheck merge` as untrusted input
// (docs/reports-and-merge.md): report.json through the checked reader
// (bounded, strict, every result as pecheck writes it), and the rest of the
// set checked against it — the marker's run_id is the report's, and when the
// directory has its counterexamples/ folder, it holds exactly one file per
// result with a counterexample, each what pecheck writes for that result
// (a file the report no longer accounts for, e.g. after its result was
// edited to `passed`, is refused rather than dropped). A shard of this
// pecheck version must also list its properties as this pecheck's registry
// has them (an edited claim or expectation is refused).
#include <stdexcept>
#include <string>

#include "pecheck/result/result.h"

namespace pecheck::cli {

struct ShardDirError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Reads and checks DIR; throws ShardDirError naming the file and the problem.
RunReport read_shard_dir(const std::string& dir);

}  // namespace pecheck::cli
