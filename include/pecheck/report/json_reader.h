#pragma once
// report.json read back into a RunReport: the inverse of json_writer, so that
// `pecheck merge` can join the reports of a sharded run and write every
// format again. write_json(read_report(write_json(r))) == write_json(r).
// Not kept by report.json, so absent after reading: the probe's plots (drawn
// only in report.html), the regression store's problems and saved entries.
#include <filesystem>
#include <stdexcept>
#include <string>

#include "pecheck/core/json.h"
#include "pecheck/result/result.h"

namespace pecheck {

// A file that is not a pecheck report.json of this schema version, or misses a field.
struct ReportReadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

RunReport report_from_json(const json& j);
PropertyResult result_from_json(const json& j);
// Reads and parses `path`; errors name the file.
RunReport read_report(const std::filesystem::path& path);

}  // namespace pecheck
