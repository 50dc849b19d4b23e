#include "cli/shard_dir.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "pecheck/core/bounded_file.h"
#include "pecheck/core/strict_json.h"
#include "pecheck/property/registry.h"
#include "pecheck/report/json_reader.h"
#include "pecheck/report/json_writer.h"
#include "pecheck/report/report_files.h"
#include "pecheck/subjects/declare.h"
#include "pecheck/subjects/factory.h"

namespace pecheck::cli {

namespace {

namespace fs = std::filesystem;

constexpr std::uintmax_t kMaxMarkerBytes = 4096;

json read_json_file(const fs::path& path, std::uintmax_t limit, std::string_view what) {
  try {
    return parse_strict_json(read_bounded_file(path, limit, what));
  } catch (const FileReadError& e) {
    throw ShardDirError(e.what());
  } catch (const StrictJsonError& e) {
    throw ShardDirError(fmt::format("{}: {}", path.string(), e.what()));
  }
}

void check_marker(const fs::path& dir, const RunReport& report) {
  const fs::path marker = dir / std::string(kReportDirMarker);
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(marker, ec))) return;  // report.json alone (an artifact of that file only)
  const json j = read_json_file(marker, kMaxMarkerBytes, "report directory marker");
  const json expected = {{"format", "pecheck-report-dir"}, {"run_id", report.run_id}};
  if (j != expected) {
    throw ShardDirError(fmt::format("{} is not the marker of the run in {}/report.json (run_id {}): the directory "
                                    "mixes two runs' files",
                                    marker.string(), dir.string(), report.run_id.empty() ? "none" : report.run_id));
  }
}

void check_counterexample_files(const fs::path& dir, const RunReport& report) {
  const fs::path folder = dir / "counterexamples";
  std::error_code ec;
  const auto status = fs::status(folder, ec);
  if (!fs::exists(status)) return;  // report.json alone: it holds every counterexample itself
  if (!fs::is_directory(status)) throw ShardDirError(fmt::format("{} is not a directory", folder.string()));
  // The file each result with a counterexample is written to (the last one
  // of a name wins, as when the set was written).
  std::map<std::string, const PropertyResult*> expected;
  for (const auto& r : report.results) {
    if (r.counterexample() != nullptr) expected[counterexample_file_name(r)] = &r;
  }
  std::map<std::string, bool> seen;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    const auto it = expected.find(name);
    if (it == expected.end()) {
      throw ShardDirError(fmt::format(
          "{} is a counterexample file that no result of {}/report.json accounts for (its result was changed, or "
          "the file is another run's): refused rather than dropped",
          entry.path().string(), dir.string()));
    }
    json file = read_json_file(entry.path(), kMaxCounterexampleBytes, "counterexample file");
    json want = counterexample_json(report, *it->second);
    // The replay command names the directory the shard was written to.
    file.erase("replay");
    want.erase("replay");
    if (file != want) {
      std::string key = "?";
      for (const auto& [k, v] : want.items()) {
        if (!file.contains(k) || file[k] != v) {
          key = k;
          break;
        }
      }
      if (key == "?") {
        for (const auto& [k, v] : file.items()) {
          if (!want.contains(k)) key = k;
        }
      }
      throw ShardDirError(fmt::format("{} does not match its result in {}/report.json (its '{}' differs)",
                                      entry.path().string(), dir.string(), key));
    }
    seen[name] = true;
  }
  if (ec) throw ShardDirError(fmt::format("cannot list {}: {}", folder.string(), ec.message()));
  for (const auto& [name, result] : expected) {
    if (!seen.count(name)) {
      throw ShardDirError(fmt::format("{}/{} is missing: {}/report.json has a counterexample for {} × {}",
                                      folder.string(), name, dir.string(), result->property, result->subject));
    }
  }
}

// A value of a file for a message: one line, short.
std::string brief_json(const json& value) {
  std::string text = value.dump(-1, ' ', true, json::error_handler_t::replace);
  return text.size() > 120 ? text.substr(0, 117) + "..." : text;
}

// The conventions a subject of the report declared: the ops it offered and
// its recorded params, read back as a hello's are (subjects/declare.h).
SubjectInfo declared_info(const fs::path& file, const SubjectSummary& s) {
  SubjectInfo info;
  for (const auto& op : s.ops) {
    const auto parsed = parse_op(op);
    if (!parsed) throw ShardDirError(fmt::format("{}: subject {} lists the op {}, which pecheck {} does not know",
                                                 file.string(), s.spec, brief_json(op), PECHECK_VERSION));
    info.ops |= static_cast<unsigned>(*parsed);
  }
  try {
    apply_declarations(json{{"params", s.params}}, info);
  } catch (const BadDeclaration& e) {
    throw ShardDirError(fmt::format("{}: subject {} records params that pecheck {} does not accept as a "
                                    "declaration ({}): its declarations were edited",
                                    file.string(), s.spec, PECHECK_VERSION, e.what()));
  }
  return info;
}

