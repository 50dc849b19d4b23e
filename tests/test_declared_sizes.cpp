// Declared sizes within what pecheck can send (issue 39, core/size_limits.h):
// every size of params.<op>.shapes, from a hello or from pecheck.toml, is
// checked against the dimension's limit and the per-request budget before
// any request, and an absurd one ends the run with exit 2 naming the field,
// within seconds and in bounded memory. Before, d ≥ 2^32 crashed pecheck,
// d = 2^31 wrapped and blamed the subject (exit 3), n of 2^32 spun in a scan
// ignoring SIGTERM, {n 10^7, d 64} took 19 GB, batch 10^9 ended in bad_alloc.
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

#include "bias/support.h"
#include "pecheck/core/size_limits.h"
#include "pecheck/property/sizes.h"
#include "protocol/hello.h"
#include "protocol/responses.h"
#include "support/cli.h"

BOOST_AUTO_TEST_SUITE(test_declared_sizes, *boost::unit_test::fixture<pecheck::testing::FreshWorkingDirectory>())

using namespace pecheck;
using namespace pecheck::process;
using pecheck::testing::run_cli;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

json hello_with(const char* op, json params) {
  return json{{"protocol", 2}, {"name", "s"}, {"ops", {op}}, {"dtype", "float32"}, {"params", {{op, std::move(params)}}}};
}

json shapes(const char* op, json dims) {
  json params = {{"shapes", std::move(dims)}};
  if (std::string(op) == "forward") {
    params["causal"] = true;
    params["positional"] = "none";
  }
  return hello_with(op, std::move(params));
}

// The field a hello is refused for, or "(accepted)".
std::string refused_field(const json& hello) {
  try {
    read_hello(hello);
  } catch (const BadDeclaration& d) {
    return d.field;
  }
  return "(accepted)";
}

std::string says(const json& hello) {
  const char* dir = std::getenv("PECHECK_SOURCE_DIR");
  BOOST_REQUIRE(dir != nullptr);
  return "cmd:/usr/bin/python3 '" + std::string(dir) + "/tests/subjects/says_hello.py' '" + hello.dump() + "'";
}

constexpr std::int64_t k2to31 = std::int64_t{1} << 31, k2to32 = std::int64_t{1} << 32, k2to40 = std::int64_t{1} << 40;

struct Absurd {
  const char* op;
  json dims;
  const char* properties;
  const char* field;
};

