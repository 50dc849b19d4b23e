// Accepted nonsense refused (issue 39; SUBJECT-PROTOCOL.md, pecheck's
// decisions): values in range for their type but meaningless for the maths
// they enter — a softcap of 1e308 or 1e-300, a scale of 1e-320, mrope
// sections of no pairs, a rotary base of 1, LongRoPE factors of 1e-320,
// shapes.heads without heads — are a BadDeclaration naming the field (exit
// 2), as is nan or inf in pecheck.toml (which read as "got null" before).
#include <boost/test/unit_test.hpp>

#include <fstream>

#include "pecheck/subjects/factory.h"
#include "protocol/hello.h"
#include "protocol/responses.h"
#include "support/cli.h"

BOOST_AUTO_TEST_SUITE(test_declared_nonsense, *boost::unit_test::fixture<pecheck::testing::FreshWorkingDirectory>())

using namespace pecheck;
using namespace pecheck::process;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

json hello(const char* op, json params) {
  return json{{"protocol", 2}, {"name", "s"}, {"ops", {op}}, {"dtype", "float32"}, {"params", {{op, std::move(params)}}}};
}

std::pair<std::string, std::string> refused(const json& h) {
  try {
    read_hello(h);
  } catch (const BadDeclaration& d) {
    return {d.field, d.what()};
  }
  return {"(accepted)", ""};
}

}  // namespace

BOOST_AUTO_TEST_CASE(nonsense_in_range_is_refused_naming_the_field) {
  struct Case {
    json hello;
    std::string field;
    std::string says;
  };
  const Case cases[] = {
      {hello("attention", {{"softcap", 1e308}}), "params.attention.softcap", "[0.001, 60000]"},
      {hello("attention", {{"softcap", 1e-300}}), "params.attention.softcap", "[0.001, 60000]"},
      {hello("attention", {{"scale", 1e-320}}), "params.attention.scale", "[0.0001, 10000]"},
      {hello("attention", {{"shapes", {{"heads", 8}}}}), "params.attention.shapes.heads", "without params.attention.heads"},
      {hello("rotate", {{"base", 1}}), "params.rotate.base", "> 1"},
      {hello("rotate", {{"scaling", {{"type", "default"}, {"rope_theta", 1}}}}), "params.rotate.scaling.rope_theta",
       "> 1"},
      {hello("rotate", {{"mrope_section", {0, 0, 0}}}), "params.rotate.mrope_section", "no pair"},
      {hello("rotate", {{"scaling", {{"type", "longrope"}, {"short_factor", {1e-320, 1.0}}, {"long_factor", {1.0, 1.0}},
                                     {"original_max_position", 4096}}}}),
       "params.rotate.scaling.short_factor", "[0.001, 1e+06]"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.hello.dump()) {
      const auto [field, message] = refused(c.hello);
      BOOST_TEST(field == c.field);
      BOOST_TEST(contains(message, c.says), message);
    }
  }
  // What real models declare is accepted.
  BOOST_TEST(refused(hello("attention", {{"softcap", 50.0}, {"scale", 0.0625}})).first == "(accepted)");
  BOOST_TEST(refused(hello("attention", {{"heads", 8}, {"shapes", {{"heads", 8}}}})).first == "(accepted)");
  BOOST_TEST(refused(hello("rotate", {{"base", 500000}, {"mrope_section", {16, 24, 24}}})).first == "(accepted)");
}

