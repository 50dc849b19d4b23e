// The time budget bounds shrinking too (issue 39: a 90 s --time-budget ended
// at 276 s, exit 0, while a counterexample shrank). A shrink the budget cuts
// short ends at once with the smallest counterexample found so far, marked
// shrink_cut_short and said in its diagnosis; the run is red and ends within
// a few seconds of its budget.
#include <boost/test/unit_test.hpp>

#include <cstdlib>

#include "test_process_cli.h"

BOOST_AUTO_TEST_SUITE(test_budget_shrink)

using namespace pecheck;
using namespace pecheck::testing::process_cli;

BOOST_AUTO_TEST_CASE(a_shrink_cut_short_by_the_budget_reports_the_smallest_counterexample_so_far) {
  // Each answer takes 0.5 s and every case fails: shrinking takes many
  // seconds, the budget 2 (and the steps after the cells, plots and
  // diagnosis, which ask the subject more, are skipped once it is spent).
  setenv("PECHECK_TEST_ANSWER_SECONDS", "0.5", 1);
  const Run run = run_pecheck({"--subject", python_subject("tests/subjects/slow_wrong_encoder.py"), "--properties",
                               "pe.reference_values", "--cases", "100", "--time-budget", "2"},
                              60);
  BOOST_TEST(run.exit_code == 1, run.console);
  BOOST_TEST(run.seconds < 2 + 5 * pecheck::testing::time_scale(), "ended " << run.seconds << " s after its start");
  const json* r = run.result("pe.reference_values");
  BOOST_REQUIRE_MESSAGE(r != nullptr, run.console);
  BOOST_TEST((*r)["outcome"] == "violated", r->dump());
  BOOST_TEST(r->value("shrink_cut_short", false), r->dump());
  BOOST_REQUIRE(r->contains("counterexample"));
  const std::string diagnosis = (*r)["counterexample"].value("diagnosis", "");
  BOOST_TEST(diagnosis.find("shrinking cut short by the run's time budget (2 s)") != std::string::npos, diagnosis);
  BOOST_TEST(diagnosis.find("the smallest counterexample found so far") != std::string::npos, diagnosis);
  BOOST_TEST(run.report["time_budget"]["spent"] == true, run.report.dump().substr(0, 400));
  BOOST_TEST(run.console.find("shrinking cut short") != std::string::npos, run.console);

  // Without a budget the same run shrinks to its end, and says nothing of the kind (answers of 0.1 s: the
  // same cases and steps, each paused less; the whole shrink still outlasts the budget several times over).
  setenv("PECHECK_TEST_ANSWER_SECONDS", "0.1", 1);
  const Run whole = run_pecheck({"--subject", python_subject("tests/subjects/slow_wrong_encoder.py"), "--properties",
                                 "pe.reference_values", "--cases", "100"},
                                120);
  unsetenv("PECHECK_TEST_ANSWER_SECONDS");
  const json* w = whole.result("pe.reference_values");
  BOOST_REQUIRE_MESSAGE(w != nullptr, whole.console);
  BOOST_TEST(!w->contains("shrink_cut_short"), w->dump());
  BOOST_TEST((*w)["shrinks"].get<int>() > (*r)["shrinks"].get<int>(), "the budget cut the shrink short");
  BOOST_TEST(whole.seconds > 2.5, "shrinking this subject takes longer than the budget: " << whole.seconds << " s");
}

BOOST_AUTO_TEST_SUITE_END()  // test_budget_shrink
