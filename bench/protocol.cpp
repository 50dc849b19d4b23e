#include "protocol.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "pecheck/runner/session.h"

#ifndef PECHECK_SOURCE_DIR
#define PECHECK_SOURCE_DIR "."
#endif

namespace pecheck::bench {

namespace {

struct ProcessRow {
  const char* label;
  const char* script;  // relative to the checkout
  const char* properties;
  int cases;           // per cell, before scaling
};

struct Rate {
  long cases = 0;
  double seconds = 0;
  double per_second() const { return seconds > 0 ? cases / seconds : 0; }
};

// The cells of `row` expected to hold, at full size (the generators' stated
// ranges): the cells' own seconds summed at one job (the first subject
// process's start is not timed), or the run's wall time at more (cells side by
// side, each job with its own subject process, whose start is then timed too).
Rate measure(const ProcessRow& row, int cases, int batch, int jobs = 1, bool json_numbers = false) {
  // The adapter's switch: arrays as JSON numbers instead of b64le (the protocol before binary arrays).
  if (json_numbers) setenv("PECHECK_SUBJECT_B64LE", "0", 1);
  else unsetenv("PECHECK_SUBJECT_B64LE");
  RunOptions options;
  options.subjects = {fmt::format("cmd:/usr/bin/python3 '{}/{}'", PECHECK_SOURCE_DIR, row.script)};
  options.properties = {row.properties};
  options.cases = cases;
  options.batch = batch;
  options.fixed_size = true;
  options.jobs = jobs;
  options.regressions = false;
  Plan p = plan(options);
  RunObserver quiet;
  const auto start = std::chrono::steady_clock::now();
  const RunReport report = run(p, quiet);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Rate rate;
  for (const PropertyResult& r : report.results) {
    if (r.expectation != Expect::holds) continue;
    if (!r.held()) throw std::runtime_error(fmt::format("{} on {}: {}", r.property, row.label, r.message()));
    rate.cases += r.cases;
    rate.seconds += r.seconds;
    // PECHECK_BENCH_CELLS=1: each cell's own figures too (where a family's time goes).
    if (std::getenv("PECHECK_BENCH_CELLS") != nullptr) {
      fmt::print("    {:<28} {}, --batch {}, --jobs {}: {} cases in {:.3f} s, {:.0f} /s\n", r.property,
                 json_numbers ? "JSON" : "b64le", batch, jobs, r.cases, r.seconds, r.cases / r.seconds);
    }
  }
  if (jobs > 1) rate.seconds = wall;
  return rate;
}

}  // namespace

void print_protocol(double scale) {
  const std::vector<ProcessRow> rows = {
      {"zeros (protocol only)", "bench/zero_encoder.py", "pe.bounded", 20000},
      {"NumPy sinusoidal", "examples/python/numpy_sinusoidal.py", "pe.bounded", 20000},
      {"NumPy sinusoidal", "examples/python/numpy_sinusoidal.py", "pe.*", 5000},
      {"NumPy rotary", "examples/python/numpy_rope.py", "rope.*", 5000},
      {"torch MultiheadAttention", "examples/python/torch_mha.py", "attention.*", 1000},
      {"torch batched attention", "examples/python/torch_attention_batched.py", "attention.*", 20000},
  };
  fmt::print("\nPython subjects through the process protocol (cells expected to hold, full-size cases, best of 2;\n"
             "one job: the cells' own seconds; two jobs, the default on two cores: the run's wall time,\n"
             "subject processes' start included; one request per case: at most 5,000 cases a cell (a rate\n"
             "without the start does not depend on the count); JSON: arrays as JSON numbers, one request\n"
             "per case, as before batches and binary arrays)\n");
  fmt::print("{:<26} {:<12} {:>10} {:>14} {:>12} {:>7} {:>18} {:>9}\n", "subject", "properties", "JSON /s",
             "--batch 1 /s", "batched /s", "gain", "batched, 2 jobs /s", "vs JSON");
  // PECHECK_BENCH_ONLY=TEXT: only the rows whose subject's label holds TEXT.
  const char* only = std::getenv("PECHECK_BENCH_ONLY");
  for (const ProcessRow& row : rows) {
    if (only != nullptr && std::string_view(row.label).find(only) == std::string_view::npos) continue;
    const int cases = std::max(100, static_cast<int>(row.cases * scale));
    const int one_by_one = std::min(cases, std::max(100, static_cast<int>(5000 * scale)));
    double plain = 0, one = 0, many = 0, both = 0;
    for (int i = 0; i < 2; ++i) {
      plain = std::max(plain, measure(row, one_by_one, 1, 1, true).per_second());
      one = std::max(one, measure(row, one_by_one, 1).per_second());
      many = std::max(many, measure(row, cases, RunOptions{}.batch).per_second());
      both = std::max(both, measure(row, cases, RunOptions{}.batch, 2).per_second());
    }
    fmt::print("{:<26} {:<12} {:>10.0f} {:>14.0f} {:>12.0f} {:>6.1f}× {:>18.0f} {:>8.1f}×\n", row.label, row.properties,
               plain, one, many, many / one, both, both / plain);
  }
}

}  // namespace pecheck::bench
