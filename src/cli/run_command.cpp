#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <deque>
#include <iostream>
#include <optional>
#include <random>

#include "cli/commands.h"
#include "cli/run_extras.h"
#include "pecheck/config/config_file.h"
#include "pecheck/config/profiles.h"
#include "pecheck/property/registry.h"
#include "pecheck/report/console_writer.h"
#include "pecheck/report/report_files.h"
#include "pecheck/runner/session.h"
#include "pecheck/subjects/builtin/builtins.h"
#include "pecheck/subjects/factory.h"

#ifndef PECHECK_VERSION
#define PECHECK_VERSION "0.0.0"
#endif

namespace pecheck::cli {

namespace {

struct ConsoleObserver : RunObserver {
  bool quiet = false;
  void on_result(const PropertyResult& r) override {
    if (!quiet || r.status != Status::passed) std::cout << progress_line(r) << std::endl;
  }
};

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// Settings from the config file fill what the command line did not give.
void overlay(const FileConfig& f, RunOptions& o) {
  auto take = [&o](const char* flag, const auto& from_file, auto& field) {
    if (from_file && o.given.count(flag) == 0) field = *from_file;
  };
  if (o.subjects.empty()) o.subjects = f.subjects;
  if (o.properties.empty()) o.properties = f.properties;
  take("--profile", f.profile, o.profile);
  take("--cases", f.cases, o.cases);
  take("--seed", f.seed, o.seed);
  take("--max-position", f.max_position, o.max_position);
  take("--subject-timeout", f.subject_timeout, o.subject_timeout);
  take("--report-dir", f.report_dir, o.report_dir);
  take("--tolerance-factor", f.tolerance_factor, o.tolerance_factor);
}

}  // namespace

int run(const RunOptions& options, const std::string& program, const std::string& command_line) {
  RunOptions o = options;
  FileConfig file;
  if (!o.config.empty()) {
    std::vector<std::string> ids;
    for (const auto& p : all_properties()) ids.push_back(p.info.id);
    try {
      file = load_config(o.config, ids);
    } catch (const ConfigError& e) {
      std::cerr << "pecheck: " << e.what() << "\n";
      return kExitUsage;
    }
    overlay(file, o);
  }
  const Profile* named_profile = nullptr;
  if (!o.profile.empty() && (named_profile = find_profile(o.profile)) == nullptr) {
    std::cerr << fmt::format("pecheck: unknown profile '{}'; known: {}\n", o.profile, profile_names());
    return kExitUsage;
  }
  std::uint64_t seed = 0;
  if (o.seed == "random") {
    seed = std::random_device{}();
  } else {
    try {
      size_t used = 0;
      seed = std::stoull(o.seed, &used);
      if (used != o.seed.size()) throw std::invalid_argument(o.seed);
    } catch (const std::exception&) {
      std::cerr << "pecheck: --seed must be a non-negative integer or 'random', got '" << o.seed << "'\n";
      return kExitUsage;
    }
  }
  std::vector<const PropertyDef*> selected;
  for (const auto& p : all_properties()) {
    if (matches_any(p.info.id, o.properties) &&
        (named_profile == nullptr || matches_any(p.info.id, named_profile->properties))) {
      selected.push_back(&p);
    }
  }
  if (selected.empty()) {
    std::cerr << "pecheck: no property matches --properties"
              << (named_profile ? " within profile '" + named_profile->name + "'" : std::string())
              << "; see 'pecheck list'\n";
    return kExitUsage;
  }

  RunReport report;
  report.pecheck_version = PECHECK_VERSION;
  report.program = program;
  report.seed = seed;
  report.cases = o.cases;
  report.max_size = o.max_size;
  report.max_position = o.max_position;
  report.tolerance_factor = o.tolerance_factor;
  report.started_at = utc_now();
  report.command = command_line + (o.seed == "random" ? fmt::format(" --seed {}", seed) : "");
  for (const auto* p : selected) report.properties.push_back(p->info);

  RunConfig config;
  config.seed = seed;
  config.cases = o.cases;
  config.max_size = o.max_size;
  config.shrink = o.shrink;
  config.max_position = o.max_position;
  config.model.factor = o.tolerance_factor;
  config.reproduce = o.reproduce;
  config.expectations = file.expect;
  config.model.overrides = file.tolerance_factors;
  config.model.absolute = file.tolerance_bounds;
  // Stored failures are replayed first, before any new case (cli/run_extras.h).
  const auto store = open_regression_store(o, config);
  const RegressionStore* store_ptr = store ? &*store : nullptr;
  std::deque<PropertyDef> stored_first;

  std::vector<std::string> specs = o.subjects;
  if (specs.empty()) {
    for (const auto& s : builtin_subjects()) {
      if (s.in_default_matrix) specs.push_back("builtin:" + s.name);
    }
  }
  const auto start = std::chrono::steady_clock::now();
  ConsoleObserver observer;
  observer.quiet = o.quiet;
  std::vector<SubjectPtr> owned;
  bool start_failed = false;
  for (const auto& spec : specs) {
    try {
      SubjectOptions subject_options{o.subject_timeout};
      subject_options.executable = o.executable;
      owned.push_back(make_subject(spec, subject_options));
    } catch (const BadSubjectSpec& e) {
      std::cerr << "pecheck: " << e.what() << "\n";
      return kExitUsage;
    } catch (const SubjectFailure& f) {
      // A subject that cannot start is recorded like any failure, and the others still run.
      start_failed = true;
      PropertyResult r;
      r.property = "subject.start";
      r.subject = spec;
      r.outcome = Outcome::error;
      r.status = Status::error;
      r.message = std::string("subject failure: ") + f.what();
      r.subject_failure = SubjectFailureInfo{f.what(), f.request, f.received, f.stderr_tail, f.exit_status};
      report.results.push_back(r);
      report.subjects.push_back({spec, spec, "", "", "", {}});
      observer.on_result(r);
    }
  }
  for (auto& s : owned) {
    // Each subject runs under its profile: that profile's properties and expectation scheme.
    const auto profile = profile_for(s->info(), named_profile);
    RunConfig subject_config = config;
    std::vector<const PropertyDef*> applicable;
    for (const auto* p : selected) {
      if (profile_applies(profile, p->info.id)) applicable.push_back(p);
    }
    if (profile) subject_config.scheme = profile->name;
    report.subjects.push_back(summarize(s->info()));
    if (profile) report.subjects.back().scheme = profile->name;
    if (applicable.empty()) continue;
    auto results = run_matrix(regressions_first(applicable, store_ptr, stored_first), {s.get()}, subject_config,
                              observer);
    report.results.insert(report.results.end(), results.begin(), results.end());
  }
  complete_report(report, owned, selected, config, o, store_ptr);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.exit_code = exit_code_for(report.results);
  if (start_failed) report.exit_code = kExitSubject;

  std::cout << write_console_matrix(report);
  try {
    const auto files = write_reports(o.report_dir, report);
    std::cout << fmt::format("reports: {}/ (report.json, junit.xml, summary.md, report.html, {} counterexample files)\n",
                             o.report_dir, files.size() - 4);
    after_reports(report, store_ptr, o);
  } catch (const ReportWriteError& e) {
    std::cerr << "pecheck: " << e.what() << "\n";
    return kExitUsage;
  }
  return report.exit_code;
}

}  // namespace pecheck::cli
