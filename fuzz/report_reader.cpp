// Fuzz target: report.json texts as `pecheck merge` reads them, and their
// merge. A shard's report is a CI artifact anyone could edit
// (docs/reports-and-merge.md): report_from_text (strict JSON, the schema's
// types and ranges, every result checked against what pecheck writes for
// it) promises to throw nothing but ReportReadError; merge_reports nothing
// but MergeError; and the writers must take whatever was read. A crash, a
// sanitizer report, a hang or any other exception is a finding.
//
// It is also a differential check: a report that reads must write the same
// JSON again and read back into the same report (write → read → write is
// the identity merge relies on); where it does not, the target aborts.
//
// Input: one or more report texts, separated by a line "--pecheck-shard--".
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "cli/merge_reports.h"
#include "pecheck/report/html_writer.h"
#include "pecheck/report/json_reader.h"
#include "pecheck/report/json_writer.h"
#include "pecheck/report/junit_writer.h"
#include "pecheck/report/markdown_writer.h"

using namespace pecheck;

namespace {

constexpr std::string_view kSeparator = "\n--pecheck-shard--\n";

[[noreturn]] void disagree(const char* what) {
  std::fprintf(stderr, "a report read back does not read again as itself: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<cli::ShardReport> shards;
  while (true) {
    const std::size_t at = input.find(kSeparator);
    const std::string_view text = input.substr(0, at);
    try {
      RunReport report = report_from_text(text);
      const std::string written = write_json(report);
      try {
        if (write_json(report_from_text(written)) != written) disagree("the JSON written differs");
      } catch (const ReportReadError& e) {
        std::fprintf(stderr, "%s\n", e.what());
        disagree("what was written is refused");
      }
      shards.push_back({"shard" + std::to_string(shards.size()), std::move(report)});
    } catch (const ReportReadError&) {
    }
    if (at == std::string_view::npos || shards.size() >= 4) break;
    input.remove_prefix(at + kSeparator.size());
  }
  if (shards.empty()) return 0;
  RunReport merged;
  if (shards.size() == 1 && !shards.front().report.shard) {
    merged = std::move(shards.front().report);  // not a shard: its writers alone
  } else {
    try {
      merged = cli::merge_reports(std::move(shards));
    } catch (const cli::MergeError&) {
      return 0;
    }
  }
  (void)write_json(merged);
  (void)write_junit(merged);
  (void)write_markdown(merged);
  (void)write_html(merged);
  for (const auto& r : merged.results) {
    if (r.counterexample() != nullptr) (void)counterexample_json(merged, r).dump();
  }
  return 0;
}
