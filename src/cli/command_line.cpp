// The command line recorded in report.json ("command": what reruns this
// run). Flags that only spread the same cells over threads or machines
// (--jobs, --shard), the same requests over fewer lines (--batch), where
// progress goes (--progress-fd) and how fresh copies are made (--no-fork) are
// left out: every shard, job count and batch size records the same command,
// so a merged report equals the unsharded run's.
#include <string_view>

#include "cli/commands.h"
#include "pecheck/core/shell_quote.h"

namespace pecheck::cli {

std::string recorded_command_line(int argc, char** argv) {
  const std::string program = argc > 0 ? argv[0] : "pecheck";
  std::string command = shell_quote(program);
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--jobs" || arg == "--shard" || arg == "--batch" || arg == "-j" || arg == "--progress-fd") {
      ++i;  // and its value
      continue;
    }
    if (arg.starts_with("--jobs=") || arg.starts_with("--shard=") || arg.starts_with("--batch=") ||
        arg.starts_with("--progress-fd=") || arg == "--no-fork") {
      continue;
    }
    command += ' ';
    command += shell_quote(argv[i]);
  }
  return command;
}

}  // namespace pecheck::cli
