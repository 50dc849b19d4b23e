#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <iostream>
#include <random>

#include "cli/commands.h"
#include "registry.h"
#include "report/console_writer.h"
#include "report/report_files.h"
#include "runner/session.h"
#include "subjects/builtin/builtins.h"
#include "subjects/factory.h"

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

}  // namespace

int run(const RunOptions& o, const std::string& program, const std::string& command_line) {
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
    if (matches_any(p.info.id, o.properties)) selected.push_back(&p);
  }
  if (selected.empty()) {
    std::cerr << "pecheck: no property matches --properties; see 'pecheck list'\n";
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
      owned.push_back(make_subject(spec, SubjectOptions{o.subject_timeout}));
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
  std::vector<Subject*> subjects;
  for (auto& s : owned) {
    subjects.push_back(s.get());
    report.subjects.push_back(summarize(s->info()));
  }
  auto results = run_matrix(selected, subjects, config, observer);
  report.results.insert(report.results.end(), results.begin(), results.end());
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.exit_code = exit_code_for(report.results);
  if (start_failed) report.exit_code = kExitSubject;

  std::cout << write_console_matrix(report);
  try {
    const auto files = write_reports(o.report_dir, report);
    std::cout << fmt::format("reports: {}/ (report.json, junit.xml, summary.md, {} counterexample files)\n",
                             o.report_dir, files.size() - 3);
  } catch (const ReportWriteError& e) {
    std::cerr << "pecheck: " << e.what() << "\n";
    return kExitUsage;
  }
  return report.exit_code;
}

}  // namespace pecheck::cli
