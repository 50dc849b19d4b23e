// Issue 20's published bugs through the CLI: each transcription in
// tests/subjects/real/ runs as `pecheck run --subject cmd:'/usr/bin/python3
// tests/subjects/real/X.py'`, declared as its README lists. The bug fails the
// claim of its convention with a shrunk witness (a few tokens and heads) and a
// diagnosis naming the convention; `--fixed` (the published fix) passes.
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "pecheck/core/json.h"
#include "test_process_cli.h"

BOOST_AUTO_TEST_SUITE(test_real_cli_attention)

using namespace pecheck;
using namespace pecheck::testing::process_cli;

namespace {

// Rows of a recorded matrix (2-D) or of its first head (3-D).
std::size_t rows(const json& m) { return m.size(); }

}  // namespace

BOOST_AUTO_TEST_CASE(transformers_flash_sliding_window_sees_one_key_too_many) {
  expect_passes("hf_sliding_window.py --fixed", {"attention.window_no_lookback", "attention.causal_no_lookahead"});
  const json c = fails("hf_sliding_window.py", "attention.window_no_lookback");
  BOOST_TEST(c["check"] == "rows past the window unchanged");
  BOOST_TEST(rows(c["inputs"]["q"]) <= 7u, c.dump());  // W + 1 tokens, a few more at most
  BOOST_TEST(has(c["diagnosis"], "W + 1 = 5 keys"), c.dump());
  BOOST_TEST(has(c["diagnosis"], "transformers #29623"), c.dump());
}

BOOST_AUTO_TEST_CASE(onnx_gqa_tile_reads_the_wrong_kv_heads) {
  expect_passes("onnx_gqa.py --fixed", {"attention.gqa_grouping", "attention.kv_permutation_invariance"});
  const json c = fails("onnx_gqa.py", "attention.gqa_grouping");
  BOOST_TEST(c["check"] == "other heads unchanged");
  BOOST_TEST(rows(c["inputs"]["q"]) <= 2u, c.dump());
  BOOST_TEST(has(c["diagnosis"], "as tile does"), c.dump());
  BOOST_TEST(has(c["diagnosis"], "onnx PR #7274"), c.dump());
}

BOOST_AUTO_TEST_CASE(gemma2_softcap_dropped_or_zeroed_fails_and_its_fixes_pass) {
  for (const char* script : {"sglang_flashinfer_softcap.py", "vllm_metal_softcap.py"}) {
    expect_passes(std::string(script) + " --fixed", {"attention.softcap_bound", "attention.convex_combination"});
    const json c = fails(script, "attention.softcap_bound");
    BOOST_TEST(rows(c["inputs"]["k"]) <= 3u, c.dump());
    BOOST_TEST(has(c["diagnosis"], "no cap at all"), c.dump());
  }
}

BOOST_AUTO_TEST_CASE(sdpa_nan_and_finfo_min_rows_fail_the_declared_zeros) {
  expect_passes("torch_sdpa_fully_masked.py --fixed", {"attention.fully_masked_rows", "attention.convex_combination"});
  const json nan = fails("torch_sdpa_fully_masked.py", "attention.fully_masked_rows");
  BOOST_TEST(nan["check"] == "finite output");
  BOOST_TEST(rows(nan["inputs"]["q"]) <= 2u, nan.dump());
  BOOST_TEST(has(nan["diagnosis"], "pytorch #110213"), nan.dump());
  const json mean = fails("torch_sdpa_fully_masked.py --finfo-min", "attention.fully_masked_rows");
  BOOST_TEST(mean["check"] == "declared policy");
  BOOST_TEST(has(mean["diagnosis"], "finfo"), mean.dump());
}

BOOST_AUTO_TEST_CASE(mlx_bottom_right_causal_fails_a_model_written_for_torch) {
  expect_passes("mlx_causal_alignment.py --fixed", {"attention.alignment", "attention.causal_no_lookahead"});
  const json c = fails("mlx_causal_alignment.py", "attention.alignment");
  BOOST_TEST(c["check"] == "keys past each query unseen");
  BOOST_TEST(rows(c["inputs"]["k"]) <= 3u, c.dump());
  BOOST_TEST(has(c["diagnosis"], "aligned bottom-right"), c.dump());
  BOOST_TEST(has(c["diagnosis"], "mlx #2835"), c.dump());
}

BOOST_AUTO_TEST_CASE(mlx_lm_rotating_cache_prefill_keeps_one_key_too_many) {
  expect_passes("mlx_lm_rotating_cache.py --fixed",
                {"module.incremental_decoding", "attention.window_no_lookback", "module.causality"});
  const json decode = fails("mlx_lm_rotating_cache.py", "module.incremental_decoding");
  BOOST_TEST(rows(decode["inputs"]["x"]) <= 7u, decode.dump());
  const json window = fails("mlx_lm_rotating_cache.py", "attention.window_no_lookback");
  BOOST_TEST(has(window["diagnosis"], "W + 1 = 5 keys"), window.dump());
}

BOOST_AUTO_TEST_CASE(llamacpp_longrope_factors_follow_the_allocated_context) {
  expect_passes("llamacpp_longrope_context.py --fixed", {"module.cache_capacity", "module.incremental_decoding"});
  const json c = fails("llamacpp_longrope_context.py", "module.cache_capacity");
  BOOST_TEST(rows(c["inputs"]["x"]) <= 3u, c.dump());
  BOOST_TEST(has(c["diagnosis"], "capacity"), c.dump());
}

