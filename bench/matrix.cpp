#include "matrix.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "pecheck/report/json_writer.h"
#include "pecheck/runner/session.h"

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

}  // namespace

void print_matrix(double scale) {
  const int cases = std::max(100, static_cast<int>(20000 * scale));
  const Timed one = full_matrix(cases, 1);
  const Timed two = full_matrix(cases, 2);
  fmt::print("\nfull claims matrix, {} cases per cell ({} cells)\n", cases, one.report["results"].size());
  fmt::print("  --jobs 1 {:>8.2f} s\n  --jobs 2 {:>8.2f} s   ({:.2f}× faster; same report: {})\n", one.seconds,
             two.seconds, one.seconds / two.seconds, one.report == two.report ? "yes" : "NO");
}

}  // namespace pecheck::bench
