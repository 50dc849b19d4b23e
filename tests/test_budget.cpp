// Precision budgets (src/budget/precision_budget.cpp): the largest position
// up to which a structural property holds within one fixed tolerance. For a
// float16 encoder pe.distinct_positions ends near 2048, where float16 stops
// telling consecutive integers apart; float32 goes far beyond; the float64
// reference holds everywhere searched. Budgets appear in every report format.
#include <boost/test/unit_test.hpp>

#include "pecheck/budget/precision_budget.h"
#include "pecheck/property/registry.h"
#include "pecheck/report/html_writer.h"
#include "pecheck/report/json_writer.h"
#include "pecheck/report/junit_writer.h"
#include "pecheck/report/markdown_writer.h"
#include "pecheck/subjects/factory.h"
#include "support/cli.h"
#include "support/sample_report.h"

BOOST_AUTO_TEST_SUITE(test_budget)

using namespace pecheck;
using namespace pecheck::testing;

namespace {

PrecisionBudget budget(const std::string& property, const std::string& spec, std::uint64_t seed = 1,
                       BudgetOptions options = {}) {
  auto subject = make_subject(spec);
  RunOptions run;
  run.seed = seed;
  return search_budget(*find_property(property), *subject, run, options);
}

}  // namespace

BOOST_AUTO_TEST_CASE(default_target_is_one_float16_rounding_at_unit_scale) {
  const Tolerance t = default_budget_target(8);
  BOOST_TEST(t.bound == 8 * std::ldexp(1.0, -11));
  BOOST_TEST(t.formula.find("u(float16)") != std::string::npos);
  BudgetOptions chosen;
  chosen.target = 1e-6;
  BOOST_TEST(budget_target(chosen, 8).bound == 1e-6);
}

BOOST_AUTO_TEST_CASE(float16_distinct_positions_ends_near_2048_for_several_seeds) {
  for (std::uint64_t seed : {1, 2, 3, 4}) {
    const PrecisionBudget b = budget("pe.distinct_positions", "builtin:sinusoidal@float16", seed);
    BOOST_TEST_MESSAGE("seed " << seed << ": " << budget_sentence(b));
    BOOST_TEST(!b.stopped_early);
    BOOST_TEST(b.fails_from > 0, budget_sentence(b));
    BOOST_TEST(b.holds_up_to >= 1536, budget_sentence(b));
    BOOST_TEST(b.holds_up_to <= 3072, budget_sentence(b));
    // The shrunk witness is two positions float16 rounds together, past 2048.
    BOOST_TEST(b.witness_position > 2048, b.witness.dump());
    BOOST_TEST(b.witness_where.find("positions") != std::string::npos);
    BOOST_TEST(b.target == 8 * std::ldexp(1.0, -11));
  }
}

BOOST_AUTO_TEST_CASE(float32_and_float64_go_far_beyond) {
  BudgetOptions options;
  options.limit = Position{1} << 18;
  const PrecisionBudget single = budget("pe.distinct_positions", "builtin:sinusoidal@float32", 1, options);
  BOOST_TEST(single.fails_from == 0, budget_sentence(single));
  BOOST_TEST(single.holds_up_to == options.limit);
  BOOST_TEST(budget_sentence(single).find("at every position tried, up to 262144") != std::string::npos);

  // The step size drifts as the angle t·ω is rounded: float32's budget is
  // about u(float16)/u(float32) = 8192 times float16's.
  const PrecisionBudget half_step = budget("pe.step_size", "builtin:sinusoidal@float16");
  const PrecisionBudget single_step = budget("pe.step_size", "builtin:sinusoidal@float32");
  const PrecisionBudget double_step = budget("pe.step_size", "builtin:sinusoidal", 1, options);
  BOOST_TEST_MESSAGE("float16: " << budget_sentence(half_step) << "\nfloat32: " << budget_sentence(single_step)
                                 << "\nfloat64: " << budget_sentence(double_step));
  BOOST_TEST(half_step.fails_from > 0);
  BOOST_TEST(half_step.holds_up_to >= 4);
  BOOST_TEST(single_step.holds_up_to > 1000 * half_step.holds_up_to);
  BOOST_TEST(double_step.fails_from == 0);
}

