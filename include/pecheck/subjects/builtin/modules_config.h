#pragma once
// Built-in stacks declared by a model config alone (CLAIMS.md §10,
// module.config_conformance; docs/model-configs.md): each is a stack of
// Llama-style blocks (modules_layered.h) built as a small config.json says —
// in the published fields and forms, at d = 32 with heads of 8 — and its
// declaration is that config read by pecheck (params.model), nothing else.
#include <vector>

#include "pecheck/core/json.h"
#include "pecheck/subjects/builtin/modules_layered.h"

namespace pecheck {

// Gemma 3's form (configuration_gemma3.py): 6 layers, sliding_window 4,
// sliding_window_pattern 6 (layer 5 global), rope_local_base_freq 10⁴ on the
// local layers, rope_theta 10⁶ with rope_scaling linear ×8 on the global one.
json gemma3_tiny_config();
// GPT-OSS's form (configuration_gpt_oss.py): 4 layers, layer_types
// sliding / full alternating, sliding_window 4, rope_theta 150000 (the
// published YaRN scaling left out: the block's rotary has no magnitude).
json gpt_oss_tiny_config();
// Llama 4's form (configuration_llama4.py): 4 layers, attention_chunk_size 4,
// no_rope_layers: layer 3 NoPE and full, layers 0–2 chunked with RoPE 500000
// (temperature tuning off: issue 35's claim).
json llama4_tiny_config();

// The layers each config describes, as LlamaBlockOptions.
std::vector<LlamaBlockOptions> gemma3_config_layers();
std::vector<LlamaBlockOptions> gpt_oss_config_layers();
std::vector<LlamaBlockOptions> llama4_config_layers();

// A stack of `layers` that declares its ops and width only, with `config` as
// its params.model (what `--model-config` gives a subject that declares nothing).
// Without `offers_rotate` it answers forward and decode only (the Llama 4
// stack: its blocks rotate in the halves layout where Llama 4 turns
// interleaved pairs, so it offers no rotation to judge).
SubjectPtr config_block(const std::string& name, SubjectSpec spec, const json& config,
                        std::vector<LlamaBlockOptions> layers, const std::string& scheme, bool offers_rotate = true);

// A Llama-style config with linear rope scaling ×4 and max_position_embeddings
// 16384 (rope.position_domain: every position below it as the reference).
json linear_rope_tiny_config();
// A rotary subject (rope.h's RopeSubject, float64, op rotate) declared by
// `config` alone.
SubjectInfo rope_config_info(const std::string& name, SubjectSpec spec, const json& config, const std::string& scheme);

// gemma3-config-block, gpt-oss-config-block, llama4-config-block, rope-config-linear.
std::vector<SubjectEntry> config_block_builtins();

}  // namespace pecheck
