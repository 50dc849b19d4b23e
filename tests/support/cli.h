#pragma once
// Runs the built CLI (PECHECK_BIN) as a child process and captures its output.
#include <string>
#include <vector>

namespace pecheck::testing {

struct CliResult {
  int exit_code = -1;    // -1 when killed by a signal
  std::string output;    // stdout and stderr together
  double seconds = 0;
};

CliResult run_cli(const std::vector<std::string>& args);
// A fresh empty directory under the system temp dir.
std::string temp_dir(const std::string& prefix);
std::string read_file(const std::string& path);

}  // namespace pecheck::testing