BOOST_AUTO_TEST_CASE(budgets_are_for_structural_properties_that_hold) {
  auto subject = make_subject("builtin:sinusoidal");
  const SubjectInfo& info = subject->info();
  BOOST_TEST(has_budget(find_property("pe.step_size")->info, info, Expect::holds));
  BOOST_TEST(!has_budget(find_property("pe.step_size")->info, info, Expect::violated));
  BOOST_TEST(!has_budget(find_property("pe.reference_values")->info, info, Expect::holds));
  BOOST_TEST(!has_budget(find_property("attention.convex_combination")->info, info, Expect::holds));
  auto rope = make_subject("builtin:rope@float16");
  BOOST_TEST(has_budget(find_property("rope.relative_dot")->info, rope->info(), Expect::holds));
}

BOOST_AUTO_TEST_CASE(search_is_bounded_in_time) {
  BudgetOptions options;
  options.seconds = 0;  // stop after the first step
  const PrecisionBudget b = budget("pe.step_size", "builtin:sinusoidal", 1, options);
  BOOST_TEST(b.stopped_early);
  BOOST_TEST(b.steps == 1);
  BOOST_TEST(budget_sentence(b).find("time allowance") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(every_report_format_shows_the_budget) {
  RunReport report = sample_report();
  PrecisionBudget b;
  b.property = "pe.bounded";
  b.subject = "builtin:sinusoidal";
  b.dtype = "float16";
  b.target = 3.9e-3;
  b.target_formula = "8 · u(float16) · 1 · 1 = 0.0039";
  b.holds_up_to = 2048;
  b.fails_from = 2050;
  b.witness_position = 2049;
  report.budgets.push_back(b);
  const std::string sentence = budget_sentence(b);
  BOOST_TEST(sentence == "holds to 0.0039 up to position 2048; fails beyond (shrunk witness at position 2049)");
  BOOST_TEST(json::parse(write_json(report))["budgets"][0]["summary"] == sentence);
  BOOST_TEST(write_markdown(report).find(sentence) != std::string::npos);
  BOOST_TEST(write_junit(report).find("name=\"budget.pe.bounded\" value=\"" + sentence + "\"") != std::string::npos);
  BOOST_TEST(write_html(report).find(sentence) != std::string::npos);
}

BOOST_AUTO_TEST_CASE(cli_searches_budgets_only_when_asked) {
  const std::string dir = temp_dir("pecheck-budget");
  const auto with = run_cli({"run", "--subject", "builtin:sinusoidal@float16", "--properties", "pe.distinct_positions",
                             "--budget", "--report-dir", dir + "/with"});
  BOOST_TEST(with.exit_code == 0, with.output);
  BOOST_TEST(with.output.find("Precision budgets") != std::string::npos, with.output);
  const json j = json::parse(read_file(dir + "/with/report.json"));
  BOOST_REQUIRE(j["budgets"].size() == 1u);
  BOOST_TEST(j["budgets"][0]["holds_up_to"].get<int>() >= 1536);
  BOOST_TEST(j["budgets"][0]["holds_up_to"].get<int>() <= 3072);

  const auto target = run_cli({"run", "--subject", "builtin:sinusoidal@float16", "--properties", "pe.step_size",
                               "--budget", "--precision-target", "0.05", "--report-dir", dir + "/target"});
  const json t = json::parse(read_file(dir + "/target/report.json"));
  BOOST_TEST(t["budgets"][0]["target"] == 0.05);
  BOOST_TEST(t["budgets"][0]["target_formula"].get<std::string>().find("--precision-target") != std::string::npos);

  const auto without = run_cli({"run", "--subject", "builtin:sinusoidal@float16", "--properties",
                                "pe.distinct_positions", "--report-dir", dir + "/without"});
  BOOST_TEST(!json::parse(read_file(dir + "/without/report.json")).contains("budgets"));
}

BOOST_AUTO_TEST_SUITE_END()  // test_budget
