#pragma once
// Shared by the end-to-end tests of process subjects (test_process_examples.cpp,
// test_process_failures.cpp): runs the real CLI (PECHECK_BIN) on a subject
// command with a fresh --report-dir, under a watchdog (support/cli.h's
// run_cli), and reads report.json.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "pecheck/core/json.h"
#include "support/cli.h"

namespace pecheck::testing::process_cli {

// The --subject spec of a Python script of the repository, run by Debian's
// python3 (the one with numpy and torch).
inline std::string python_subject(const std::string& script, const std::string& args = "") {
  return "cmd:/usr/bin/python3 '" + ctest_env("PECHECK_SOURCE_DIR") + "/" + script + "'" + (args.empty() ? "" : " " + args);
}

// A transcription of published code in tests/subjects/real/: `script` is its file name, then any
// arguments ("hf_sliding_window_cache.py --fixed").
inline std::string real_subject(const std::string& script) {
  const auto space = script.find(' ');
  return python_subject("tests/subjects/real/" + script.substr(0, space),
                        space == std::string::npos ? "" : script.substr(space + 1));
}

struct Run {
  int exit_code = -1;        // -1: killed (by the watchdog or a signal)
  double seconds = 0;
  long max_rss_kib = 0;      // pecheck's peak memory
  std::string console;       // stdout and stderr
  std::string report_dir;
  pecheck::json report;      // report.json, null when none was written
  std::string junit;         // junit.xml, empty when none was written
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
  // The start failure recorded for a subject that could not be started (report.json's subjects[]).
  const pecheck::json* start_failure(const std::string& spec = {}) const {
    if (!report.contains("subjects")) return nullptr;
    for (const auto& s : report["subjects"]) {
      if ((spec.empty() || s["spec"] == spec) && s.contains("start_failure")) return &s["start_failure"];
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
// cancelled CI job does), counted from pecheck's start, or from when
// `started_file` exists where one is named (CliOptions::terminate_after_file).
inline Run run_pecheck(std::vector<std::string> args, double limit_seconds = 60, double terminate_after = 0,
                       const std::string& started_file = "") {
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
  const CliResult cli = run_cli(args, {limit_seconds, terminate_after, 1, started_file});
  run.exit_code = cli.exit_code;
  run.seconds = cli.seconds;
  run.max_rss_kib = cli.max_rss_kib;
  run.console = cli.output;
  std::ifstream report(run.report_dir + "/report.json");
  if (report) run.report = pecheck::json::parse(report);
  std::ifstream junit(run.report_dir + "/junit.xml");
  run.junit.assign(std::istreambuf_iterator<char>(junit), std::istreambuf_iterator<char>());
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

// The transcriptions' runs (test_real_cli*.cpp): `pecheck run -q --no-regressions` on
// tests/subjects/real/SCRIPT (real_subject), one --properties per claim, then `extra` options.
inline Run run_real(const std::string& script, const std::vector<std::string>& properties,
                    const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"-q", "--no-regressions", "--subject", real_subject(script)};
  for (const auto& p : properties) args.insert(args.end(), {"--properties", p});
  args.insert(args.end(), extra.begin(), extra.end());
  return run_pecheck(args, 120);
}

// The run exits 0, some claim ran, and every claim that ran (those of `properties` that apply) passed.
inline void expect_passes(const std::string& script, const std::vector<std::string>& properties,
                          const std::vector<std::string>& extra = {}) {
  const Run r = run_real(script, properties, extra);
  BOOST_TEST(r.exit_code == 0, script << ":\n" << r.console);
  BOOST_TEST(!r.report["results"].empty(), r.console);
  for (const auto& result : r.report["results"]) BOOST_TEST(result["status"] == "passed", result.dump());
}

// The counterexample of `property` in a run where it was violated.
inline json counterexample(const Run& r, const std::string& property) {
  const json* result = r.result(property);
  BOOST_REQUIRE_MESSAGE(result != nullptr, property << " did not run:\n" << r.console);
  BOOST_REQUIRE_MESSAGE((*result)["outcome"] == "violated", result->dump());
  return (*result)["counterexample"];
}

// A bug's run of one claim: it exits 1, and the claim's counterexample.
inline json fails(const std::string& script, const std::string& property, const std::vector<std::string>& extra = {}) {
  const Run r = run_real(script, {property}, extra);
  BOOST_TEST(r.exit_code == 1, script << ":\n" << r.console);
  return counterexample(r, property);
}

// Whether a report's text field mentions `part`.
inline bool has(const json& text, const std::string& part) {
  return text.is_string() && text.get<std::string>().find(part) != std::string::npos;
}

}  // namespace pecheck::testing::process_cli
