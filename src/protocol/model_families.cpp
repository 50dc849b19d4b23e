#include "protocol/model_families.h"

#include <algorithm>
#include <iterator>

namespace pecheck::model {

namespace families {

// Each row: the model_type, the transformers code it follows (models/<family>/
// in huggingface/transformers, v4.53–v5), the layout of its rotary, the rule
// for its layers and the defaults of its configuration class that a published
// config.json may leave out.
//
// Layouts: rotate_half over halves (i, i + d/2) in modeling_llama.py and
// every family copied from it; GPT-J's rotate_every_two (modeling_gptj.py),
// Cohere's rotate_half over (2i, 2i+1) (modeling_cohere.py, modeling_cohere2.py),
// Llama 4's and DeepSeek-V2's complex multiplication of view_as_complex(x
// reshaped (…, d/2, 2)) (modeling_llama4.py, modeling_deepseek_v2.py) are
// interleaved; DeepSeek-V3's apply_rotary_pos_emb_interleave (with
// rope_interleave, the default) regroups pairs into halves first
// (modeling_deepseek_v3.py); GPT-OSS's _apply_rotary_emb chunks x into halves
// (modeling_gpt_oss.py).
constexpr Family kFamilies[] = {
    {"llama", "llama/configuration_llama.py, llama/modeling_llama.py", Layout::halves, LayerRule::none,
     R"({"max_position_embeddings": 2048, "rope_theta": 10000.0})"},
    {"mistral", "mistral/configuration_mistral.py, mistral/modeling_mistral.py (sliding_window on every layer)",
     Layout::halves, LayerRule::uniform,
     R"({"max_position_embeddings": 131072, "rope_theta": 10000.0, "sliding_window": 4096})"},
    {"mixtral", "mixtral/configuration_mixtral.py, mixtral/modeling_mixtral.py (sliding_window on every layer)",
     Layout::halves, LayerRule::uniform, R"({"max_position_embeddings": 131072, "rope_theta": 1000000.0})"},
    {"qwen2", "qwen2/configuration_qwen2.py (layer_types from use_sliding_window, max_window_layers)",
     Layout::halves, LayerRule::qwen2,
     R"({"max_position_embeddings": 32768, "rope_theta": 10000.0, "use_sliding_window": false,
         "sliding_window": 4096, "max_window_layers": 28})"},
    {"qwen2_moe", "qwen2_moe/configuration_qwen2_moe.py", Layout::halves, LayerRule::qwen2,
     R"({"max_position_embeddings": 32768, "rope_theta": 10000.0, "use_sliding_window": false,
         "sliding_window": 4096, "max_window_layers": 28})"},
    {"qwen3", "qwen3/configuration_qwen3.py (layer_types as Qwen2's)", Layout::halves, LayerRule::qwen2,
     R"({"max_position_embeddings": 32768, "rope_theta": 10000.0, "use_sliding_window": false,
         "sliding_window": 4096, "max_window_layers": 28, "head_dim": 128})"},
    {"qwen3_moe", "qwen3_moe/configuration_qwen3_moe.py", Layout::halves, LayerRule::qwen2,
     R"({"max_position_embeddings": 32768, "rope_theta": 10000.0, "use_sliding_window": false,
         "sliding_window": 4096, "max_window_layers": 28})"},
    {"qwen2_vl", "qwen2_vl/configuration_qwen2_vl.py, modeling_qwen2_vl.py (mrope)", Layout::halves, LayerRule::qwen2,
     R"({"max_position_embeddings": 32768, "rope_theta": 1000000.0, "use_sliding_window": false,
         "sliding_window": 4096, "max_window_layers": 80})"},
    {"qwen2_vl_text", "qwen2_vl/configuration_qwen2_vl.py (Qwen2VLTextConfig)", Layout::halves, LayerRule::qwen2,
     R"({"max_position_embeddings": 32768, "rope_theta": 1000000.0, "use_sliding_window": false,
         "sliding_window": 4096, "max_window_layers": 80})"},
    {"qwen2_5_vl", "qwen2_5_vl/configuration_qwen2_5_vl.py", Layout::halves, LayerRule::qwen2,
     R"({"max_position_embeddings": 32768, "rope_theta": 1000000.0, "use_sliding_window": false,
         "sliding_window": 4096, "max_window_layers": 80})"},
    {"gemma", "gemma/configuration_gemma.py", Layout::halves, LayerRule::none,
     R"({"max_position_embeddings": 8192, "rope_theta": 10000.0, "head_dim": 256})"},
    {"gemma2", "gemma2/configuration_gemma2.py (layer_types: sliding where (i + 1) % 2), modeling_gemma2.py",
     Layout::halves, LayerRule::alternate,
     R"({"max_position_embeddings": 8192, "rope_theta": 10000.0, "head_dim": 256, "query_pre_attn_scalar": 256,
         "sliding_window": 4096, "attn_logit_softcapping": 50.0})"},
    {"gemma3_text",
     "gemma3/configuration_gemma3.py (Gemma3TextConfig: layer_types sliding where (i + 1) % sliding_window_pattern; "
     "rope_local_base_freq for sliding layers), modeling_gemma3.py (rotary_emb_local unscaled)",
     Layout::halves, LayerRule::pattern,
     R"({"num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256, "hidden_size": 2304,
         "num_hidden_layers": 26, "max_position_embeddings": 131072, "rope_theta": 1000000.0,
         "rope_local_base_freq": 10000.0, "query_pre_attn_scalar": 256, "sliding_window": 4096,
         "sliding_window_pattern": 6})"},
    {"gemma3n_text", "gemma3n/configuration_gemma3n.py (num_kv_shared_layers), modeling_gemma3n.py", Layout::halves,
     LayerRule::pattern,
     R"({"max_position_embeddings": 32768, "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0,
         "sliding_window": 512, "sliding_window_pattern": 5, "head_dim": 256})"},
    {"cohere", "cohere/configuration_cohere.py, modeling_cohere.py (interleaved rotate_half)", Layout::interleaved,
     LayerRule::none, R"({"max_position_embeddings": 8192, "rope_theta": 10000.0})"},
    {"cohere2",
     "cohere2/configuration_cohere2.py (layer_types sliding where (i + 1) % sliding_window_pattern), "
     "modeling_cohere2.py (rotary only on sliding layers)",
     Layout::interleaved, LayerRule::pattern,
     R"({"max_position_embeddings": 8192, "rope_theta": 10000.0, "sliding_window": 4096,
         "sliding_window_pattern": 4})",
     false},
    {"gpt_oss", "gpt_oss/configuration_gpt_oss.py (layer_types alternate), modeling_gpt_oss.py (sinks)",
     Layout::halves, LayerRule::alternate,
     R"({"max_position_embeddings": 131072, "rope_theta": 150000.0, "head_dim": 64, "sliding_window": 128})"},
    {"llama4_text",
     "llama4/configuration_llama4.py (no_rope_layers from no_rope_layer_interval; layer_types chunked for RoPE "
     "layers), modeling_llama4.py (temperature tuning on NoPE layers)",
     Layout::interleaved, LayerRule::llama4,
     R"({"max_position_embeddings": 131072, "rope_theta": 500000.0, "head_dim": 128, "no_rope_layer_interval": 4,
         "attention_chunk_size": 8192, "attn_temperature_tuning": true, "floor_scale": 8192, "attn_scale": 0.1})"},
    {"phi3", "phi3/configuration_phi3.py, modeling_phi3.py (sliding_window on every layer; longrope)",
     Layout::halves, LayerRule::uniform,
     R"({"max_position_embeddings": 4096, "original_max_position_embeddings": 4096, "rope_theta": 10000.0,
         "partial_rotary_factor": 1.0})"},
    {"phi", "phi/configuration_phi.py (partial_rotary_factor)", Layout::halves, LayerRule::none,
     R"({"max_position_embeddings": 2048, "rope_theta": 10000.0, "partial_rotary_factor": 0.5})"},
    {"deepseek_v2", "deepseek_v2/configuration_deepseek_v2.py, modeling_deepseek_v2.py (MLA, complex rotary)",
     Layout::interleaved, LayerRule::none,
     R"({"max_position_embeddings": 2048, "rope_theta": 10000.0, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
         "v_head_dim": 128})"},
    {"deepseek_v3",
     "deepseek_v3/configuration_deepseek_v3.py, modeling_deepseek_v3.py (MLA, apply_rotary_pos_emb_interleave)",
     Layout::interleave_then_halves, LayerRule::none,
     R"({"max_position_embeddings": 4096, "rope_theta": 10000.0, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
         "v_head_dim": 128, "rope_interleave": true})"},
    {"olmo2", "olmo2/configuration_olmo2.py, modeling_olmo2.py", Layout::halves, LayerRule::none,
     R"({"max_position_embeddings": 2048, "rope_theta": 10000.0})"},
    {"gpt_neox", "gpt_neox/configuration_gpt_neox.py (rotary_pct, rotary_emb_base), modeling_gpt_neox.py",
     Layout::halves, LayerRule::none,
     R"({"max_position_embeddings": 2048, "rope_theta": 10000, "partial_rotary_factor": 0.25})"},
    {"gptj", "gptj/configuration_gptj.py (attribute_map n_head, n_layer, n_embd, n_positions), modeling_gptj.py "
             "(rotate_every_two)",
     Layout::interleaved, LayerRule::none, R"({"max_position_embeddings": 2048, "rotary_dim": 64})"},
    {"falcon", "falcon/configuration_falcon.py (num_kv_heads, multi_query, alibi), modeling_falcon.py",
     Layout::halves, LayerRule::none, R"({"max_position_embeddings": 2048, "rope_theta": 10000.0})"},
    {"stablelm", "stablelm/configuration_stablelm.py (partial_rotary_factor), modeling_stablelm.py", Layout::halves,
     LayerRule::none, R"({"max_position_embeddings": 4096, "rope_theta": 10000, "partial_rotary_factor": 0.25})"},
    {"starcoder2", "starcoder2/configuration_starcoder2.py (sliding_window on every layer)", Layout::halves,
     LayerRule::uniform, R"({"max_position_embeddings": 4096, "rope_theta": 10000.0})"},
};

// An unknown model_type: Llama's reading (most families copy modeling_llama.py),
// with a sliding_window applied to every layer as Mistral's code does.
constexpr Family kFallback{"", "llama/modeling_llama.py, mistral/modeling_mistral.py (assumed)", Layout::halves,
                           LayerRule::uniform, R"({"rope_theta": 10000.0})"};

}  // namespace families

const Family* find_family(std::string_view model_type) {
  const auto* it = std::find_if(std::begin(families::kFamilies), std::end(families::kFamilies),
                                [&](const Family& f) { return f.model_type == model_type; });
  return it == std::end(families::kFamilies) ? nullptr : it;
}

const Family& fallback_family() { return families::kFallback; }

}  // namespace pecheck::model
