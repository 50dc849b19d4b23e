#pragma once
// Comparing two runs' reports "apart from timings": report.json with every
// timing, the start time and the report directory in the recorded command
// removed, and the console with the seconds blanked. Used by the sharding and
// parallel-cell tests, whose promise is equality up to exactly these.
#include <regex>
#include <string>

#include "pecheck/core/json.h"
#include "support/cli.h"

namespace pecheck::testing {

// A command line without its --report-dir.
inline std::string without_report_dir(const std::string& command) {
  return std::regex_replace(command, std::regex(R"( --report-dir(=| )('[^']*'|\S+))"), "");
}

inline json without_timings(json j) {
  j.erase("seconds");
  j.erase("started_at");
  j.erase("run_id");  // unique per run (report_files.h)
  j["command"] = without_report_dir(j.value("command", ""));
  for (auto& r : j["results"]) {
    r.erase("seconds");
    r["rerun"] = without_report_dir(r.value("rerun", ""));  // a subject failure's rerun is the whole command
  }
  if (j.contains("budgets")) {
    for (auto& b : j["budgets"]) b.erase("seconds");
  }
  return j;
}

inline json report_without_timings(const std::string& dir) {
  return without_timings(json::parse(read_file(dir + "/report.json")));
}

// The console with "0.123 s", the report directory line and the report
// directory of rerun lines blanked.
inline std::string console_without_timings(const std::string& text) {
  std::string out = without_report_dir(std::regex_replace(text, std::regex(R"([0-9]+\.[0-9]+ s\b)"), "T s"));
  return std::regex_replace(out, std::regex(R"(reports: \S+/)"), "reports: DIR/");
}

}  // namespace pecheck::testing