// The hostile pass (tests/hostile/pass.py) found these accepted, each exit 0
// on a correct rotary that ignores them: a scaling factor of 1e308 (every
// scaled position 0), a llama3 band factor of 1e-320 or a YaRN beta of 1e308
// (every pair in one band), a base of 1e308 (a wide head's frequencies vanish).
BOOST_AUTO_TEST_CASE(scaling_numbers_and_bases_outside_their_meaningful_range_are_refused) {
  const json linear = {{"type", "linear"}, {"factor", 1e308}};
  const json llama3 = {{"rope_type", "llama3"},      {"factor", 8},       {"low_freq_factor", 1e-320},
                       {"high_freq_factor", 4},      {"original_max_position_embeddings", 8192}};
  const json yarn = {{"type", "yarn"}, {"factor", 4}, {"beta_fast", 1e308}, {"original_max_position", 4096}};
  const json dynamic = {{"type", "dynamic"}, {"factor", 1e7}, {"original_max_position", 2048}};
  struct Case {
    json hello;
    std::string field;
  };
  const Case cases[] = {
      {hello("rotate", {{"scaling", linear}}), "params.rotate.scaling.factor"},
      {hello("rotate", {{"scaling", llama3}}), "params.rotate.scaling.low_freq_factor"},
      {hello("rotate", {{"scaling", yarn}}), "params.rotate.scaling.beta_fast"},
      {hello("rotate", {{"scaling", dynamic}}), "params.rotate.scaling.factor"},
      {hello("rotate", {{"base", 1e308}}), "params.rotate.base"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.hello.dump()) {
      const auto [field, message] = refused(c.hello);
      BOOST_TEST(field == c.field);
      BOOST_TEST(contains(message, "must be"), message);
    }
  }
  // Published values: DeepSeek-V3's YaRN (factor 40, betas 32/1), Llama 3.1's bands, a base of 5·10⁶.
  const json deepseek = {{"type", "yarn"}, {"factor", 40}, {"beta_fast", 32}, {"beta_slow", 1},
                         {"original_max_position", 4096}};
  BOOST_TEST(refused(hello("rotate", {{"base", 10000}, {"scaling", deepseek}})).first == "(accepted)");
  const json llama31 = {{"rope_type", "llama3"},  {"factor", 8}, {"low_freq_factor", 1}, {"high_freq_factor", 4},
                        {"original_max_position_embeddings", 8192}};
  BOOST_TEST(refused(hello("rotate", {{"base", 500000}, {"scaling", llama31}})).first == "(accepted)");
  BOOST_TEST(refused(hello("rotate", {{"base", 5e6}})).first == "(accepted)");
}

// The hostile pass: an MLA rotary declaring a head of 64 + 64 features and
// shapes.d 8 was accepted and then red on the subject; a width that excludes
// the head is the declaration's contradiction (exit 2).
BOOST_AUTO_TEST_CASE(an_mla_head_outside_the_declared_widths_is_refused) {
  const auto [field, message] =
      refused(hello("rotate", {{"qk_rope_head_dim", 64}, {"qk_nope_head_dim", 64}, {"shapes", {{"d", 8}}}}));
  BOOST_TEST(field == "params.rotate.shapes.d");
  BOOST_TEST(contains(message, "= 128 features"), message);
  BOOST_TEST(refused(hello("rotate", {{"qk_rope_head_dim", 64}, {"qk_nope_head_dim", 64}, {"shapes", {{"d", 128}}}}))
                 .first == "(accepted)");
}

BOOST_AUTO_TEST_CASE(nan_and_inf_in_pecheck_toml_say_so) {
  for (const std::string value : {"nan", "inf", "-inf"}) {
    BOOST_TEST_CONTEXT(value) {
      const std::string dir = testing::temp_dir("pecheck-nonsense-toml");
      const std::string path = dir + "/pecheck.toml";
      std::ofstream(path) << "properties = \"rope.*\"\n"
                             "[subject.\"builtin:rope\"]\n"
                             "params.rotate.base = " << value << "\n";
      const auto r = testing::run_cli({"run", "--config", path, "--report-dir", dir + "/report"});
      BOOST_TEST(r.exit_code == 2, r.output);
      BOOST_TEST(contains(r.output, "params.rotate.base"), r.output);
      BOOST_TEST(contains(r.output, "is not allowed in a declaration: write a finite number"), r.output);
      BOOST_TEST(!contains(r.output, "got null"), r.output);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()  // test_declared_nonsense
