#include "scaling.h"

#include <fmt/format.h>

#include <chrono>
#include <stdexcept>

#include "pecheck/property/registry.h"
#include "pecheck/report/json_writer.h"
#include "pecheck/runner/cell.h"
#include "pecheck/runner/session.h"
#include "pecheck/subjects/factory.h"

#ifndef PECHECK_SOURCE_DIR
#define PECHECK_SOURCE_DIR "."
#endif

namespace pecheck::bench {

namespace {

struct Timed {
  double seconds = 0;
  json report;
};

// The default claims matrix, as `pecheck run --cases N --jobs J --no-regressions` does it (no plots).
Timed full_matrix(int cases, int jobs) {
  RunOptions options;
  options.cases = cases;
  options.jobs = jobs;
  options.regressions = false;
  options.plots = false;
  const auto start = std::chrono::steady_clock::now();
  Plan p = plan(options);
  RunObserver quiet;
  RunReport report = run(p, quiet);
  Timed out;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.report = to_json(report);
  for (const char* key : {"seconds", "started_at"}) out.report.erase(key);
  for (auto& r : out.report["results"]) r.erase("seconds");
  return out;
}

double process_rate(const std::string& script, const char* property, int cases) {
  const PropertyDef* p = find_property(property);
  if (p == nullptr) throw std::runtime_error(std::string("no property ") + property);
  auto subject = make_subject(fmt::format("cmd:/usr/bin/python3 '{}/{}'", PECHECK_SOURCE_DIR, script));
  RunOptions options;
  options.cases = cases;
  options.fixed_size = true;
  const PropertyResult r = run_cell(*p, *subject, options, Expect::holds);
  if (!r.held()) throw std::runtime_error(fmt::format("{} did not hold: {}", property, r.message()));
  return r.cases / r.seconds;
}

}  // namespace

void print_scaling(double scale) {
  const int cases = std::max(100, static_cast<int>(20000 * scale));
  const Timed one = full_matrix(cases, 1);
  const Timed two = full_matrix(cases, 2);
  fmt::print("\nfull claims matrix, {} cases per cell ({} cells)\n", cases, one.report["results"].size());
  fmt::print("  --jobs 1 {:>8.2f} s\n  --jobs 2 {:>8.2f} s   ({:.2f}× faster; same report: {})\n", one.seconds,
             two.seconds, one.seconds / two.seconds, one.report == two.report ? "yes" : "NO");
  const int process_cases = std::max(100, static_cast<int>(5000 * scale));
  fmt::print("\nPython subjects through the process protocol (one request per case, best of 3)\n");
  for (const auto& [label, script, property] :
       {std::tuple{"NumPy sinusoidal", "examples/python/numpy_sinusoidal.py", "pe.bounded"}}) {
    double best = 0;
    for (int i = 0; i < 3; ++i) best = std::max(best, process_rate(script, property, process_cases));
    fmt::print("  {:<18} {:<12} {:>10.0f} cases/s\n", label, property, best);
  }
}

}  // namespace pecheck::bench
