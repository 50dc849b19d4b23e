// --jobs N runs cells side by side, each job with its own subject instances
// (a process subject: one process per job), and changes nothing but the
// timings: the same report.json, console and exit code as --jobs 1 — for the
// default claims matrix, for process subjects, and for a run with
// violations and a subject failure (whose later cells are not run, as with
// one job). The pool delivers in order and passes a task's exception on.
#define BOOST_TEST_MODULE parallel_cells
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "runner/parallel.h"
#include "support/cli.h"
#include "support/run_compare.h"

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
  check_jobs_change_nothing({"run", "--cases", "30", "--subject",
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
