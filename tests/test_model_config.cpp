// The config reader (pecheck/protocol/model_config.h) on what the published
// fixtures (tests/fixtures/configs/, checked by check_model_configs.py through
// the CLI) do not exercise: Qwen2's sliding layers from max_window_layers on,
// an explicit null against a family default, Llama 4's explicit
// no_rope_layers, Gemma 3n's KV sharing, transformers v5's flat
// rope_parameters, linear-attention layers, an unknown model_type, and the
// refusals of configs that contradict themselves.
#include <boost/test/unit_test.hpp>

#include "pecheck/protocol/model_config.h"

BOOST_AUTO_TEST_SUITE(test_model_config)

using namespace pecheck;
using model::AttentionKind;
using model::read_model_config;

namespace {
json qwen2(bool use_sliding) {
  return {{"model_type", "qwen2"},      {"num_attention_heads", 4},    {"num_key_value_heads", 2},
          {"hidden_size", 64},          {"num_hidden_layers", 6},      {"use_sliding_window", use_sliding},
          {"sliding_window", 32},       {"max_window_layers", 4},      {"rope_theta", 1e6}};
}
}  // namespace

BOOST_AUTO_TEST_CASE(qwen2_windows_layers_from_max_window_layers_only_when_asked) {
  // configuration_qwen2.py: sliding where sliding_window is set (use_sliding_window) and i >= max_window_layers.
  const auto on = read_model_config(qwen2(true));
  for (const auto& l : on.layers) {
    BOOST_TEST((l.attention == (l.index >= 4 ? AttentionKind::sliding : AttentionKind::full)), "layer " << l.index);
    BOOST_TEST(l.window.has_value() == (l.index >= 4));
  }
  const auto off = read_model_config(qwen2(false));
  for (const auto& l : off.layers) BOOST_TEST((l.attention == AttentionKind::full));
}

BOOST_AUTO_TEST_CASE(a_null_field_is_none_not_the_family_default) {
  // Mistral v0.2 writes "sliding_window": null: no window, though MistralConfig's default is 4096.
  json c = {{"model_type", "mistral"}, {"num_attention_heads", 4}, {"hidden_size", 64}, {"num_hidden_layers", 2},
            {"sliding_window", nullptr}};
  for (const auto& l : read_model_config(c).layers) BOOST_TEST((l.attention == AttentionKind::full));
  c.erase("sliding_window");  // left out: the config class's default applies, and the reading says so
  const auto r = read_model_config(c);
  BOOST_TEST(*r.layers[0].window == 4096);
  BOOST_TEST((r.defaulted == std::vector<std::string>{"max_position_embeddings", "rope_theta", "sliding_window"}));
}

BOOST_AUTO_TEST_CASE(llama4_explicit_no_rope_layers_decide_nope_and_chunking) {
  json c = {{"model_type", "llama4_text"}, {"num_attention_heads", 4}, {"num_key_value_heads", 2},
            {"head_dim", 16},              {"hidden_size", 64},         {"num_hidden_layers", 3},
            {"no_rope_layers", {1, 0, 1}}, {"attention_chunk_size", 16}, {"attn_temperature_tuning", false}};
  const auto r = read_model_config(c);
  BOOST_TEST((r.layers[1].attention == AttentionKind::full));
  BOOST_TEST(!r.layers[1].rope.has_value());
  BOOST_TEST(!r.layers[1].temperature_tuning.has_value());  // tuning off
  BOOST_TEST((r.layers[0].attention == AttentionKind::chunked));
  BOOST_TEST(*r.layers[2].chunk == 16);
  BOOST_TEST(r.not_judged.empty());
  c["no_rope_layers"] = {1, 0};
  BOOST_CHECK_THROW(read_model_config(c), model::ModelConfigError);
}

BOOST_AUTO_TEST_CASE(gemma3n_last_layers_share_keys_with_the_last_earlier_layer_of_their_kind) {
  // modeling_gemma3n.py: kv_shared_layer_index = the last layer before the first shared one of the same type.
  json c = {{"model_type", "gemma3n_text"}, {"num_attention_heads", 2}, {"num_key_value_heads", 1},
            {"hidden_size", 64},            {"num_hidden_layers", 10},  {"sliding_window_pattern", 5},
            {"num_kv_shared_layers", 4}};
  const auto r = read_model_config(c);
  // Layers 4 and 9 are full; 6..9 share: 6, 7, 8 (sliding) with 5, 9 (full) with 4.
  BOOST_TEST(!r.layers[5].kv_shared_with.has_value());
  BOOST_TEST(*r.layers[6].kv_shared_with == 5);
  BOOST_TEST(*r.layers[8].kv_shared_with == 5);
  BOOST_TEST(*r.layers[9].kv_shared_with == 4);
  BOOST_TEST((r.not_judged == std::vector<std::string>{"num_kv_shared_layers"}));
}

