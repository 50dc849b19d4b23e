// Issue 8's examples through the CLI: each transcription of published code in
// tests/subjects/real/ runs as `pecheck run --subject cmd:'/usr/bin/python3
// tests/subjects/real/X.py'` (the version-2 adapter), declared as its README
// lists. The correct ones, declared honestly, pass every claim selected; the
// planted ones fail with a shrunk witness, the precision or convention at
// fault named. One process per script and a narrow property selection keep
// the torch start-up (1–3 s) the main cost.
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "pecheck/core/json.h"
#include "test_process_cli.h"

BOOST_AUTO_TEST_SUITE(test_real_cli)

using namespace pecheck;
using namespace pecheck::testing::process_cli;

namespace {

const std::vector<std::string> kRope = {"rope.reference_values", "rope.relative_dot", "rope.norm_preservation",
                                        "rope.pass_through", "rope.distinct_positions"};

}  // namespace

BOOST_AUTO_TEST_CASE(published_encoders_declared_honestly_pass) {
  expect_passes("t2t_timing_signal.py", {"pe.*"});
  expect_passes("fairseq_sinusoidal.py", {"pe.*"});
}

BOOST_AUTO_TEST_CASE(the_annotated_transformers_5000_row_table_passes_gated_at_4999) {
  // --max-position bounds every sequence: no seq_len beyond 5000 is sent.
  expect_passes("annotated_transformer.py --max-len 5000", {"pe.*"}, {"--max-position", "4999"});
  // Ungated, the table's end shows, and the advice is the table's length.
  const Run ungated = run_real("annotated_transformer.py --max-len 5000", {"pe.reference_values"});
  BOOST_TEST(ungated.exit_code == 1, ungated.console);
  const json* r = ungated.result("pe.reference_values");
  BOOST_TEST_REQUIRE(r != nullptr, ungated.console);
  BOOST_TEST((*r)["outcome"] == "uncovered", r->dump());
  BOOST_TEST(has((*r)["coverage"]["shortfall"], "--max-position 4999"), r->dump());
}

BOOST_AUTO_TEST_CASE(published_rotaries_declared_honestly_pass) {
  expect_passes("gpt_neox_rotary.py", kRope);
  expect_passes("gptj_rotary.py", kRope);
  expect_passes("llama3_rope.py", kRope);
  expect_passes("hf_llama_rope_bf16.py", kRope);
}

BOOST_AUTO_TEST_CASE(mingpt_causal_attention_passes_and_its_lookahead_twin_fails) {
  expect_passes("mingpt_causal_attention.py", {"attention.causal_no_lookahead"});
  const Run r = run_real("mingpt_lookahead.py", {"attention.causal_no_lookahead"});
  BOOST_TEST(r.exit_code == 1, r.console);
  const json& c = counterexample(r, "attention.causal_no_lookahead");
  BOOST_TEST(c["check"] == "rows before the change unchanged");
  BOOST_TEST(c["inputs"]["q"].size() == 2u, c.dump());  // shrunk to two tokens
  BOOST_TEST(has(c["diagnosis"], "a causal mask shifted by 1"), c.dump());
}

BOOST_AUTO_TEST_CASE(the_bf16_cache_rebuild_fails_naming_the_precision_at_fault) {
  const Run r = run_real("hf_llama_rope_bf16_cache_bug.py", {"rope.distinct_positions", "rope.reference_values"});
  BOOST_TEST(r.exit_code == 1, r.console);
  const json& c = counterexample(r, "rope.distinct_positions");
  BOOST_TEST(c["inputs"]["positions"] == json::array({256, 257}), c.dump());
  BOOST_TEST(has(c["note"], "positions 256 and 257 rotate alike: angles computed in bfloat16"), c.dump());
  BOOST_TEST(has(c["note"], "declared float32"), c.dump());
  BOOST_TEST(has(c["diagnosis"], "257 rotates as 256 does"), c.dump());
  // The reference values fail there too, and the diagnosis names a cause:
  // either the re-queried answers are right again (the cache is rebuilt by
  // history) or, where they repeat, the error fits bfloat16 angles.
  const json& v = counterexample(r, "rope.reference_values");
  const bool history = has(v["diagnosis"], "did not repeat") || has(v["diagnosis"], "depend on earlier requests");
  const bool precision = has(v["diagnosis"], "fits angles computed in bfloat16");
  BOOST_TEST((history || precision), v.dump());
}

