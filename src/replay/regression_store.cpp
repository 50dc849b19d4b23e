#include "pecheck/replay/regression_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "pecheck/property/registry.h"
#include "pecheck/report/json_writer.h"
#include "pecheck/report/report_files.h"

namespace pecheck {

namespace fs = std::filesystem;

namespace {

std::string file_safe(std::string_view text, size_t max) {
  std::string out;
  for (char c : text) {
    const bool safe = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    out += safe ? c : '_';
    if (out.size() == max) break;
  }
  return out;
}

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return h;
}

}  // namespace

std::string regression_file_name(std::string_view property, std::string_view subject, const json& inputs) {
  return fmt::format("{}--{}--{:016x}.json", file_safe(property, 80), file_safe(subject, 80),
                     fnv1a(inputs.dump(-1, ' ', false, json::error_handler_t::replace)));
}

RegressionStore::RegressionStore(fs::path dir) : dir_(std::move(dir)) {
  std::error_code ec;
  if (!fs::is_directory(dir_, ec)) return;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    try {
      RecordedCase recorded = read_recorded_case(file);
      // Its inputs must fit its property before any run measures them: one
      // bad entry is skipped and reported, never fatal for the runs after it.
      if (const PropertyDef* property = find_property(recorded.property); property && property->impl.validate) {
        try {
          property->impl.validate(recorded.inputs);
        } catch (const InvalidInput& e) {
          throw ReplayFileError(fmt::format("the recorded inputs do not fit {}: {}", recorded.property, e.what()));
        }
      }
      cases_.push_back({file, std::move(recorded)});
    } catch (const ReplayFileError& e) {
      problems_.push_back(fmt::format("{}: {}", file.string(), e.what()));
    }
  }
}

std::vector<const StoredCase*> RegressionStore::cases_for(std::string_view property, std::string_view subject) const {
  std::vector<const StoredCase*> out;
  for (const auto& c : cases_) {
    if (c.recorded.property == property && c.recorded.subject == subject) out.push_back(&c);
  }
  // Smallest inputs first: the quickest to read, and the likeliest to be minimal.
  std::stable_sort(out.begin(), out.end(), [](const StoredCase* a, const StoredCase* b) {
    return a->recorded.inputs.dump().size() < b->recorded.inputs.dump().size();
  });
  if (out.size() > kMaxRegressionsReplayed) out.resize(kMaxRegressionsReplayed);
  return out;
}

fs::path RegressionStore::save(const json& record) const {
  const RecordedCase c = parse_recorded_case(record);
  const fs::path path = dir_ / regression_file_name(c.property, c.subject, c.inputs);
  std::error_code ec;
  if (fs::exists(path, ec)) return path;  // the same inputs: keep the first sighting
  fs::create_directories(dir_, ec);
  if (ec) throw ReportWriteError(fmt::format("cannot create regression store {}: {}", dir_.string(), ec.message()));
  write_file_atomically(path, record.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
  return path;
}

std::optional<PropertyResult> RegressionStore::before(const PropertyDef& property, Subject& subject,
                                                      const RunOptions& options, Expect expectation,
                                                      PropertyResult& counts) {
  const std::string spec = format_spec(subject.info().spec);  // stored cases record the text
  for (const StoredCase* stored : cases_for(property.info.id, spec)) {
    PropertyResult r;
    try {
      r = replay_case(property, subject, stored->recorded.inputs, options.error_model, expectation);
    } catch (const ReplayFileError&) {
      ++counts.regressions_unfit;  // written by another version of the property; left in place
      continue;
    }
    ++counts.regressions_replayed;
    counts.seconds += r.seconds;
    if (auto* violated = std::get_if<Violated>(&r.outcome)) {
      // Found at once: the stored failure is the result, and nothing is generated.
      violated->reproduce = stored->recorded.reproduce;
      violated->regression_file = stored->file.string();
    } else if (!r.subject_failure()) {
      continue;
    }
    r.cases = 0;
    r.seconds = counts.seconds;
    r.seed = derive_seed(options.seed, property.info.id, spec);
    r.regressions_replayed = counts.regressions_replayed;
    r.regressions_unfit = counts.regressions_unfit;
    return r;
  }
  return std::nullopt;
}

void RegressionStore::finish(Plan&, RunReport& report) {
  report.regression_dir = dir_.string();
  report.regression_problems = problems_;
  try {
    for (const auto& path : save_regressions(*this, report)) report.regressions_saved.push_back(path.string());
  } catch (const std::exception& e) {
    // The store is a convenience: a read-only checkout must still get its verdict.
    report.regression_problems.push_back(fmt::format("cannot save to the regression store: {}", e.what()));
  }
}

std::vector<fs::path> save_regressions(const RegressionStore& store, const RunReport& report) {
  std::vector<fs::path> written;
  for (const auto& r : report.results) {
    const Violated* violated = r.violation();
    const bool unexpected = r.status() == Status::failed && violated != nullptr;
    if (!unexpected || !violated->regression_file.empty()) continue;
    std::error_code ec;
    json record = counterexample_json(report, r);
    record["stored_at"] = report.started_at;
    const fs::path path = store.dir() / regression_file_name(r.property, r.subject, violated->counterexample.inputs);
    if (fs::exists(path, ec)) continue;
    written.push_back(store.save(record));
  }
  return written;
}

}  // namespace pecheck
