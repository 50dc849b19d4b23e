// `pecheck merge DIR… --report-dir OUT`: the report directories of a sharded
// run (`pecheck run --shard I/N`, one per CI machine) joined into one report
// set equal to the unsharded run's apart from timings, exiting as that run
// would. Each shard's report.json is the source of truth; every format
// (counterexample files included, their replay paths pointing into OUT) is
// written again from the merged report. Shards of different runs (seed,
// options, selection, subjects), a shard given twice, a missing shard or a
// cell in the wrong shard are refused (exit 2).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <regex>

#include "cli/commands.h"
#include "pecheck/core/shell_quote.h"
#include "pecheck/report/console_writer.h"
#include "pecheck/report/json_reader.h"
#include "pecheck/report/json_writer.h"
#include "pecheck/report/report_files.h"
#include "pecheck/runner/session.h"
#include "pecheck/runner/shard.h"

namespace pecheck::cli {

namespace {

namespace fs = std::filesystem;

struct MergeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Shard {
  std::string dir;
  RunReport report;
};

// The recorded command without its --report-dir (each shard writes its own).
std::string without_report_dir(const std::string& command) {
  static const std::regex report_dir(R"( --report-dir(=| )('[^']*'|\S+))");
  return std::regex_replace(command, report_dir, "");
}

// What every shard of one run shares: report.json without the results, the
// timings, the report directory and the shard's own part.
json run_identity(const RunReport& report) {
  json j = to_json(report);
  j["command"] = without_report_dir(report.command);
  for (const char* key : {"results", "summary", "seconds", "started_at", "exit_code", "budgets"}) j.erase(key);
  j["shard"].erase("index");
  j["shard"].erase("cells");
  return j;
}

// The first key whose value differs, for the message: the options first,
// then the selection, then the rest (the command repeats the options).
std::string first_difference(const json& a, const json& b) {
  for (const char* key : {"seed", "cases", "max_size", "max_position", "max_width", "tolerance_factor", "error_model",
                          "properties", "subjects", "shard", "pecheck_version"}) {
    if (a.value(key, json()) != b.value(key, json())) return key;
  }
  for (const auto& [key, value] : a.items()) {
    if (!b.contains(key) || b.at(key) != value) return key;
  }
  for (const auto& [key, value] : b.items()) {
    if (!a.contains(key)) return key;
  }
  return "?";
}

std::vector<Shard> read_shards(const std::vector<std::string>& dirs) {
  std::vector<Shard> shards;
  for (const auto& dir : dirs) {
    const fs::path file = fs::path(dir) / "report.json";
    try {
      shards.push_back({dir, read_report(file)});
    } catch (const ReportReadError& e) {
      throw MergeError(e.what());
    }
    if (!shards.back().report.shard) {
      throw MergeError(fmt::format("{} is not from a sharded run (no \"shard\"): run each shard with --shard I/N",
                                   file.string()));
    }
  }
  const int total = shards.front().report.shard->total;
  std::map<int, std::string> seen;
  const json identity = run_identity(shards.front().report);
  for (const auto& s : shards) {
    const ShardInfo& info = *s.report.shard;
    if (info.total != total) {
      throw MergeError(fmt::format("{} is shard {}/{} but {} is one of {} shards: not the same sharded run", s.dir,
                                   info.index, info.total, shards.front().dir, total));
    }
    if (auto [it, fresh] = seen.emplace(info.index, s.dir); !fresh) {
      throw MergeError(fmt::format("shard {}/{} is given twice: {} and {}", info.index, total, it->second, s.dir));
    }
    const json other = run_identity(s.report);
    if (other != identity) {
      throw MergeError(fmt::format("{} and {} are not shards of the same run: their '{}' differs (seed, options, "
                                   "selection and subjects must be the same)",
                                   shards.front().dir, s.dir, first_difference(identity, other)));
    }
    if (static_cast<int>(s.report.results.size()) != info.cells) {
      throw MergeError(fmt::format("{} holds {} results but says its shard has {} cells", s.dir,
                                   s.report.results.size(), info.cells));
    }
  }
  std::string missing;
  for (int i = 0; i < total; ++i) {
    if (seen.count(i) == 0) missing += fmt::format("{}{}/{}", missing.empty() ? "" : ", ", i, total);
  }
  if (!missing.empty()) throw MergeError(fmt::format("missing shard(s) {}: give every shard's report directory", missing));
  return shards;
}

RunReport merged(std::vector<Shard>& shards) {
  std::sort(shards.begin(), shards.end(),
            [](const Shard& a, const Shard& b) { return a.report.shard->index < b.report.shard->index; });
  RunReport out = shards.front().report;  // shard 0 also holds the run's budgets
  out.results.clear();
  out.shard.reset();
  std::map<std::string, std::size_t> subject_order, property_order;
  for (std::size_t i = 0; i < out.subjects.size(); ++i) subject_order.emplace(out.subjects[i].spec, i);
  for (std::size_t i = 0; i < out.properties.size(); ++i) property_order.emplace(out.properties[i].id, i);
  std::map<std::pair<std::size_t, std::size_t>, PropertyResult> cells;
  for (auto& s : shards) {
    const ShardInfo& info = *s.report.shard;
    out.seconds = std::max(out.seconds, s.report.seconds);  // the shards ran side by side
    out.started_at = std::min(out.started_at, s.report.started_at);
    for (auto& r : s.report.results) {
      const auto subject = subject_order.find(r.subject);
      const auto property = property_order.find(r.property);
      if (subject == subject_order.end() || property == property_order.end()) {
        throw MergeError(fmt::format("{}: result {} × {} is not in the run's selection", s.dir, r.property, r.subject));
      }
      if (shard_of(r.property, r.subject, info.total) != info.index) {
        throw MergeError(fmt::format("{}: cell {} × {} belongs to shard {}, not {}", s.dir, r.property, r.subject,
                                     shard_of(r.property, r.subject, info.total), info.index));
      }
      if (!cells.emplace(std::pair{subject->second, property->second}, std::move(r)).second) {
        throw MergeError(fmt::format("cell {} × {} is in two shards", r.property, r.subject));
      }
    }
  }
  if (static_cast<int>(cells.size()) != shards.front().report.shard->total_cells) {
    throw MergeError(fmt::format("the shards hold {} cells of the run's {}", cells.size(),
                                 shards.front().report.shard->total_cells));
  }
  // Planned order; after a subject failed, its later cells are not run — as
  // one unsharded run records them.
  std::map<std::string, std::string> broken_by;
  for (auto& [key, r] : cells) {
    if (auto it = broken_by.find(r.subject); it != broken_by.end()) {
      out.results.push_back(not_run_after_failure(r.property, r.subject, r.expectation, it->second));
      continue;
    }
    if (r.subject_failure()) broken_by.emplace(r.subject, r.property);
    out.results.push_back(std::move(r));
  }
  out.exit_code = exit_code_for(out);
  return out;
}

}  // namespace

int merge(const MergeOptions& options, const std::string& program) {
  RunReport report;
  try {
    auto shards = read_shards(options.dirs);
    report = merged(shards);
  } catch (const MergeError& e) {
    std::cerr << "pecheck merge: " << e.what() << "\n";
    return kExitUsage;
  }
  (void)program;  // the rerun commands keep the program the shards recorded
  report.report_dir = options.report_dir;
  // The command of the unsharded run that writes where the merge writes.
  report.command = without_report_dir(report.command) + " --report-dir " + shell_quote(options.report_dir);
  for (const auto& r : report.results) {
    if (!options.quiet || r.status() != Status::passed) std::cout << progress_line(r) << "\n";
  }
  std::cout << write_console_matrix(report);
  try {
    const auto files = write_reports(options.report_dir, report);
    std::cout << fmt::format("merged {} shards: reports in {}/ ({} counterexample files)\n", options.dirs.size(),
                             options.report_dir, files.size() - 4);
  } catch (const ReportWriteError& e) {
    std::cerr << "pecheck merge: " << e.what() << "\n";
    return kExitUsage;
  }
  return report.exit_code;
}

}  // namespace pecheck::cli
