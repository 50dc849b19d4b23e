// Green at the sizes real models use (issue 18): each region adversary
// (src/planted/region_mutants.cpp) — a correct built-in, exact except +1e-3
// in one region of real-model sizes — fails a whole `pecheck run` at default
// settings (100 cases, default --jobs), and the property its catalog row
// names has the counterexample. Each run is timed against the 90 s the issue
// allows (scaled for sanitizer builds).
#include <boost/test/unit_test.hpp>

#include <string>

#include "pecheck/core/json.h"
#include "pecheck/planted/mutants.h"
#include "support/cli.h"

BOOST_AUTO_TEST_SUITE(test_region_adversaries)

using namespace pecheck;
using pecheck::testing::read_file;
using pecheck::testing::run_cli;
using pecheck::testing::temp_dir;
using pecheck::testing::time_scale;

BOOST_AUTO_TEST_CASE(every_region_adversary_fails_a_default_run) {
  install_planted_subjects();
  for (const PlantedCatch& row : region_catches()) {
    BOOST_TEST_CONTEXT("mutant:" << row.mutant) {
      const std::string dir = temp_dir("region");
      testing::CliOptions limits;
      limits.limit_seconds = 300 * time_scale();
      const auto r = run_cli({"run", "-q", "--no-regressions", "--report-dir", dir, "--subject",
                              std::string("mutant:") + row.mutant},
                             limits);
      BOOST_TEST(r.exit_code == 1, r.output);
      BOOST_TEST(r.seconds <= 90 * time_scale(), "caught in " << r.seconds << " s");
      BOOST_TEST_MESSAGE("mutant:" << row.mutant << " caught in " << r.seconds << " s");
      const json report = json::parse(read_file(dir + "/report.json"));
      bool caught = false;
      for (const auto& result : report["results"]) {
        if (result["property"] != row.property) continue;
        caught = result["outcome"] == "violated" && result["counterexample"]["check"] == row.check;
        BOOST_TEST(caught, result.dump());
      }
      BOOST_TEST(caught, row.property << " did not run");
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()  // test_region_adversaries
