#pragma once
// report.json read back into a RunReport: the inverse of json_writer, so that
// `pecheck merge` can join the reports of a sharded run and write every
// format again. write_json(read_report(write_json(r))) == write_json(r).
// Not kept by report.json, so absent after reading: the probe's plots (drawn
// only in report.html), the regression store's problems and saved entries.
//
// A report is untrusted input (a CI artifact anyone could edit): it is read
// from a regular file of at most kMaxReportBytes, as strict JSON (no NUL, no
// byte-order mark, no key twice), checked field by field against the schema's
// types and ranges, and then checked against itself: every result must be
// what pecheck writes for its outcome and expectation (report/report_check.h)
// — a `status: passed` beside a counterexample, a summary or exit code its
// results do not give, or an expectation that is not the run's is refused.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

#include "pecheck/core/json.h"
#include "pecheck/result/result.h"

namespace pecheck {

// A file that is not a pecheck report.json of this schema version, misses a
// field, or contradicts itself; the message says which field of which result.
struct ReportReadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

RunReport report_from_json(const json& j);
// One result, checked as written (all but its "rerun", which needs the report).
PropertyResult result_from_json(const json& j);
// report.json's text: strict JSON, the results read one at a time (the memory
// held is about the text and the results, not a whole JSON tree besides).
RunReport report_from_text(std::string_view text);
// Reads (bounded, a regular file only) and parses `path`; errors name the file.
RunReport read_report(const std::filesystem::path& path);

}  // namespace pecheck
