// Issue 36: every failing case judged by a bound says which bound judged it
// and the worst-case ceiling, in the console and report.json: a tight bound
// (attention's same-dtype reference) prints both numbers, a claim with no
// tight bound says its worst case judged and is its own ceiling.
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "pecheck/core/json.h"
#include "support/cli.h"

BOOST_AUTO_TEST_SUITE(test_bound_lines)

using namespace pecheck;
using pecheck::testing::read_file;
using pecheck::testing::run_cli;
using pecheck::testing::temp_dir;

namespace {

struct Run {
  std::string console;
  json tolerance;
  std::string markdown;
};

Run failing(const std::string& mutant, const std::string& property) {
  const std::string dir = temp_dir("bound_lines");
  const auto r = run_cli({"run", "--no-regressions", "--report-dir", dir, "--subject", "mutant:" + mutant,
                          "--properties", property});
  BOOST_TEST(r.exit_code == 1, r.output);
  const json report = json::parse(read_file(dir + "/report.json"));
  BOOST_REQUIRE_EQUAL(report["results"].size(), 1U);
  const json& result = report["results"][0];
  BOOST_REQUIRE_MESSAGE(result.contains("counterexample"), result.dump());
  return {r.output, result["counterexample"]["tolerance"], read_file(dir + "/summary.md")};
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

BOOST_AUTO_TEST_CASE(a_tight_bound_prints_itself_and_the_worst_case) {
  const Run r = failing("attention-scale-by-d@float32", "attention.reference_values");
  BOOST_TEST(r.tolerance["judged_by"] == "same-dtype reference", r.tolerance.dump());
  BOOST_REQUIRE(r.tolerance.contains("worst_case"));
  BOOST_TEST(r.tolerance["worst_case"].get<double>() >= r.tolerance["bound"].get<double>(), r.tolerance.dump());
  BOOST_TEST(has(r.console, "judged by the same-dtype reference; the worst case is"), r.console);
  // The formula every writer prints names both (Markdown's counterexample table).
  BOOST_TEST(has(r.tolerance["formula"].get<std::string>(), "worst case"), r.tolerance.dump());
  BOOST_TEST(has(r.markdown, "worst case"), r.markdown);
}

BOOST_AUTO_TEST_CASE(a_rotary_claim_is_judged_by_its_same_dtype_rotation) {
  // Angles in float16 where a finer precision is declared: the rotation pecheck evaluates in the declared
  // dtypes judges, far below the worst case, and the bug is past it.
  const Run r = failing("rope-angle-float16", "rope.relative_dot");
  BOOST_TEST(r.tolerance["judged_by"] == "same-dtype reference", r.tolerance.dump());
  BOOST_TEST(r.tolerance["worst_case"].get<double>() > 4 * r.tolerance["bound"].get<double>(), r.tolerance.dump());
  BOOST_TEST(has(r.tolerance["formula"].get<std::string>(), "rotation's own errors in the two dot products"),
             r.tolerance.dump());
}

BOOST_AUTO_TEST_CASE(a_worst_case_bound_says_it_judged_as_its_own_ceiling) {
  const Run r = failing("rope-llama-bf16-inv-freq", "rope.reference_values");
  BOOST_TEST(!r.tolerance.contains("judged_by"), r.tolerance.dump());
  BOOST_TEST(r.tolerance["bound"].get<double>() > 0, r.tolerance.dump());
  BOOST_TEST(has(r.console, "judged by the worst case (no tight bound for this claim), its own ceiling"), r.console);
}

BOOST_AUTO_TEST_SUITE_END()