const Absurd kAbsurd[] = {
    {"encode", {{"d", k2to32}}, "pe.*", "params.encode.shapes.d"},
    {"encode", {{"d", k2to31}}, "pe.*", "params.encode.shapes.d"},
    {"attention", {{"n", k2to32}}, "attention.*", "params.attention.shapes.n"},
    {"attention", {{"n", k2to40}}, "attention.*", "params.attention.shapes.n"},
    {"attention", {{"n", 10'000'000}, {"d", 64}}, "attention.*", "params.attention.shapes.n"},
    {"forward", {{"batch", 1'000'000'000}}, "module.*", "params.forward.shapes.batch"},
    // Each size within its limit, the request not: 2^20 queries of width 64.
    {"encode", {{"n", 1 << 20}, {"d", 64}}, "pe.*", "params.encode.shapes.n"},
    // Self-attention sends as many keys as queries: a million of each.
    {"attention", {{"n", {{"min", 1'000'000}}}}, "attention.*", "params.attention.shapes.n"},
};

}  // namespace

BOOST_AUTO_TEST_CASE(sizes_beyond_what_pecheck_sends_are_refused_naming_the_field) {
  for (const Absurd& a : kAbsurd) {
    BOOST_TEST_CONTEXT(a.dims.dump()) { BOOST_TEST(refused_field(shapes(a.op, a.dims)) == a.field); }
  }
  // What pecheck can do is accepted: a range's maximum is only a bound (the
  // ladder stops at its own rungs), a real model's sizes fit.
  BOOST_TEST(refused_field(shapes("attention", {{"n", {{"min", 1}, {"max", k2to40}}}})) == "(accepted)");
  BOOST_TEST(refused_field(hello_with("attention", {{"heads", 32},
                                                   {"shapes", {{"heads", 32}, {"d", 128},
                                                               {"n", {{"min", 1}, {"max", 8192}}}}}})) ==
             "(accepted)");
  BOOST_TEST(refused_field(shapes("rotate", {{"d", 8192}})) == "(accepted)");
  BOOST_TEST(refused_field(shapes("forward", {{"batch", {1, 2, 8}}, {"n", {{"min", 1}, {"max", 4096}}}})) ==
             "(accepted)");
}

BOOST_AUTO_TEST_CASE(size_arithmetic_saturates_instead_of_wrapping) {
  BOOST_TEST(!checked_product(k2to32, k2to32));
  BOOST_TEST(*checked_product(k2to31, 2) == k2to32);
  // 2^40 × 2^40 queries by keys: more than any budget, never a negative count.
  const std::int64_t numbers = request_numbers({{ShapeDim::n, k2to40}, {ShapeDim::m, k2to40}, {ShapeDim::d, k2to40}});
  BOOST_TEST(numbers > kMostNumbersPerRequest);
  BOOST_TEST(request_numbers({{ShapeDim::n, 4096}, {ShapeDim::d, 128}}) == 4096 * 128 + 2 * 128 + 4096);
}

BOOST_AUTO_TEST_CASE(the_cli_exits_2_within_seconds_in_bounded_memory) {
  for (const Absurd& a : kAbsurd) {
    BOOST_TEST_CONTEXT(a.dims.dump()) {
      const std::string dir = testing::temp_dir("pecheck-sizes");
      testing::CliOptions o;
      o.limit_seconds = 60;
      const auto r = run_cli({"run", "--subject", says(shapes(a.op, a.dims)), "--properties", a.properties,
                              "--report-dir", dir},
                             o);
      BOOST_TEST(r.exit_code == 2, r.output);
      BOOST_TEST(contains(r.output, a.field), r.output);
      BOOST_TEST(r.seconds < 10 * testing::time_scale());
      BOOST_TEST(r.max_rss_kib < 200 * 1024 * testing::memory_scale());
    }
  }
}

BOOST_AUTO_TEST_CASE(pecheck_toml_s_sizes_are_held_to_the_same_limits) {
  const std::string dir = testing::temp_dir("pecheck-sizes-toml");
  const std::string path = dir + "/pecheck.toml";
  std::ofstream(path) << "properties = \"rope.*\"\n"
                         "[subject.\"builtin:rope\"]\n"
                         "params.rotate.shapes.n = 4294967296\n";
  testing::CliOptions o;
  o.limit_seconds = 60;
  const auto r = run_cli({"run", "--config", path, "--report-dir", dir + "/report"}, o);
  BOOST_TEST(r.exit_code == 2, r.output);
  BOOST_TEST(contains(r.output, "params.rotate.shapes.n"), r.output);
  BOOST_TEST(contains(r.output, "pecheck.toml:3"), r.output);
  BOOST_TEST(r.seconds < 10 * testing::time_scale());
}

// A declared width is sent: a rotary declaring d = 8192 was sent d = 2 alone
// (its widths lay past the 2048 pairs searched) and passed while wrong at its
// width. tests/subjects/wide_rotary.py caches 2048 pairs of frequencies.
BOOST_AUTO_TEST_CASE(a_rotary_wrong_only_at_its_declared_width_is_red_and_a_correct_one_green) {
  const char* dir = std::getenv("PECHECK_SOURCE_DIR");
  BOOST_REQUIRE(dir != nullptr);
  for (const std::string mode : {"cached_2048_pairs", "correct"}) {
    BOOST_TEST_CONTEXT(mode) {
      const auto r = run_cli({"run", "--subject",
                              "cmd:/usr/bin/python3 '" + std::string(dir) + "/tests/subjects/wide_rotary.py' " + mode,
                              "--properties", "rope.reference_values", "--cases", "20", "--no-shrink",
                              "--no-regressions", "--report-dir", testing::temp_dir("pecheck-wide")});
      if (mode == "correct") {
        BOOST_TEST(r.exit_code == 0, r.output);
        BOOST_TEST(contains(r.output, "width 8192 of 8192"), r.output);
      } else {
        BOOST_TEST(r.exit_code == 1, r.output);
        BOOST_TEST(contains(r.output, "violated"), r.output);
      }
    }
  }
}

// What the declared width leaves of the budget caps the other axes' rungs,
// and the gate says so: 8192 wide, a rotate request holds at most 2045 rows
// (8193·n + 2·8192 numbers ≤ 2^24).
BOOST_AUTO_TEST_CASE(the_ladder_is_capped_by_the_request_budget_and_says_so) {
  SubjectInfo info;
  info.shapes.ops[Op::rotate][ShapeDim::d] = Extent::exactly({8192});
  const Rungs rows = ladder_rungs(info, 100000, 0, Op::rotate, Axis::rows);
  BOOST_REQUIRE(!rows.sizes.empty());
  BOOST_TEST(rows.sizes.back() == 2045);
  BOOST_TEST(request_numbers({{ShapeDim::n, 2045}, {ShapeDim::d, 8192}}) <= kMostNumbersPerRequest);
  BOOST_TEST(request_numbers({{ShapeDim::n, 2046}, {ShapeDim::d, 8192}}) > kMostNumbersPerRequest);
  BOOST_TEST(contains(rows.set_by, "request budget"), rows.set_by);
  // Nothing declared: the ladder's own rungs, untouched.
  const Rungs plain = ladder_rungs(SubjectInfo{}, 100000, 0, Op::rotate, Axis::rows);
  BOOST_TEST(plain.sizes.back() == 4096);
  BOOST_TEST(plain.set_by == "the shape ladder's default");
}

// SIGTERM ends a run within 2 s with its partial report, even while large
// declared cases are computed in-process (a built-in computes each 4000-key
// attention call for a second or more; a process subject is killed by the
// stop, an in-process one is sent no further call). Before issue 39 a
// declared n of 2^32 spun in a scan and ignored SIGTERM.
BOOST_AUTO_TEST_CASE(sigterm_ends_a_run_of_large_declared_cases_within_2_s_with_its_report) {
  const std::string dir = testing::temp_dir("pecheck-sizes-sigterm");
  const std::string path = dir + "/pecheck.toml";
  std::ofstream(path) << "properties = \"attention.*\"\n"
                         "[subject.\"builtin:attention\"]\n"
                         "params.attention.shapes.n = { min = 4000 }\n";
  testing::CliOptions o;
  o.limit_seconds = 60;
  o.terminate_after = 3;
  const auto r = run_cli({"run", "--config", path, "--no-regressions", "--report-dir", dir + "/report"}, o);
  BOOST_TEST(r.exit_code == 143, r.output);
  BOOST_TEST(contains(r.output, "INTERRUPTED by SIGTERM"), r.output);
  BOOST_TEST(r.seconds < 3 + 2 * testing::time_scale(), r.seconds);
  BOOST_TEST(contains(testing::read_file(dir + "/report/report.json"), "interrupted"));
}

// Issue 39 (the hostile pass): params.bias.shapes.n = {"max": 2^40} ended in
// exit 3, the subject blamed: the ladder sent 8388607 queries with 3 keys (25M
// numbers, over the request budget, which the budget sized with 1 key), and an
// honest answer at the budget overran the 64 MiB line limit. A bias case's
// other side is now fitted to the budget, and the line limit is derived from it.
BOOST_AUTO_TEST_CASE(a_bias_case_fits_the_request_budget_and_its_answer_the_line_limit) {
  using bias::fitted_to_budget;
  const auto numbers = [](const bias::Shape& s) { return request_numbers({{ShapeDim::n, s.n}, {ShapeDim::m, s.m}}); };
  const bias::Shape tall = fitted_to_budget({8388607, 3, 2}, std::nullopt, std::nullopt);
  BOOST_TEST(tall.n == 8388607);
  BOOST_TEST(tall.m == 1);
  BOOST_TEST(tall.head == 2);
  BOOST_TEST(numbers(tall) <= kMostNumbersPerRequest);
  const bias::Shape wide = fitted_to_budget({5, 4194304, 0}, std::nullopt, std::nullopt);
  BOOST_TEST(wide.m == 4194304);
  BOOST_TEST(wide.n == 1);  // the largest n that fits: 2 queries carry 2^24 + 2 numbers
  BOOST_TEST(numbers(wide) <= kMostNumbersPerRequest);
  BOOST_TEST(request_numbers({{ShapeDim::n, 2}, {ShapeDim::m, 4194304}}) > kMostNumbersPerRequest);
  // A declared list keeps the side on a listed size: 2 keys would fit, 1 is listed.
  const bias::Shape listed = fitted_to_budget({4194304, 4, 0}, std::nullopt, Extent::exactly({1, 4}));
  BOOST_TEST(listed.m == 1);
  BOOST_TEST(numbers(listed) <= kMostNumbersPerRequest);
  // A case within the budget is left alone.
  const bias::Shape small = fitted_to_budget({4096, 64, 1}, std::nullopt, std::nullopt);
  BOOST_TEST((small.n == 4096 && small.m == 64 && small.head == 1));
  // The line limit holds an answer of the budget's numbers at the longest
  // text of a double plus the longest separator (", ") and a row's brackets.
  const std::string longest = fmt::format("{}", -2.2250738585072014e-308);
  BOOST_TEST(longest.size() == 24u);
  BOOST_TEST(static_cast<std::int64_t>(longest.size()) + 6 <= kLongestNumberText);
  BOOST_TEST(kLongestAnswerLine >= kMostNumbersPerRequest * kLongestNumberText);
}

// The same declaration end to end through a process subject (`pecheck serve
// alibi`, answering each request on one line): served honestly, exit 0.
BOOST_AUTO_TEST_CASE(a_bias_declaring_n_up_to_2_40_is_served_through_a_process) {
  const std::string dir = testing::temp_dir("pecheck-sizes-bias-2-40");
  const std::string spec = "cmd:" + std::string(std::getenv("PECHECK_BIN")) + " serve builtin:alibi";
  std::ofstream(dir + "/pecheck.toml") << "[subject.\"" << spec << "\"]\n"
                                       << "params.bias = { scheme = \"alibi\", heads = 8, shapes = { n = { max = 1099511627776 } } }\n";
  testing::CliOptions o;
  o.limit_seconds = 120;
  const auto r = run_cli({"run", "--config", dir + "/pecheck.toml", "--subject", spec, "--properties",
                          "bias.offset_only", "--cases", "5", "--no-regressions", "--report-dir", dir + "/report"}, o);
  BOOST_TEST(r.exit_code == 0, r.output);
  BOOST_TEST(contains(r.output, "queries 8388607 of 8388607"), r.output);
}

BOOST_AUTO_TEST_SUITE_END()  // test_declared_sizes
