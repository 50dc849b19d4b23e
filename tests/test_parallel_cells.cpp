// --jobs N runs cells side by side, each job with its own subject instances
// (a process subject: one process per job), and changes nothing but the
// timings: the same report.json, console and exit code as --jobs 1 — for the
// default claims matrix, for process subjects, and for a run with
// violations and a subject failure (whose later cells are not run, as with
// one job). The pool delivers in order and passes a task's exception on.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cmath>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "pecheck/cpp/implementation.h"
#include "pecheck/report/json_writer.h"
#include "pecheck/runner/session.h"
#include "runner/parallel.h"
#include "support/cli.h"
#include "support/run_compare.h"

BOOST_AUTO_TEST_SUITE(test_parallel_cells)

using namespace pecheck;
using namespace pecheck::testing;

namespace {

std::string source(const std::string& path) { return std::string(std::getenv("PECHECK_SOURCE_DIR")) + "/" + path; }

void check_jobs_change_nothing(std::vector<std::string> args, int expected_exit) {
  const std::string root = temp_dir("parallel");
  std::vector<std::string> one = args, two = args;
  one.insert(one.end(), {"--jobs", "1", "--report-dir", root + "/one"});
  two.insert(two.end(), {"--jobs", "2", "--report-dir", root + "/two"});
  const CliResult a = run_cli(one);
  const CliResult b = run_cli(two);
  BOOST_TEST(a.exit_code == expected_exit, a.output);
  BOOST_TEST(b.exit_code == a.exit_code, b.output);
  const json ja = report_without_timings(root + "/one");
  const json jb = report_without_timings(root + "/two");
  BOOST_TEST(ja == jb, json::diff(ja, jb).dump(1).substr(0, 3000));
  BOOST_TEST(console_without_timings(a.output) == console_without_timings(b.output));
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_default_matrix_at_two_jobs_equals_one_job) {
  check_jobs_change_nothing({"run"}, 0);
}

BOOST_AUTO_TEST_CASE(process_subjects_run_one_process_per_job) {
  // The pe.* and rope.* claims: history_independence starts a process per
  // request it compares with, which would only make this test slow.
  check_jobs_change_nothing({"run", "--cases", "30", "--properties", "pe.*", "--properties", "rope.*", "--subject",
                             "cmd:/usr/bin/python3 '" + source("examples/python/numpy_sinusoidal.py") + "'", "--subject",
                             "cmd:/usr/bin/python3 '" + source("examples/python/numpy_rope.py") + "'"},
                            0);
}

BOOST_AUTO_TEST_CASE(violations_and_a_subject_failure_come_out_as_with_one_job) {
  check_jobs_change_nothing({"run", "--cases", "30", "--subject", "mutant:sinusoidal-sin-cos-swapped", "--subject",
                             "cmd:/usr/bin/python3 '" + source("tests/subjects/misbehaving.py") + "' crash-after-hello",
                             "--subject", "builtin:rope"},
                            3);
}

BOOST_AUTO_TEST_CASE(results_are_delivered_in_order_whatever_finishes_first) {
  std::vector<std::size_t> delivered;
  std::atomic<int> running{0}, most{0};
  run_ordered(
      12, 3,
      [&](std::size_t, std::size_t i) {
        const int now = ++running;
        for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {}
        // Early tasks take longest, so later ones finish first.
        std::this_thread::sleep_for(std::chrono::milliseconds(i < 3 ? 40 : 2));
        --running;
      },
      [&](std::size_t i) { delivered.push_back(i); });
  BOOST_TEST(delivered.size() == 12u);
  for (std::size_t i = 0; i < delivered.size(); ++i) BOOST_TEST(delivered[i] == i);
  BOOST_TEST(most.load() > 1);  // they did run side by side
  BOOST_TEST(most.load() <= 3);
}

BOOST_AUTO_TEST_CASE(an_exception_of_a_task_reaches_the_caller_in_its_turn) {
  std::vector<std::size_t> delivered;
  BOOST_CHECK_THROW(run_ordered(
                        8, 2,
                        [](std::size_t, std::size_t i) {
                          if (i == 4) throw std::runtime_error("task 4");
                        },
                        [&](std::size_t i) { delivered.push_back(i); }),
                    std::runtime_error);
  BOOST_TEST(delivered.size() == 4u);  // 0..3, then the throw
}

namespace {

// A C++ encoder (a subject that cannot be started twice: spec cpp:...) that
// notices being entered from two threads at once.
struct WatchedEncoder : pecheck::cpp::Encoder {
  std::atomic<int>& inside;
  std::atomic<bool>& overlapped;
  WatchedEncoder(std::atomic<int>& in, std::atomic<bool>& over)
      : Encoder({.name = "watched", .dtype = Dtype::float64, .layout = Layout::interleaved}), inside(in), overlapped(over) {}
  void encode_row(int dim, Position t, Position, std::span<double> row) override {
    if (++inside > 1) overlapped = true;
    for (int i = 0; 2 * i < dim; ++i) {
      const double w = std::pow(10000.0, -2.0 * i / dim);
      row[static_cast<size_t>(2 * i)] = std::sin(static_cast<double>(t) * w);
      if (2 * i + 1 < dim) row[static_cast<size_t>(2 * i + 1)] = std::cos(static_cast<double>(t) * w);
    }
    --inside;
  }
};

json run_watched(int jobs, int& made, std::atomic<bool>& overlapped) {
  std::atomic<int> inside{0};
  RunOptions options;
  options.subjects = {"cpp:watched"};
  options.properties = {"pe.*"};
  options.cases = 50;
  options.jobs = jobs;
  options.regressions = false;
  Plan p = plan(options, {}, [&](const SubjectSpec&, const RunOptions&) -> SubjectPtr {
    ++made;
    return std::make_unique<WatchedEncoder>(inside, overlapped);
  });
  RunObserver none;
  const RunReport report = run(p, none);
  BOOST_TEST(report.results.size() > 3u);
  json j = to_json(report);
  j.erase("seconds");
  j.erase("started_at");
  for (auto& r : j["results"]) r.erase("seconds");
  return j;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_subject_that_cannot_start_twice_runs_on_one_instance_one_cell_at_a_time) {
  int made_one = 0, made_four = 0;
  std::atomic<bool> overlapped{false};
  const json one = run_watched(1, made_one, overlapped);
  const json four = run_watched(4, made_four, overlapped);
  BOOST_TEST(made_one == 1);
  BOOST_TEST(made_four == 1);  // never started again for the other jobs
  BOOST_TEST(!overlapped.load());
  BOOST_TEST(one == four);
}

BOOST_AUTO_TEST_SUITE_END()  // test_parallel_cells