BOOST_AUTO_TEST_CASE(flat_rope_parameters_carry_theta_and_partial_factor) {
  // transformers v5 moves rope_theta and partial_rotary_factor into rope_parameters.
  json c = {{"model_type", "phi3"}, {"num_attention_heads", 2}, {"hidden_size", 64}, {"num_hidden_layers", 1},
            {"rope_parameters", {{"rope_type", "linear"}, {"factor", 2.0}, {"rope_theta", 5e5}, {"partial_rotary_factor", 0.5}}}};
  const auto r = read_model_config(c);
  BOOST_TEST(r.layers[0].rope->base == 5e5);
  BOOST_TEST(r.layers[0].rotary_dim == 16);
  BOOST_TEST((r.layers[0].rope->scaling.type == ScalingType::linear));
  c["rope_scaling"] = {{"rope_type", "linear"}, {"factor", 2.0}};
  BOOST_CHECK_THROW(read_model_config(c), model::ModelConfigError);  // both given
}

BOOST_AUTO_TEST_CASE(linear_layers_have_no_rotary_and_are_not_judged) {
  json c = {{"model_type", "qwen3_next"}, {"num_attention_heads", 2}, {"hidden_size", 64}, {"num_hidden_layers", 2},
            {"layer_types", {"linear_attention", "full_attention"}}};
  const auto r = read_model_config(c);
  BOOST_TEST(!r.known_family);
  BOOST_TEST(r.notes.size() == 1u);
  BOOST_TEST(!r.layers[0].rope.has_value());
  BOOST_TEST(r.layers[1].rope.has_value());
  BOOST_TEST((r.not_judged == std::vector<std::string>{"layer_types (linear_attention)"}));
}

BOOST_AUTO_TEST_CASE(contradictions_are_refused_naming_the_field) {
  auto field_of = [](const json& c) {
    try {
      read_model_config(c);
    } catch (const model::ModelConfigError& e) {
      return e.field;
    }
    return std::string("(read)");
  };
  json base = {{"model_type", "gemma2"}, {"num_attention_heads", 2}, {"hidden_size", 64}, {"num_hidden_layers", 2}};
  BOOST_TEST(field_of(base) == "(read)");
  json c = base;
  c["layer_types"] = {"chunked_attention", "full_attention"};  // chunked without attention_chunk_size
  BOOST_TEST(field_of(c) == "model.attention_chunk_size");
  c = base;
  c["sliding_window"] = nullptr;  // Gemma 2's sliding layers with no window
  BOOST_TEST(field_of(c) == "model.sliding_window");
  c = base;
  c["layer_types"] = {"sliding_attention", "global"};
  BOOST_TEST(field_of(c) == "model.layer_types");
  c = base;
  c["num_attention_heads"] = "2";
  BOOST_TEST(field_of(c) == "model.num_attention_heads");
  c = base;
  c["text_config"] = 3;
  BOOST_TEST(field_of(c) == "model.text_config");
}

BOOST_AUTO_TEST_CASE(the_json_form_is_the_specs) {
  json c = {{"model_type", "gpt_oss"}, {"num_attention_heads", 4}, {"num_key_value_heads", 2}, {"head_dim", 8},
            {"hidden_size", 32},       {"num_hidden_layers", 2},   {"vocab_size", 10}};
  const json j = model::reading_json(read_model_config(c));
  BOOST_TEST(j.size() == 3u);
  BOOST_TEST(j["unread"] == json::array({"vocab_size"}));
  BOOST_TEST(j["layers"][0]["attention"] == "sliding");
  BOOST_TEST(j["layers"][0]["window"] == 128);  // GptOssConfig's default
  BOOST_TEST(j["layers"][1]["window"].is_null());
  BOOST_TEST(j["layers"][1]["rope"]["rotary_dim"] == 8);
  BOOST_TEST(j["model"]["sinks"] == true);
  BOOST_TEST(model::reading_text(read_model_config(c)).find("layer   1: full") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(ntk_by_alpha_is_a_fixed_ntk_base) {
  // Hunyuan: {"type": "dynamic", "alpha": a} is base·a^(d/(d−2)) at every length, pecheck's ntk with factor a.
  json c = {{"model_type", "llama"}, {"num_attention_heads", 2}, {"hidden_size", 64}, {"num_hidden_layers", 1},
            {"rope_theta", 10000.0}, {"rope_scaling", {{"type", "dynamic"}, {"alpha", 1000.0}}}};
  const auto r = read_model_config(c);
  BOOST_REQUIRE(r.layers[0].rope.has_value());
  BOOST_TEST((r.layers[0].rope->scaling.type == ScalingType::ntk));
  BOOST_TEST(r.layers[0].rope->scaling.factor == 1000.0);
  c["rope_scaling"]["alpha"] = -1;
  BOOST_CHECK_THROW(read_model_config(c), model::ModelConfigError);
}

BOOST_AUTO_TEST_SUITE_END()