// A report of this version lists its properties as this pecheck's registry has them.
void check_properties(const fs::path& file, const RunReport& report) {
  // Another version's registry may say otherwise of any claim, and this
  // pecheck cannot judge a shard by a registry it does not have: refused,
  // never read with the checks below switched off (a version edited to an
  // older one would otherwise excuse a violation relabelled "expected").
  if (report.pecheck_version != PECHECK_VERSION) {
    throw ShardDirError(fmt::format("{} was written by pecheck {}, not by this pecheck {}: merge judges each "
                                    "shard's expectations and declared violations with its own registry, so it "
                                    "merges only shards of its own version (run every shard with one pecheck, or "
                                    "merge with the version that wrote them)",
                                    file.string(), brief_json(json(report.pecheck_version)), PECHECK_VERSION));
  }
  for (const auto& p : report.properties) {
    const PropertyDef* known = find_property(p.id);
    if (known == nullptr) {
      throw ShardDirError(fmt::format("{}: property {} is not one of pecheck {}'s", file.string(), p.id,
                                      PECHECK_VERSION));
    }
    if (to_json(known->info) != to_json(p)) {
      throw ShardDirError(fmt::format("{}: property {} is not as pecheck {} defines it (its claim or expectations "
                                      "were edited)",
                                      file.string(), p.id, PECHECK_VERSION));
    }
  }
  // A declared violation turns a cell's expectation to 'violated': only a
  // claim some declared convention can make false (violated_when) may be
  // one, and only when the subject's recorded params declare it. The list is
  // recomputed from those params with this registry: an entry they do not
  // give (a violation "declared" by a subject that declares nothing: a red
  // made V/V) or one they give that the list leaves out (a subject that
  // declares sinks yet holds, its cell relabelled "holds": a red made H/H)
  // is refused.
  std::map<std::string_view, SubjectInfo> declared;
  for (const auto& s : report.subjects) {
    if (s.start_failure) {
      if (!s.declared_violations.empty() || !s.params.empty()) {
        throw ShardDirError(fmt::format("{}: subject {} could not be started, yet records declarations: its "
                                        "declarations were forged",
                                        file.string(), s.spec));
      }
      continue;
    }
    const SubjectInfo info = declared_info(file, s);
    for (const auto& id : s.declared_violations) {
      const PropertyDef* known = find_property(id);
      if (known == nullptr || !known->info.violated_by) {
        throw ShardDirError(fmt::format("{}: subject {} lists {} among its declared violations, which no declared "
                                        "convention makes false in pecheck {}",
                                        file.string(), s.spec, id, PECHECK_VERSION));
      }
      if (!known->info.violated_by(info)) {
        throw ShardDirError(fmt::format(
            "{}: subject {} lists {} among its declared violations, but the params it recorded ({}) declare none "
            "of what makes it false ({}): its declared violations are forged",
            file.string(), s.spec, id, brief_json(s.params), known->info.violated_when));
      }
    }
    declared.emplace(s.spec, info);
  }
  for (const auto& r : report.results) {
    const PropertyDef* known = find_property(r.property);
    const auto s = std::ranges::find(report.subjects, r.subject, &SubjectSummary::spec);
    const auto info = declared.find(r.subject);
    if (known == nullptr || !known->info.violated_by || s == report.subjects.end() || info == declared.end()) continue;
    if (known->info.violated_by(info->second) &&
        std::ranges::find(s->declared_violations, r.property) == s->declared_violations.end()) {
      throw ShardDirError(fmt::format("{}: subject {} declares what makes {} false ({}), but its declared "
                                      "violations leave it out: its declared violations are forged",
                                      file.string(), s->spec, r.property, known->info.violated_when));
    }
  }
}

}  // namespace

RunReport read_shard_dir(const std::string& dir) {
  const fs::path file = fs::path(dir) / "report.json";
  RunReport report;
  try {
    report = read_report(file);
  } catch (const ReportReadError& e) {
    throw ShardDirError(e.what());
  }
  check_properties(file, report);
  check_marker(dir, report);
  check_counterexample_files(dir, report);
  return report;
}

}  // namespace pecheck::cli
