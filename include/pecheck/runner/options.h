#pragma once
// The options of a run, with the one set of defaults every front end starts
// from: the CLI (and pecheck.toml over it), the C++/Boost.Test adapter and
// the tests.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pecheck/core/claim.h"
#include "pecheck/core/json.h"
#include "pecheck/core/matrix.h"
#include "pecheck/core/tolerance.h"

namespace pecheck {

inline constexpr const char* kDefaultRegressionDir = ".pecheck/regressions";

// One of `total` shards (GoogleTest's convention: index 0-based, 0 ≤ index < total).
struct ShardSpec {
  int index = 0;
  int total = 1;
};

// How far a running cell has got, for a live progress line on a terminal.
struct CellProgress {
  std::string_view property;
  std::string_view subject;               // the spec
  int cases = 0;                          // cases judged so far
  int planned = 0;                        // cases asked for
  int shrinks = 0;                        // shrink steps accepted (after a failure)
  int refused = 0;                        // inputs the subject refused so far
  double seconds = 0;
  // Set (once per cell) when the cell runs slower than expected: why, in a sentence.
  std::string_view slow;
};

struct RunOptions {
  // What is checked.
  std::vector<std::string> subjects;      // specs; none: every built-in of the claims matrix
  std::vector<std::string> properties;    // globs over property ids; none: every property
  std::string profile;                    // what the subjects must satisfy; empty: by subject
  std::map<std::string, Expect> expectations;  // per property id, over any scheme (pecheck.toml [expect])
  // Declarations laid over a subject's own (pecheck.toml [subject."SPEC"]):
  // spec → a hello's dtype/layout/compute/params, for subjects that cannot
  // declare themselves (a plugin, a built-in judged under another convention).
  std::map<std::string, json> declarations;
  // Where those declarations are written: spec → dotted field path → "pecheck.toml:14" ("" → the
  // table's own line), so a declaration refused at plan time is reported at its file and line.
  std::map<std::string, std::map<std::string, std::string>> declaration_lines;
  std::map<std::string, Position> subject_max_position;  // spec → its own gate ([subject."SPEC"] max_position)
  // A model's config.json laid over every subject as params.model, after the declarations above
  // (--model-config, pecheck.toml's model_config): SUBJECT-PROTOCOL.md "Model configs".
  std::string model_config;

  // How it is checked.
  std::uint64_t seed = 1;                 // each property × subject derives its own from it
  int cases = 100;                        // successful cases required per property × subject
  int max_size = 100;                     // RapidCheck's size bound
  bool shrink = true;
  // Draw every case at max_size (the generators' full stated ranges) instead
  // of RapidCheck's ramp from small to full size. The ramp finds small,
  // readable failures first; the full size is what the benchmark measures.
  bool fixed_size = false;
  Position max_position = 10000;          // largest position generated (the context length verified)
  int max_width = 0;                      // largest width generated; 0: each property's own range
  int history = 0;                        // --history: also a script of this many requests; 0: the ladder's
  ErrorModel error_model;                 // factor, per-property factors and fixed bounds
  std::string reproduce;                  // a RapidCheck reproduce string: rerun exactly that case
  double subject_timeout = 10;            // seconds a process subject has per request
  // Cases a subject that declared "batch" is sent at most in one request
  // (look-ahead, runner/lookahead.h; the results do not depend on it); 1: one request per case.
  int batch = 256;
  std::string executable;                 // a pecheck that can `serve`: plugins then run in a child
  // Use the fork declaration of subjects that make one (SubjectOptions::fork);
  // false (--no-fork): start every instance and fresh copy afresh.
  bool fork = true;
  // A cell whose search meets this many refused inputs in a row stops early,
  // its refusal reasons grouped and the declaration that fixes it named; 0: never.
  int refusal_streak = 100;
  // Seconds the whole run may take (0: no limit). When they are spent the
  // running cells stop, no other starts, and the run fails saying so.
  double time_budget = 0;
  std::optional<std::chrono::steady_clock::time_point> deadline;  // set by run() from time_budget
  // A cell expected (at its rate so far) to take longer than this says so while it runs.
  double slow_cell_seconds = 20;

  // Steps besides the cells, as `pecheck run` composes them (src/cli/run_steps.cpp);
  // plan() itself composes none. The regression store's folder also keeps cell-costs.tsv.
  bool regressions = true;                // replay stored failures first, save new ones
  std::string regression_dir = kDefaultRegressionDir;
  bool plots = true;                      // probe encoders and rotaries for report.html's plots
  bool budget = false;                    // search precision budgets of encoders and rotaries
  std::optional<double> precision_target; // the budgets' fixed tolerance

  // Live progress: called from the cell's own thread (so it must be
  // thread-safe), once the cell has run 0.5 s and then at most every 0.1 s.
  // None: never called, and the hot path pays nothing.
  std::function<void(const CellProgress&)> progress;

  // How the cells are spread (runner/shard.h, src/runner/parallel.cpp).
  int jobs = 0;                           // cells run at once, each job with its own subjects; 0: the number of cores
  std::optional<ShardSpec> shard;         // run only this shard's cells (CI machines); none: every cell
};

}  // namespace pecheck
