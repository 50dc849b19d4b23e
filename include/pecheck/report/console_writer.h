#pragma once
// The terminal view: one progress line per cell and the claims matrix.
#include <string>

#include <vector>

#include "pecheck/report/cause_first.h"
#include "pecheck/result/result.h"

namespace pecheck {

// How the console marks verdicts: plain, or with ANSI colours (a terminal
// that asked for them; NO_COLOR and pipes get plain text).
struct ConsoleStyle {
  bool color = false;
};

// One cell as it finishes: mark, property, subject (`label`: its column
// header; empty: the spec), outcome, coverage, then a line for its note,
// message, counterexample, diagnosis, an expected violation's witness, or a
// subject failure's stderr tail.
std::string progress_line(const PropertyResult& result, const std::string& label = {}, ConsoleStyle style = {});
// The last `count` lines of a subject's stderr, each on its own indented
// console line ("\n         | …"), escaped for the terminal.
std::string tail_lines(const std::string& text, int count);

std::string write_console_matrix(const RunReport& report);

// After the run: what failed, one line per cause (its diagnosis, else its
// message or witness) with the failures it likely explains named under it,
// so the first failure a person reads is the one that names the cause.
// Empty when nothing failed.
std::string what_failed(const RunReport& report, const std::vector<FailureGroup>& groups, const std::string& report_dir);

}  // namespace pecheck
