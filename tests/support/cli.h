#pragma once
// Runs the built CLI (PECHECK_BIN) as a child process and captures its output:
// the one way the tests start pecheck.
#include <string>
#include <vector>

namespace pecheck::testing {

struct CliOptions {
  double limit_seconds = 120;   // the watchdog: SIGKILL after this long
  double terminate_after = 0;   // > 0: SIGTERM after this long (a cancelled CI job)
  int terminate_signals = 1;    // SIGTERMs sent then, 10 ms apart (`timeout` sends two: the process, its group)
  // Non-empty: terminate_after counts from when this file exists (a subject
  // writes its pid file as it starts), not from pecheck's start. A loaded
  // machine can take a second to load pecheck itself, and a SIGTERM before
  // its handlers are in place ends it silently, as it should.
  std::string terminate_after_file;
};

struct CliResult {
  int exit_code = -1;    // -1 when killed by a signal (or by the watchdog)
  std::string output;    // stdout and stderr together
  double seconds = 0;
  long max_rss_kib = 0;  // the child's peak memory
};

CliResult run_cli(const std::vector<std::string>& args, const CliOptions& options = {});

// How much more time and memory a run may take in this build: 1, or under
// AddressSanitizer + UndefinedBehaviorSanitizer (PECHECK_SANITIZED=1, set by
// the sanitize test preset) 4 for time and 4 for memory (shadow memory, the
// allocator's quarantine). Bounds in the tests are written for the release
// build and scaled by these.
double time_scale();
double memory_scale();
// Whether this is the sanitizer build (PECHECK_SANITIZED=1): AddressSanitizer
// then reports a crash itself (SEGV, exit 1) where a release build dies of
// the signal.
bool sanitized();
// A fresh empty directory under the system temp dir.
std::string temp_dir(const std::string& prefix);
// A suite's fixture: its runs get a fresh working directory of their own
// (the CLI keeps state in .pecheck/ there), not the one every test shares:
//   BOOST_AUTO_TEST_SUITE(name, *boost::unit_test::fixture<FreshWorkingDirectory>())
struct FreshWorkingDirectory {
  FreshWorkingDirectory();
};
std::string read_file(const std::string& path);
// A path ctest hands every test in its environment (tests/CMakeLists.txt):
// PECHECK_PLUGIN_DIR, PECHECK_EXAMPLE_ENCODER_TEST, ...; throws when unset.
std::string ctest_env(const char* name);

}  // namespace pecheck::testing
