#pragma once
// The model families the config reader knows: for each transformers
// `model_type`, the rotary layout its modeling code applies, how its layers
// get their attention kind when the config has no `layer_types`, and the
// defaults of its configuration class for the fields a published config.json
// leaves out (Gemma 3's text_config omits heads, head_dim, rope_theta...).
#include <string_view>

#include "pecheck/core/conventions.h"
#include "pecheck/core/json.h"

namespace pecheck::model {

// How the layers' attention kinds follow from the config when `layer_types`
// is absent (each rule cites the configuration class it follows in families.cpp).
enum class LayerRule {
  uniform,          // sliding_window, when set, applies to every layer (Mistral, Mixtral, Phi-3, Starcoder2)
  qwen2,            // sliding from max_window_layers on, only with use_sliding_window (Qwen2, Qwen3)
  alternate,        // even layers sliding, odd full (Gemma 2, GPT-OSS)
  pattern,          // every sliding_window_pattern-th layer full, the rest sliding (Gemma 3, Cohere 2)
  llama4,           // RoPE layers chunked, NoPE layers (no_rope_layers) full (Llama 4)
  none,             // no window even if one is written (Llama, GPT-NeoX, ...)
};

struct Family {
  std::string_view model_type;
  std::string_view source;        // the transformers files followed
  Layout layout;                  // the layout its apply_rotary_pos_emb rotates in
  LayerRule rule;
  const char* defaults;           // JSON: the config class's defaults the reader may need
  bool rope_on_full_layers = true;  // Cohere 2: global layers have no positions
};

// The family of `model_type`, or nullptr for one the reader does not know
// (read then with Llama's rules).
const Family* find_family(std::string_view model_type);
// What an unknown model_type is read as.
const Family& fallback_family();

}  // namespace pecheck::model