BOOST_AUTO_TEST_CASE(dynamic_ntk_caches_of_hugging_face_and_vllm_fail_and_the_fix_passes) {
  // transformers #25306: the cache grown for one long sequence rotates every
  // later short one with the long sequence's base. Its witness is one short
  // request that fails only after a long one: the diagnosis says the
  // difference did not repeat, or that nothing fits better than the declared convention, as answers that
  // depend on earlier requests read, and no lower precision is blamed.
  expect_passes("hf_llama_dynamic_ntk_cache.py --fixed", {"rope.*"});
  const Run grown = run_real("hf_llama_dynamic_ntk_cache.py", {"rope.reference_values"});
  BOOST_TEST(grown.exit_code == 1, grown.console);
  const json& g = counterexample(grown, "rope.reference_values");
  BOOST_TEST(g["inputs"]["seq_len"].get<long>() <= 16, g.dump());  // short: at most the original length
  BOOST_TEST((has(g["diagnosis"], "did not repeat") || has(g["diagnosis"], "depend on earlier requests")), g.dump());
  BOOST_TEST(!has(g["diagnosis"], "lower precision"), g.dump());

  // vllm #41236: a "dynamic" base fixed at the longest length, for every sequence.
  const Run fixed_base = run_real("vllm_dynamic_ntk_constant_base.py", {"rope.reference_values"});
  BOOST_TEST(fixed_base.exit_code == 1, fixed_base.console);
  const json& v = counterexample(fixed_base, "rope.reference_values");
  BOOST_TEST(has(v["diagnosis"], "the base does not follow the sequence length"), v.dump());
  BOOST_TEST(v["inputs"]["positions"] == json::array({1}), v.dump());
}

// Positional schemes of 2024–2026 models (CLAIMS.md §9): the published code
// declared honestly passes, its published bugs fail with a shrunk witness and
// a diagnosis naming the bug.

BOOST_AUTO_TEST_CASE(phi3_longrope_passes_and_vllm_s_short_factor_cache_fails_the_factor_switch) {
  expect_passes("phi3_longrope.py", {"rope.reference_values", "rope.relative_dot", "rope.factor_switch"});
  const Run r = run_real("vllm_longrope_short_cache.py", {"rope.factor_switch"});
  BOOST_TEST(r.exit_code == 1, r.console);
  const json& c = counterexample(r, "rope.factor_switch");
  BOOST_TEST(c["check"] == "sequence past the original length", c.dump());
  BOOST_TEST(c["inputs"]["early"].size() == 1u, c.dump());  // shrunk to one cached position
  BOOST_TEST(has(c["diagnosis"], "vLLM #27414"), c.dump());
}

BOOST_AUTO_TEST_CASE(deepseek_yarn_passes_and_vllm_s_generic_yarn_fails_naming_mscale) {
  expect_passes("deepseek_yarn.py", {"rope.reference_values", "rope.relative_dot", "rope.norm_preservation",
                                     "rope.identity_at_zero", "rope.composition"});
  const Run r = run_real("vllm_generic_yarn.py", {"rope.reference_values"});
  BOOST_TEST(r.exit_code == 1, r.console);
  const json& c = counterexample(r, "rope.reference_values");
  BOOST_TEST(c["inputs"]["positions"].size() == 1u, c.dump());
  BOOST_TEST(has(c["diagnosis"], "ignores mscale/mscale_all_dim"), c.dump());
}

BOOST_AUTO_TEST_CASE(qwen_vl_multi_axis_rotaries_pass_and_reused_rope_deltas_fail_history_independence) {
  const std::vector<std::string> claims = {"rope.reference_values", "rope.relative_dot", "rope.axis_independence"};
  expect_passes("qwen2_vl_mrope.py", claims);
  expect_passes("qwen3_vl_mrope.py", claims);
  // history_independence starts a fresh Python per request it compares with: few cases, and the
  // shortest script (shrunk) is shown on the planted twin, mutant:rope-mrope-rope-deltas-kept.
  expect_passes("qwen2_vl_mrope.py", {"history_independence"}, {"--cases", "10"});
  const Run r = run_real("qwen2_vl_rope_deltas.py", {"history_independence"}, {"--cases", "10", "--no-shrink"});
  BOOST_TEST(r.exit_code == 1, r.console);
  const json& c = counterexample(r, "history_independence");
  BOOST_TEST(has(c["diagnosis"], "depends on the requests before it"), c.dump());
}

BOOST_AUTO_TEST_CASE(gemma3_layers_pass_and_the_local_scaled_twin_fails_the_layer_schedule) {
  expect_passes("gemma3_layers.py", {"module.layer_schedule", "module.causality", "rope.reference_values"});
  const Run r = run_real("gemma3_local_scaled.py", {"module.layer_schedule"});
  BOOST_TEST(r.exit_code == 1, r.console);
  const json& c = counterexample(r, "module.layer_schedule");
  BOOST_TEST(c["check"] == "rotary layer as declared", c.dump());
  BOOST_TEST(c["inputs"]["positions"].size() == 1u, c.dump());
  BOOST_TEST(has(c["diagnosis"], "llama.cpp #14367"), c.dump());
}

BOOST_AUTO_TEST_CASE(llama_cpp_s_freq_factors_pass) {
  expect_passes("llamacpp_freq_factors.py", {"rope.reference_values", "rope.relative_dot", "rope.composition"});
}

BOOST_AUTO_TEST_SUITE_END()  // test_real_cli