BOOST_AUTO_TEST_CASE(ms_swift_merges_a_one_token_document_with_the_next) {
  expect_passes("ms_swift_packing.py --fixed", {"module.packed_sequences", "module.shift_invariance"});
  const json c = fails("ms_swift_packing.py", "module.packed_sequences");
  BOOST_TEST(c["inputs"]["documents"].size() == 2u, c.dump());
  BOOST_TEST(c["inputs"]["documents"][0].size() == 1u, c.dump());  // a one-token document first
  BOOST_TEST(has(c["diagnosis"], "ms-swift PR #9904"), c.dump());
}

BOOST_AUTO_TEST_CASE(candle_t5_decode_bias_ignores_the_cache_offset) {
  expect_passes("candle_t5_decode_bias.py --fixed", {"module.incremental_decoding", "module.causality"});
  const json c = fails("candle_t5_decode_bias.py", "module.incremental_decoding");
  BOOST_TEST(rows(c["inputs"]["x"]) <= 3u, c.dump());
  BOOST_TEST(has(c["diagnosis"], "offset"), c.dump());
}

BOOST_AUTO_TEST_CASE(gemma2_27b_scaled_by_head_dim_fails_by_value_and_its_fix_passes) {
  // ferrox #40: 1/√head_dim where query_pre_attn_scalar 144 is declared.
  expect_passes("gemma2_attention_scale.py --fixed", {"attention.reference_values", "attention.softcap_bound"});
  const json c = fails("gemma2_attention_scale.py", "attention.reference_values");
  BOOST_TEST(c["check"] == "entries");
  BOOST_TEST(has(c["diagnosis"], "1/√d_h"), c.dump());
  // The cap after the mask: the masked rows leak.
  const json leak = fails("gemma2_attention_scale.py --cap-after-mask", "attention.reference_values");
  BOOST_TEST(leak["check"] == "masked keys carry no weight");
  BOOST_TEST(has(leak["diagnosis"], "after the mask"), leak.dump());
}

BOOST_AUTO_TEST_CASE(llama4_temperature_tuning_passes_and_its_planted_twins_fail_with_their_cause) {
  // transformers Llama4TextAttention: 1 + 0.1·ln(⌊(p + 1)/8192⌋ + 1) on the NoPE layer.
  expect_passes("llama4_temperature_tuning.py", {"attention.temperature_tuning"});
  const json floor = fails("llama4_temperature_tuning.py --floor-missing", "attention.temperature_tuning");
  // In float32 the continuous τ moves the row by less than rounding across two positions, so the
  // missing step may decide as well as the row moving below floor_scale − 1: the diagnosis names it.
  BOOST_TEST((floor["check"] == "unscaled below floor_scale − 1" || floor["check"] == "one step at each multiple"));
  BOOST_TEST(has(floor["diagnosis"], "floor is missing"), floor.dump());
  const json late = fails("llama4_temperature_tuning.py --off-by-one", "attention.temperature_tuning");
  BOOST_TEST(late["check"] == "constant within a step");
  BOOST_TEST(has(late["diagnosis"], "one position late"), late.dump());
}

BOOST_AUTO_TEST_CASE(pixtral_2d_rotary_passes_and_its_planted_twins_fail_with_their_cause) {
  // transformers PixtralRotaryEmbedding: freqs[::2] by row, freqs[1::2] by column.
  expect_passes("pixtral_rope_2d.py", {"rope.axes_2d"});
  const json swapped = fails("pixtral_rope_2d.py --rows-columns-swapped", "rope.axes_2d");
  BOOST_TEST(swapped["check"] == "rows and columns as declared");
  BOOST_TEST(has(swapped["diagnosis"], "rows and columns swapped"), swapped.dump());
  const json halves = fails("pixtral_rope_2d.py --halves", "rope.axes_2d");
  BOOST_TEST(has(halves["diagnosis"], "halves frequencies"), halves.dump());
}

BOOST_AUTO_TEST_CASE(vllm_paged_window_leaks_nan_through_the_value_product_and_its_fix_does_not) {
  // vLLM PR #30887: the logits masked by a select, P·V over every loaded value slot.
  expect_passes("vllm_paged_window_nan.py --fixed", {"attention.poison_invariance", "attention.window_no_lookback"});
  const json c = fails("vllm_paged_window_nan.py", "attention.poison_invariance");
  BOOST_TEST(c["check"] == "finite output");
  BOOST_TEST(rows(c["inputs"]["q"]) <= 3u, c.dump());
  BOOST_TEST(has(c["diagnosis"], "NaN leaks through the value product"), c.dump());
  BOOST_TEST(has(c["diagnosis"], "vLLM PR #30887"), c.dump());
}

BOOST_AUTO_TEST_CASE(llama_cpp_context_shift_uses_the_global_base_on_local_layers_and_its_fix_does_not) {
  // llama.cpp PR #12373: the K-shift took the context's base and scale for Gemma 3's sliding layers too.
  expect_passes("llamacpp_context_shift.py --fixed", {"module.context_shift", "module.layer_schedule"});
  const json c = fails("llamacpp_context_shift.py", "module.context_shift");
  BOOST_TEST(c["check"] == "keys re-rotated to p + Δ", c.dump());
  BOOST_TEST(c["inputs"]["layer"].get<int>() < 5, c.dump());  // a local layer; the global one is right
  BOOST_TEST(has(c["diagnosis"], "layer 5's settings"), c.dump());
  BOOST_TEST(has(c["diagnosis"], "the field 'base and scaling'"), c.dump());
  BOOST_TEST(has(c["diagnosis"], "PR #12373"), c.dump());
}

BOOST_AUTO_TEST_SUITE_END()  // test_real_cli_attention
