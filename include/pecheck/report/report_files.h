#pragma once
// The edge where reports meet the file system: every file is written to a
// temporary name and renamed into place, so a crash never leaves a truncated
// report, and an unwritable directory is a clear error.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "pecheck/result/result.h"

namespace pecheck {

struct ReportWriteError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Writes `text` to `path` atomically (temp file in the same directory, fsync, rename).
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

// report.json, junit.xml, summary.md, report.html and counterexamples/*.json under `dir`.
// Returns the paths written. Throws ReportWriteError.
std::vector<std::filesystem::path> write_reports(const std::filesystem::path& dir, const RunReport& report);

}  // namespace pecheck
