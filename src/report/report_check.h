#pragma once
// Whether a report read back is one pecheck wrote, unedited where it decides
// a verdict. A result's status, message and counterexample are derived from
// its outcome and expectation (result/result.h), so a report pecheck wrote
// reads back into results that write the same JSON again: a field that
// differs — `status: passed` beside a counterexample, an edited message, a
// summary or exit code its results do not give — is refused, naming the
// field. (This catches edits that contradict the rest of the file; a file
// rewritten consistently from end to end is not detectable without a
// signature: docs/reports-and-merge.md.)
#include <string>
#include <vector>

#include "pecheck/core/json.h"
#include "pecheck/result/result.h"

namespace pecheck {

// `written` (one element of "results") is what pecheck writes for `r`,
// apart from its "rerun" (which needs the report). Throws ReportReadError.
void check_result_as_written(const PropertyResult& r, const json& written);

// The report's own fields (`r` without its results) are what pecheck writes
// for them; "results" and "summary" are checked by check_report_as_written.
void check_header_as_written(const RunReport& r, const json& written);

// The whole report: the summary counts and the exit code are those its
// results give, each result's rerun command is the report's, and each
// result's expectation is the run's for its cell (the property's registry
// entry for the subject's scheme, or the configured [expect]).
void check_report_as_written(const RunReport& r, const json& written, const std::vector<std::string>& reruns);

}  // namespace pecheck
