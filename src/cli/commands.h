#pragma once
// The CLI's commands. Each returns the process exit code:
// 0 every property met its expectation, 1 one did not, 2 usage or
// configuration error, 3 a subject failure.
#include <set>
#include <string>
#include <vector>

#include "pecheck/runner/options.h"

namespace pecheck::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitSubject = 3;

// `pecheck run`: the session's options (runner/options.h, one set of
// defaults) plus what only the command line has.
struct RunCommand {
  RunOptions run;
  std::string seed = "1";                // a number, or "random"
  std::string report_dir = "reports";
  bool quiet = false;
  std::string config;                    // pecheck.toml; flags given on the command line override it
  int github_annotations = 0;            // ::error lines for the first N failures
  std::set<std::string> given;           // the flags given on the command line, e.g. "--cases"
  bool list_cells = false;               // print the planned cells (property<TAB>subject) and stop
  std::string shard;                     // --shard I/N; empty: the environment's (runner/shard.h), or none
  int progress_fd = -1;                  // --progress-fd: progress events as JSON lines (cli/progress_events.h)
  std::string rerun_command;             // --rerun-command: a front end's command that reruns the run ({seed})
};

struct ReplayOptions {
  std::string file;                      // a counterexample file or regression-store entry
  std::string subject;                   // another subject to replay against (the fixed one)
  std::string config;                    // pecheck.toml: the recorded subject may run when it names it
  bool trust_recorded_subject = false;   // run a recorded cmd:/plugin: subject no flag or config names
  bool json = false;                     // print the result as JSON
  double subject_timeout = RunOptions{}.subject_timeout;
  std::string executable;
};

// `program` is argv[0]; `command_line` the whole invocation, shell-quoted.
int run(const RunCommand& command, const std::string& program, const std::string& command_line);
int list(bool as_json);
// Replays one recorded counterexample: 0 the expectation is met now (fixed,
// or an expected violation reproduced), 1 it is not (still fails, the witness
// no longer witnesses, or the subject refused the input), 2 the file or
// subject cannot be used, 3 the subject failed.
int replay(const ReplayOptions& options);
// Serves the subject named by `spec` over the subject protocol on stdin/stdout.
// `declarations`: a [subject."SPEC"] table as JSON, laid over the subject's
// info (what a served plugin declares in pecheck.toml); empty: none.
int serve(const std::string& spec, const std::string& declarations = {});
// The invocation, shell-quoted, without the flags that do not change results (--jobs, --shard).
std::string recorded_command_line(int argc, char** argv);
// `pecheck merge`: one report set from the report directories of a sharded run.
struct MergeOptions {
  std::vector<std::string> dirs;         // each shard's report directory
  std::string report_dir = "reports";    // where the merged reports go
  bool quiet = false;
};
int merge(const MergeOptions& options, const std::string& program);
// This executable's path (/proc/self/exe), or argv[0] where that is unreadable.
std::string self_executable(const char* argv0);

}  // namespace pecheck::cli
