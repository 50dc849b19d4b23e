#include "fresh_copies.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "pecheck/runner/session.h"
#include "pecheck/subjects/copies.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/typed_subject.h"

#ifndef PECHECK_SOURCE_DIR
#define PECHECK_SOURCE_DIR "."
#endif

namespace pecheck::bench {

namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kBlock = "tests/subjects/torch_llama_block_float32.py";

// The checkout: where this was built, or $PECHECK_SOURCE_DIR (a copy of it on another machine).
std::string source_dir() {
  const char* moved = std::getenv("PECHECK_SOURCE_DIR");
  return moved != nullptr && *moved != '\0' ? moved : PECHECK_SOURCE_DIR;
}

std::string block_spec() { return fmt::format("cmd:/usr/bin/python3 '{}/{}'", source_dir(), kBlock); }

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// One token through the block (its width, 32): what a fresh copy is asked first.
Batch one_token() { return {Matrix::Constant(1, 32, 0.25)}; }

// Seconds for `count` fresh copies, each asked one forward and ended, from a
// subject already started: forked (the zygote prepares copies ahead) or
// started afresh.
double per_copy(bool fork, int count) {
  SubjectOptions options;
  options.fork = fork;
  SubjectPtr subject = make_subject(block_spec(), options);
  ask::forward(*subject, one_token(), {}, {});
  const auto start = Clock::now();
  for (int i = 0; i < count; ++i) {
    SubjectPtr copy = fork ? fresh_copy_of(*subject) : make_subject(block_spec(), options);
    if (!copy) throw std::runtime_error("the block made no fresh copy: does it still declare fork?");
    ask::forward(*copy, one_token(), {}, {});
  }
  return since(start) / count;
}

struct Run {
  double wall = 0;           // the whole run, its subject's start included
  double history_rate = 0;   // history_independence's cases per second
  int history_cases = 0;
  double history_seconds = 0;
};

Run timed_run(bool fork, const std::vector<std::string>& properties, int cases) {
  RunOptions options;
  options.subjects = {block_spec()};
  options.properties = properties;
  options.cases = cases;
  options.jobs = 2;
  options.fork = fork;
  options.regressions = false;
  const auto start = Clock::now();
  Plan p = plan(options);
  RunObserver quiet;
  const RunReport report = pecheck::run(p, quiet);
  Run out;
  out.wall = since(start);
  for (const PropertyResult& r : report.results) {
    if (r.expectation == Expect::holds && !r.held()) {
      throw std::runtime_error(fmt::format("{} on the block: {}", r.property, r.message()));
    }
    if (r.property != "history_independence") continue;
    out.history_cases = r.cases;
    out.history_seconds = r.seconds;
    out.history_rate = r.seconds > 0 ? r.cases / r.seconds : 0;
  }
  return out;
}

}  // namespace

void print_fresh_copies(double scale) {
  const int copies = std::max(10, static_cast<int>(100 * scale));
  const int afresh_cases = std::max(3, static_cast<int>(10 * scale));
  fmt::print("\nfresh copies of the PyTorch Llama-style block ({}), two jobs, best of 2\n", kBlock);
  double forked_copy = 1e9, afresh_copy = 1e9;
  Run profile, afresh;
  for (int i = 0; i < 2; ++i) {
    forked_copy = std::min(forked_copy, per_copy(true, copies));
    afresh_copy = std::min(afresh_copy, per_copy(false, std::max(3, copies / 20)));
    const Run p = timed_run(true, {}, 100);  // the default (module) profile
    if (i == 0 || p.wall < profile.wall) profile = p;
    const Run a = timed_run(false, {"history_independence"}, afresh_cases);
    if (i == 0 || a.history_rate > afresh.history_rate) afresh = a;
  }
  fmt::print("  a fresh copy and its first forward   forked {:>8.1f} ms   started afresh {:>8.1f} ms   ({:.0f}×)\n",
             1000 * forked_copy, 1000 * afresh_copy, afresh_copy / forked_copy);
  fmt::print("  history_independence                forked {:>8.2f} /s   started afresh {:>8.3f} /s   ({:.0f}×; "
             "{} and {} cases)\n",
             profile.history_rate, afresh.history_rate, profile.history_rate / afresh.history_rate,
             profile.history_cases, afresh.history_cases);
  fmt::print("  default module profile, 100 cases, --jobs 2: {:.1f} s end to end (history_independence: {:.1f} s)\n",
             profile.wall, profile.history_seconds);
}

}  // namespace pecheck::bench
