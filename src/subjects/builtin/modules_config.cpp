#include "pecheck/subjects/builtin/modules_config.h"

#include "pecheck/core/subject_spec.h"
#include "pecheck/subjects/builtin/modules.h"
#include "pecheck/subjects/builtin/rope.h"
#include "protocol/model_derive.h"

namespace pecheck {

json gemma3_tiny_config() {
  return {{"architectures", {"Gemma3ForCausalLM"}},
          {"model_type", "gemma3_text"},
          {"hidden_size", 32},
          {"head_dim", 8},
          {"num_attention_heads", 4},
          {"num_key_value_heads", 4},
          {"num_hidden_layers", 6},
          {"max_position_embeddings", 32768},
          {"query_pre_attn_scalar", 8},
          {"rope_local_base_freq", 10000},
          {"rope_theta", 1000000},
          {"rope_scaling", {{"factor", 8.0}, {"rope_type", "linear"}}},
          {"sliding_window", 4},
          {"sliding_window_pattern", 6}};
}

json gpt_oss_tiny_config() {
  return {{"architectures", {"GptOssForCausalLM"}},
          {"model_type", "gpt_oss"},
          {"hidden_size", 32},
          {"head_dim", 8},
          {"num_attention_heads", 4},
          {"num_key_value_heads", 4},
          {"num_hidden_layers", 4},
          {"max_position_embeddings", 131072},
          {"layer_types", {"sliding_attention", "full_attention", "sliding_attention", "full_attention"}},
          {"rope_theta", 150000},
          {"rope_scaling", nullptr},
          {"sliding_window", 4}};
}

json llama4_tiny_config() {
  return {{"architectures", {"Llama4ForCausalLM"}},
          {"model_type", "llama4_text"},
          {"hidden_size", 32},
          {"head_dim", 8},
          {"num_attention_heads", 4},
          {"num_key_value_heads", 4},
          {"num_hidden_layers", 4},
          {"max_position_embeddings", 10485760},
          {"attention_chunk_size", 4},
          {"no_rope_layers", {1, 1, 1, 0}},
          {"attn_temperature_tuning", false},
          {"rope_theta", 500000},
          {"rope_scaling", nullptr}};
}

json linear_rope_tiny_config() {
  return {{"architectures", {"LlamaForCausalLM"}},
          {"model_type", "llama"},
          {"hidden_size", 64},
          {"num_attention_heads", 4},
          {"num_key_value_heads", 4},
          {"num_hidden_layers", 1},
          {"max_position_embeddings", 16384},
          {"rope_theta", 10000.0},
          {"rope_scaling", {{"rope_type", "linear"}, {"factor", 4.0}}}};
}

SubjectInfo rope_config_info(const std::string& name, SubjectSpec spec, const json& config, const std::string& scheme) {
  SubjectInfo info = rope_info(name, std::move(spec), Layout::unspecified, Dtype::float64, scheme);
  info.declared.clear();
  model::apply_model_config(config, info);
  return info;
}

std::vector<LlamaBlockOptions> gemma3_config_layers() {
  auto layers = gemma3_layers();  // the bases and scalings (modules_layered.h)
  for (std::size_t k = 0; k < layers.size(); ++k) {
    if ((k + 1) % 6 != 0) layers[k].attention.window = 4;  // the local layers slide
  }
  return layers;
}

std::vector<LlamaBlockOptions> gpt_oss_config_layers() {
  std::vector<LlamaBlockOptions> layers;
  for (int k = 0; k < 4; ++k) {
    LlamaBlockOptions options;
    options.seed = 0x6F56 + static_cast<std::uint64_t>(k);
    options.base = 150000;
    if (k % 2 == 0) options.attention.window = 4;  // layer_types: sliding, full, sliding, full
    layers.push_back(options);
  }
  return layers;
}

std::vector<LlamaBlockOptions> llama4_config_layers() {
  auto layers = llama4_layers();  // base 500000, layer 3 NoPE (modules_layered.h)
  for (auto& layer : layers) {
    if (layer.rope) layer.attention.chunk = 4;  // the RoPE layers are chunked, the NoPE one full
  }
  return layers;
}

SubjectPtr config_block(const std::string& name, SubjectSpec spec, const json& config,
                        std::vector<LlamaBlockOptions> layers, const std::string& scheme, bool offers_rotate) {
  SubjectInfo info = module_info(name, std::move(spec), {true, Positional::relative, layers.front().width}, true,
                                 scheme);
  if (offers_rotate) info.ops |= static_cast<unsigned>(Op::rotate);
  info.declared = {"params.forward.width"};  // what the block is, not what its model is: the config says that
  model::apply_model_config(config, info);
  if (offers_rotate) {  // its rotate answers a context shift layer by layer (module.context_shift)
    info.context_shift = true;
    info.declared.push_back("params.forward.context_shift");
  }
  return std::make_unique<LayeredBlockSubject>(std::move(info), std::move(layers));
}

namespace {

SubjectEntry config_entry(std::string name, std::string description, json (*config)(),
                          std::vector<LlamaBlockOptions> (*layers)(), bool in_default_matrix, bool offers_rotate = true) {
  return {name, std::move(description),
          [name, config, layers, offers_rotate] {
            return config_block(name, builtin_spec(name), config(), layers(), name, offers_rotate);
          },
          in_default_matrix};
}

}  // namespace

std::vector<SubjectEntry> config_block_builtins() {
  return {
      config_entry("gemma3-config-block",
                   "Gemma-3-style stack of 6 blocks declared by its config.json alone: layers 0–4 sliding (window 4, "
                   "base 10⁴ unscaled), layer 5 full (base 10⁶, linear ×8)",
                   gemma3_tiny_config, gemma3_config_layers, kModulesInDefaultMatrix),
      config_entry("gpt-oss-config-block",
                   "GPT-OSS-style stack of 4 blocks declared by its config.json alone: layer_types sliding (window "
                   "4) and full alternating, base 150000",
                   gpt_oss_tiny_config, gpt_oss_config_layers, kModulesInDefaultMatrix),
      config_entry("llama4-config-block",
                   "Llama-4-style stack of 4 blocks declared by its config.json alone: layers 0–2 chunked (chunk 4, "
                   "base 500000), layer 3 NoPE and full; forward and decode only (its rotary turns halves, not "
                   "Llama 4's interleaved pairs, so it offers no rotate to judge)",
                   llama4_tiny_config, llama4_config_layers, kModulesInDefaultMatrix, false),
      {"rope-config-linear",
       "Llama-style rotary declared by its config.json alone: base 10⁴, halves, linear scaling ×4, "
       "max_position_embeddings 16384 (every position below it answered)",
       [] {
         return std::make_unique<RopeSubject>(rope_config_info("rope-config-linear", builtin_spec("rope-config-linear"),
                                                               linear_rope_tiny_config(), "rope-config-linear"));
       },
       false},
  };
}

}  // namespace pecheck
