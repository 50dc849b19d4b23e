#pragma once
// report.json: the full run, in the documented, versioned schema
// (reports/schema/report.schema.json). Pure: results in, text out.
#include <string>

#include "pecheck/core/json.h"
#include "pecheck/result/result.h"

namespace pecheck {

inline constexpr int kReportSchemaVersion = 2;

json to_json(const RunReport& report);
json to_json(const PropertyResult& result);
json to_json(const PropertyInfo& info);
json to_json(const SubjectFailureInfo& failure);
json to_json(const Coverage& coverage);
std::string write_json(const RunReport& report);

// One counterexample file: self-contained (property, subject, inputs,
// observed, expected, tolerance, seed, reproduce string, version, command).
json counterexample_json(const RunReport& report, const PropertyResult& result);
// counterexamples/<property>--<subject>.json, with the subject spec made file-safe.
std::string counterexample_file_name(const PropertyResult& result);
// The command that reruns exactly this property against this subject; for a
// subject failure, the whole recorded command (when there is one): a process
// may break on what it was asked earlier in the run, which one cell alone
// does not ask again.
std::string rerun_command(const RunReport& report, const PropertyResult& result);
// The command that reruns the whole run: a front end's (report.rerun, e.g. pytest's node), else pecheck's own.
std::string rerun_command(const RunReport& report);

}  // namespace pecheck
