#pragma once
// Shared by the end-to-end tests of process subjects (test_process_examples.cpp,
// test_process_failures.cpp): runs the real CLI (PECHECK_BIN) on a subject
// command with a fresh --report-dir, under a watchdog, and reads report.json.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/json.h"

extern char** environ;

namespace pecheck::testing::process_cli {

inline std::string env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) throw std::runtime_error(std::string(name) + " is not set (run through ctest)");
  return value;
}

// The --subject spec of a Python script of the repository, run by Debian's
// python3 (the one with numpy and torch).
inline std::string python_subject(const std::string& script, const std::string& args = "") {
  return "cmd:/usr/bin/python3 '" + env("PECHECK_SOURCE_DIR") + "/" + script + "'" + (args.empty() ? "" : " " + args);
}

struct Run {
  int exit_code = -1;        // -1: killed (by the watchdog or a signal)
  double seconds = 0;
  long max_rss_kib = 0;      // pecheck's peak memory
  std::string console;       // stdout and stderr
  std::string report_dir;
  pecheck::json report;      // report.json, null when none was written
  // Removes report_dir with the last copy of this run (unless PECHECK_KEEP_REPORTS is set).
  std::shared_ptr<const std::string> cleanup;

  // The result of `property` (for the first subject), or null.
  const pecheck::json* result(const std::string& property) const {
    if (!report.contains("results")) return nullptr;
    for (const auto& r : report["results"]) {
      if (r["property"] == property) return &r;
    }
    return nullptr;
  }
  std::string outcome(const std::string& property) const {
    const auto* r = result(property);
    return r ? (*r)["outcome"].get<std::string>() : "(no result)";
  }
};

// Runs `pecheck run ARGS --report-dir DIR`; kills it after `limit_seconds`.
// With `terminate_after` > 0, sends it SIGTERM after that many seconds (as a
// cancelled CI job does).
inline Run run_pecheck(std::vector<std::string> args, double limit_seconds = 60, double terminate_after = 0) {
  Run run;
  std::string pattern = std::filesystem::temp_directory_path().string() + "/pecheck-process-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  run.report_dir = pattern;
  if (std::getenv("PECHECK_KEEP_REPORTS") == nullptr) {
    run.cleanup.reset(new std::string(pattern), [](const std::string* dir) {
      std::error_code ignored;
      std::filesystem::remove_all(*dir, ignored);
      delete dir;
    });
  }
  args.insert(args.begin(), "run");
  args.insert(args.end(), {"--report-dir", run.report_dir});
  const std::string bin = env("PECHECK_BIN"), console = run.report_dir + "/console.txt";
  std::vector<std::string> argv_s{bin};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, console.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, bin.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " + bin);

  int status = 0;
  rusage usage{};
  bool terminated = false;
  while (true) {
    const pid_t done = wait4(pid, &status, WNOHANG, &usage);
    if (done == pid) break;
    const auto elapsed = std::chrono::steady_clock::now() - start;
    if (terminate_after > 0 && !terminated && elapsed > std::chrono::duration<double>(terminate_after)) {
      kill(pid, SIGTERM);
      terminated = true;
    }
    if (std::chrono::steady_clock::now() - start > std::chrono::duration<double>(limit_seconds)) {
      kill(pid, SIGKILL);
      wait4(pid, &status, 0, &usage);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.max_rss_kib = usage.ru_maxrss;
  std::stringstream text;
  text << std::ifstream(console).rdbuf();
  run.console = text.str();
  std::ifstream report(run.report_dir + "/report.json");
  if (report) run.report = pecheck::json::parse(report);
  return run;
}

// The counterexample files pecheck wrote for a run.
inline std::vector<std::filesystem::path> counterexample_files(const Run& run) {
  std::vector<std::filesystem::path> files;
  const auto dir = std::filesystem::path(run.report_dir) / "counterexamples";
  if (!std::filesystem::exists(dir)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files.push_back(entry.path());
  return files;
}

}  // namespace pecheck::testing::process_cli
