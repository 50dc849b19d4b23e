// Issue 35 — attention.temperature_tuning (Llama 4's NoPE layers): the
// reference's steps, the layer's declaration (the hello; pecheck.toml has no
// null for a NoPE layer's rotate), the
// built-in that passes, and the planted bugs that fail each sub-check with a
// diagnosis naming the cause.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>

#include "pecheck/property/registry.h"
#include "pecheck/reference/attention.h"
#include "pecheck/subjects/declare.h"
#include "pecheck/subjects/factory.h"
#include "protocol/hello.h"
#include "support/hello_refusal.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_temperature_tuning)

using namespace pecheck;
using pecheck::testing::hello_refusal;
using pecheck::testing::run_property;

namespace {

json hello(json layer3) {
  json layers = json::array();
  for (int k = 0; k < 3; ++k) layers.push_back({{"rotate", {{"base", 500000}}}});
  layers.push_back(std::move(layer3));
  return json{{"protocol", 2}, {"name", "llama4"}, {"ops", json::array({"forward"})}, {"dtype", "float32"},
              {"params", {{"forward", {{"causal", true}, {"positional", "relative"}, {"layers", layers}}}}}};
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_temperature_is_one_below_floor_scale_minus_one_and_steps_at_each_multiple) {
  const TemperatureTuning t{0.1, 8192};
  BOOST_TEST(reference::query_temperature(t, 0) == 1.0);
  BOOST_TEST(reference::query_temperature(t, 8190) == 1.0);
  BOOST_TEST(std::abs(reference::query_temperature(t, 8191) - (1 + 0.1 * std::log(2.0))) < 1e-15);
  BOOST_TEST(reference::query_temperature(t, 16382) == reference::query_temperature(t, 8191));
  BOOST_TEST(std::abs(reference::query_temperature(t, 16383) - (1 + 0.1 * std::log(3.0))) < 1e-15);
  BOOST_TEST(reference::temperature_step(t, 1) == 8191);
  BOOST_TEST(reference::temperature_step(t, 2) == 16383);
}

BOOST_AUTO_TEST_CASE(a_nope_layer_declares_it_with_both_numbers) {
  const auto info = process::read_hello(hello({{"rotate", nullptr}, {"attn_temperature_tuning", true},
                                              {"attn_scale", 0.1}, {"floor_scale", 8192}})).info;
  BOOST_REQUIRE(info.forward->layers[3].temperature_tuning.has_value());
  BOOST_TEST(info.forward->layers[3].temperature_tuning->floor_scale == 8192);
  BOOST_TEST(find_property("attention.temperature_tuning")->info.applies_to(info));
  BOOST_TEST(hello_refusal(hello({{"rotate", nullptr}, {"attn_temperature_tuning", true}, {"attn_scale", 0.1}}))
                 .find("floor_scale is missing") != std::string::npos);
  BOOST_TEST(hello_refusal(hello({{"rotate", {{"base", 1e4}}}, {"attn_temperature_tuning", true}, {"attn_scale", 0.1},
                            {"floor_scale", 8192}}))
                 .find("rotary layer") != std::string::npos);
  BOOST_TEST(hello_refusal(hello({{"rotate", nullptr}, {"floor_scale", 8192}})).find("but not") != std::string::npos);
  BOOST_TEST(hello_refusal(hello({{"rotate", nullptr}, {"attn_temperature_tuning", true}, {"attn_scale", -1},
                            {"floor_scale", 8192}}))
                 .find("attn_scale") != std::string::npos);
  // Written back as read (the hello a subject's declarations round-trip through).
  const auto plain = process::read_hello(hello({{"rotate", nullptr}})).info;
  BOOST_TEST(!find_property("attention.temperature_tuning")->info.applies_to(plain));
}

BOOST_AUTO_TEST_CASE(the_tuned_llama4_block_passes_and_its_layer_schedule_too) {
  for (const char* id : {"attention.temperature_tuning", "module.layer_schedule"}) {
    const PropertyResult r = run_property(id, "builtin:llama4-block@tuned");
    BOOST_TEST((r.status() == Status::passed), id << ": " << r.message());
  }
}

BOOST_AUTO_TEST_CASE(each_planted_temperature_bug_fails_its_sub_check_with_its_cause) {
  struct Expected {
    const char* mutant;
    const char* check;
    const char* cause;
  };
  for (const Expected& e : {Expected{"llama4-tuning-floor-missing", "unscaled below floor_scale − 1", "floor is missing"},
                            Expected{"llama4-tuning-off-by-one", "constant within a step", "one position late"},
                            Expected{"llama4-tuning-ignored", "one step at each multiple", "never applied"}}) {
    const PropertyResult r = run_property("attention.temperature_tuning", std::string("mutant:") + e.mutant);
    BOOST_TEST_CONTEXT(e.mutant) {
      BOOST_TEST((r.status() == Status::failed), r.message());
      BOOST_REQUIRE(r.counterexample() != nullptr);
      BOOST_TEST(r.counterexample()->check == e.check);
      BOOST_TEST(r.counterexample()->diagnosis.find(e.cause) != std::string::npos, r.counterexample()->diagnosis);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()  // test_temperature_tuning
