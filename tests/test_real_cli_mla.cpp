// Issue 35 with issue 34: DeepSeek MLA judged from its config.json. The
// transcription tests/subjects/real/deepseek_v3_mla.py declares nothing but
// deepseek-ai/DeepSeek-V3's config (the hello's params.model); pecheck derives
// the decoupled rotary of its rope slice (interleave_then_halves, YaRN ×40 with
// the mscale ratio on cos/sin) and the softmax scale qk_head_dim^−½·mscale². The
// faithful transcription passes rope.decoupled and attention.reference_values;
// each twin fails the claim built for its cause, with the cause named.
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "pecheck/core/json.h"
#include "support/cli.h"
#include "test_process_cli.h"

BOOST_AUTO_TEST_SUITE(test_real_cli_mla)

using namespace pecheck;
using namespace pecheck::testing::process_cli;

BOOST_AUTO_TEST_CASE(the_config_alone_declares_the_decoupled_rotary_and_the_mla_scale) {
  const Run r = run_real("deepseek_v3_mla.py", {"rope.decoupled", "attention.reference_values"});
  BOOST_TEST(r.exit_code == 0, r.console);
  BOOST_REQUIRE(r.report["results"].size() == 2u);
  for (const auto& result : r.report["results"]) BOOST_TEST(result["status"] == "passed", result.dump());
}

BOOST_AUTO_TEST_CASE(the_softmax_scale_without_the_yarn_mscale_squared_fails_by_value) {
  // onnxruntime/mobius PR #548: qk_head_dim^−½ alone (the rotary's mscale ratio is 1 here).
  const json c = fails("deepseek_v3_mla.py --no-softmax-mscale", "attention.reference_values");
  BOOST_TEST(c["check"] == "entries", c.dump());
  BOOST_TEST(has(c["diagnosis"], "qk_head_dim^−½ = 0.0721688 (qk_nope_head_dim + qk_rope_head_dim = 192) without the "
                                 "YaRN mscale²"),
             c.dump());
  BOOST_TEST(!has(c["diagnosis"], "follows none of the usual departures"), c.dump());
}

BOOST_AUTO_TEST_CASE(the_rotary_on_the_nope_slice_and_the_wrong_mscale_fail_the_decoupled_claim) {
  const json nope = fails("deepseek_v3_mla.py --rope-on-nope", "rope.decoupled");
  BOOST_TEST(has(nope["diagnosis"], "nope"), nope.dump());
  // kekzl/imp PR #880: cos/sin × g(40, mscale_all_dim) = 1.369 where the ratio is 1.
  const json mscale = fails("deepseek_v3_mla.py --rope-mscale-all-dim", "rope.decoupled");
  BOOST_TEST(mscale["check"] == "rope features against the reference", mscale.dump());
  BOOST_TEST(has(mscale["diagnosis"], "mscale"), mscale.dump());
  // rope_interleave ignored: rotate_half on the slice as it comes.
  const json halves = fails("deepseek_v3_mla.py --no-interleave", "rope.decoupled");
  BOOST_TEST(halves["check"] == "rope features against the reference", halves.dump());
  BOOST_TEST(has(halves["diagnosis"], "halves"), halves.dump());
}

BOOST_AUTO_TEST_CASE(explain_config_shows_the_mla_reading_and_nothing_is_refused) {
  const auto r = pecheck::testing::run_cli(
      {"explain-config", pecheck::testing::ctest_env("PECHECK_SOURCE_DIR") + "/tests/fixtures/configs/deepseek_v3.json",
       "--json"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  const json reading = json::parse(r.output);
  BOOST_TEST(reading["model"]["not_judged"].empty(), reading["model"].dump());
  BOOST_TEST(reading["model"]["head_dim"] == 192);
  BOOST_TEST(reading["model"]["v_head_dim"] == 128);
  const json& rope = reading["layers"][0]["rope"];
  BOOST_TEST(rope["qk_rope_head_dim"] == 64, rope.dump());
  BOOST_TEST(rope["qk_nope_head_dim"] == 128, rope.dump());
  BOOST_TEST(rope["layout"] == "interleave_then_halves", rope.dump());
}

BOOST_AUTO_TEST_SUITE_END()
