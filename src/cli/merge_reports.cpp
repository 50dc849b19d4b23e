#include "cli/merge_reports.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "pecheck/property/causes.h"
#include "pecheck/report/json_writer.h"
#include "pecheck/result/not_run.h"
#include "pecheck/runner/shard.h"

namespace pecheck::cli {

namespace {

// What every shard of one run shares: report.json without the results, the
// timings, the report directory, the run's id and the shard's own part.
json run_identity(const RunReport& report) {
  json j = to_json(report);
  j["command"] = without_report_dir(report.command);
  for (const char* key : {"results", "summary", "seconds", "started_at", "exit_code", "budgets", "run_id"}) {
    j.erase(key);
  }
  j["shard"].erase("index");
  j["shard"].erase("cells");
  return j;
}

// The first key whose value differs, for the message: the options first,
// then the selection, then the rest (the command repeats the options).
std::string first_difference(const json& a, const json& b) {
  for (const char* key : {"seed", "cases", "max_size", "max_position", "max_width", "history", "tolerance_factor", "error_model",
                          "expectations", "properties", "subjects", "shard", "pecheck_version"}) {
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

// The shards are one whole sharded run. (Their results are set apart:
// `results[k]` are shard k's, so the run's identity is built from the
// headers alone, not from a copy of every result.)
void check_shards(const std::vector<ShardReport>& shards, const std::vector<std::vector<PropertyResult>>& results) {
  if (shards.empty()) throw MergeError("no shard given");
  for (const auto& s : shards) {
    if (!s.report.shard) {
      throw MergeError(fmt::format("{}/report.json is not from a sharded run (no \"shard\"): run each shard with "
                                   "--shard I/N",
                                   s.dir));
    }
  }
  const int total = shards.front().report.shard->total;
  std::map<int, std::string> seen;
  const json identity = run_identity(shards.front().report);
  for (std::size_t k = 0; k < shards.size(); ++k) {
    const ShardReport& s = shards[k];
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
    if (static_cast<int>(results[k].size()) != info.cells) {
      throw MergeError(fmt::format("{} holds {} results but says its shard has {} cells", s.dir, results[k].size(),
                                   info.cells));
    }
  }
  if (static_cast<int>(seen.size()) != total) {
    // Named up to a few: a run of a million shards misses most of them.
    std::string missing;
    int named = 0;
    for (int i = 0; i < total && named < 8; ++i) {
      if (seen.count(i) == 0) missing += fmt::format("{}{}/{}", named++ == 0 ? "" : ", ", i, total);
    }
    const int more = total - static_cast<int>(seen.size()) - named;
    if (more > 0) missing += fmt::format(" and {} more", more);
    throw MergeError(fmt::format("missing shard(s) {}: give every shard's report directory", missing));
  }
}

}  // namespace

std::string without_report_dir(const std::string& command) {
  // By hand, not std::regex: the command comes from a file anyone could
  // edit, and libstdc++'s regex recurses per character (a long one would
  // overflow the stack).
  static constexpr std::string_view flag = " --report-dir";
  std::string out;
  std::size_t i = 0;
  while (true) {
    const std::size_t at = command.find(flag, i);
    if (at == std::string::npos) break;
    std::size_t j = at + flag.size();
    std::size_t end = std::string::npos;
    if (j < command.size() && (command[j] == '=' || command[j] == ' ')) {
      ++j;
      const bool quoted = j < command.size() && command[j] == '\'';
      const std::size_t close = quoted ? command.find('\'', j + 1) : std::string::npos;
      if (close != std::string::npos) {
        end = close + 1;
      } else {
        std::size_t k = j;
        while (k < command.size() && !std::isspace(static_cast<unsigned char>(command[k]))) ++k;
        if (k > j) end = k;
      }
    }
    if (end == std::string::npos) {
      out.append(command, i, at + flag.size() - i);
      i = at + flag.size();
      continue;
    }
    out.append(command, i, at - i);
    i = end;
  }
  out.append(command, i, std::string::npos);
  return out;
}

RunReport merge_reports(std::vector<ShardReport> shards) {
  // In shard order (a report that is no shard first: check_shards names it).
  auto index = [](const ShardReport& s) { return s.report.shard ? s.report.shard->index : -1; };
  std::stable_sort(shards.begin(), shards.end(),
                   [&](const ShardReport& a, const ShardReport& b) { return index(a) < index(b); });
  std::vector<std::vector<PropertyResult>> results;
  for (auto& s : shards) results.push_back(std::move(s.report.results));
  check_shards(shards, results);
  RunReport out = shards.front().report;  // shard 0 also holds the run's budgets
  out.shard.reset();
  out.run_id.clear();  // the merged set is a run of its own: written with a new id
  std::map<std::string, std::size_t> subject_order, property_order;
  for (std::size_t i = 0; i < out.subjects.size(); ++i) subject_order.emplace(out.subjects[i].spec, i);
  for (std::size_t i = 0; i < out.properties.size(); ++i) property_order.emplace(out.properties[i].id, i);
  std::map<std::pair<std::size_t, std::size_t>, PropertyResult> cells;
  for (std::size_t k = 0; k < shards.size(); ++k) {
    const ShardReport& s = shards[k];
    const ShardInfo& info = *s.report.shard;
    out.seconds = std::max(out.seconds, s.report.seconds);  // the shards ran side by side
    out.started_at = std::min(out.started_at, s.report.started_at);
    for (auto& r : results[k]) {
      const auto subject = subject_order.find(r.subject);
      const auto property = property_order.find(r.property);
      if (subject == subject_order.end() || property == property_order.end()) {
        throw MergeError(
            fmt::format("{}: result {} × {} is not in the run's selection", s.dir, r.property, r.subject));
      }
      if (shard_of(r.property, r.subject, info.total) != info.index) {
        throw MergeError(fmt::format("{}: cell {} × {} belongs to shard {}, not {}", s.dir, r.property, r.subject,
                                     shard_of(r.property, r.subject, info.total), info.index));
      }
      const auto key = std::pair{subject->second, property->second};
      if (cells.count(key) != 0) throw MergeError(fmt::format("cell {} × {} is in two shards", r.property, r.subject));
      cells.emplace(key, std::move(r));
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
    r.consequence_of.clear();  // a shard saw only its own cells: cause and consequence are judged on the whole run
    out.results.push_back(std::move(r));
  }
  mark_consequences(out.results);
  out.exit_code = exit_code_for(out);
  return out;
}

}  // namespace pecheck::cli
