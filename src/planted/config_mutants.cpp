// Planted bugs of what a model's config implies (CLAIMS.md §10, issue 34):
// each declares what its twin declares (mistral-block, mistral-stack:
// subjects/builtin/modules_llama.h, modules_layered.h) and keeps its window
// otherwise, the way published ports have.
#include "pecheck/planted/mutants.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/subjects/builtin/modules_config.h"
#include "pecheck/subjects/builtin/modules_layered.h"
#include "pecheck/subjects/builtin/rope.h"

namespace pecheck {

namespace planted::config_mutants {  // the file's own names (the planted bugs compile in unity batches)

// A Mistral block whose attention keeps `keep` keys (W + 1 or W − 1) where the
// window is W, in prefill and in its rolling cache alike.
class WindowKeeps : public LlamaBlockSubject {
 public:
  WindowKeeps(const std::string& name, int extra)
      : LlamaBlockSubject(llama_block_info(name, mutant_spec(name), mistral_block_options(), "mistral-block"),
                          mistral_block_options()),
        extra_(extra) {}

 protected:
  Position keep() const { return *options().attention.window + extra_; }
  bool may_attend(Eigen::Index query, Eigen::Index key) const override {
    return key <= query && key > query - keep();
  }
  void trim(Session& session) const override {
    while (static_cast<Position>(session.keys.size()) > keep()) {
      session.keys.erase(session.keys.begin());
      session.keys_at_append.erase(session.keys_at_append.begin());
      session.values.erase(session.values.begin());
      session.positions.erase(session.positions.begin());
      ++session.first;
    }
  }

 private:
  int extra_;
};

// mlx-lm PR #390's "one too many": the rotating cache of max_size + 1 keys,
// here on both paths (the prompt's mask and the generated tokens' cache), so
// that decode agrees with forward and only the window's width is wrong.
SubjectPtr window_plus_one() { return std::make_unique<WindowKeeps>("mistral-block-window-plus-one", 1); }

// The window's oldest key masked: '<' for '≤' in i − W < j (a cache that
// keeps W − 1 keys while it fills).
SubjectPtr window_minus_one() { return std::make_unique<WindowKeeps>("mistral-block-window-minus-one", -1); }

// Two windowed layers whose per-layer path (forward with "layer") is right
// but whose whole forward runs the last layer over every key: the mask (or
// cache group) of a full-attention layer shared by a sliding one in the
// stacked path only (vLLM #51756, the other way round).
class StackLastLayerFull : public LayeredBlockSubject {
 public:
  StackLastLayerFull()
      : LayeredBlockSubject(layered_block_info("mistral-stack-last-layer-full", mutant_spec("mistral-stack-last-layer-full"),
                                               mistral_stack_layers(), "mistral-stack"),
                            mistral_stack_layers()),
        full_(module_info("mistral-stack-last-layer-full (full)", mutant_spec("mistral-stack-last-layer-full"),
                          {true, Positional::relative, mistral_stack_layers().back().width}, true, "mistral-stack"),
              unwindowed(mistral_stack_layers().back())) {}

  Batch forward(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding) override {
    Batch h = x;
    for (int k = 0; k + 1 < layer_count(); ++k) h = run_layer(k, h, positions, padding);
    return full_.forward(h, positions, padding);
  }

 private:
  static LlamaBlockOptions unwindowed(LlamaBlockOptions options) {
    options.attention.window.reset();
    options.rolling_buffer = false;
    return options;
  }
  LlamaBlockSubject full_;
};

// A stack built otherwise than its config says, declared by the config alone.
SubjectPtr from_config(const std::string& name, const json& config, std::vector<LlamaBlockOptions> built,
                       const std::string& scheme, bool offers_rotate = true) {
  return config_block(name, mutant_spec(name), config, std::move(built), scheme, offers_rotate);
}

// Gemma 3 whose sliding layers get the global layers' base and scaling (vLLM
// PR #29111: the sliding layers configured with rope_theta and rope_scaling
// instead of rope_local_base_freq, unscaled).
SubjectPtr gemma3_local_layers_global() {
  auto built = gemma3_config_layers();
  for (std::size_t k = 0; k + 1 < built.size(); ++k) {
    built[k].base = 1e6;
    built[k].scaling.type = ScalingType::linear;
    built[k].scaling.factor = 8;
  }
  return from_config("gemma3-config-local-layers-global", gemma3_tiny_config(), built, "gemma3-config-block");
}

// Gemma 3 whose sliding layers see sliding_window + 1 keys (the window passed
// to a kernel that counts the query beside it: transformers #29623).
SubjectPtr gemma3_window_plus_one() {
  auto built = gemma3_config_layers();
  for (auto& layer : built) {
    if (layer.attention.window) layer.attention.window = *layer.attention.window + 1;
  }
  return from_config("gemma3-config-window-plus-one", gemma3_tiny_config(), built, "gemma3-config-block");
}

// Gemma 3 whose sliding layers see sliding_window − 1 keys.
SubjectPtr gemma3_window_minus_one() {
  auto built = gemma3_config_layers();
  for (auto& layer : built) {
    if (layer.attention.window) layer.attention.window = *layer.attention.window - 1;
  }
  return from_config("gemma3-config-window-minus-one", gemma3_tiny_config(), built, "gemma3-config-block");
}

// GPT-OSS with sliding_window applied to every layer though layer_types says
// full for the odd ones (vLLM #49795).
SubjectPtr gpt_oss_every_layer_sliding() {
  auto built = gpt_oss_config_layers();
  for (auto& layer : built) layer.attention.window = 4;
  return from_config("gpt-oss-config-every-layer-sliding", gpt_oss_tiny_config(), built, "gpt-oss-config-block");
}

// Llama 4 whose chunked layers slide a window of attention_chunk_size keys
// instead of cutting the sequence into chunks (the chunk read as a window).
SubjectPtr llama4_chunk_as_window() {
  auto built = llama4_config_layers();
  for (auto& layer : built) {
    if (layer.attention.chunk) {
      layer.attention.window = layer.attention.chunk;
      layer.attention.chunk.reset();
    }
  }
  return from_config("llama4-config-chunk-as-window", llama4_tiny_config(), built, "llama4-config-block", false);
}

// Llama 4 whose chunks are one token short (attention_chunk_size − 1).
SubjectPtr llama4_chunk_minus_one() {
  auto built = llama4_config_layers();
  for (auto& layer : built) {
    if (layer.attention.chunk) layer.attention.chunk = *layer.attention.chunk - 1;
  }
  return from_config("llama4-config-chunk-minus-one", llama4_tiny_config(), built, "llama4-config-block", false);
}

// A rotary whose cos/sin table holds max_position_embeddings / factor
// positions — the factor applied to the table's length where the configured
// length already counts it (vLLM PR #56446) — and is indexed modulo its length.
class RopeTableWraps : public RopeSubject {
 public:
  RopeTableWraps()
      : RopeSubject(rope_config_info("rope-config-table-wraps", mutant_spec("rope-config-table-wraps"),
                                     linear_rope_tiny_config(), "rope-config-linear")) {}

 protected:
  double position_used(Position t) const override { return static_cast<double>(t % (16384 / 4)); }
};

// A rotary with the linear factor applied twice: to the positions and again
// to the frequencies (vLLM PR #56446's double application).
class RopeFactorTwice : public RopeSubject {
 public:
  RopeFactorTwice()
      : RopeSubject(rope_config_info("rope-config-factor-twice", mutant_spec("rope-config-factor-twice"),
                                     linear_rope_tiny_config(), "rope-config-linear")) {}

 protected:
  double position_used(Position t) const override { return static_cast<double>(t) / 4.0; }
};

}  // namespace planted::config_mutants

std::vector<SubjectEntry> config_mutants() {
  using namespace planted::config_mutants;
  return {
      {"mistral-block-window-plus-one",
       "Mistral block whose attention keeps W + 1 keys in prefill and in its rolling cache (mlx-lm PR #390's \"one too "
       "many\")",
       window_plus_one},
      {"mistral-block-window-minus-one",
       "Mistral block whose window masks its oldest key: W − 1 keys in prefill and cache ('<' for '≤')",
       window_minus_one},
      {"mistral-stack-last-layer-full",
       "two windowed Mistral layers, each right alone, whose whole forward runs the last one over every key (a "
       "full layer's mask shared in the stacked path: vLLM #51756)",
       [] { return SubjectPtr(std::make_unique<StackLastLayerFull>()); }},
      {"gemma3-config-local-layers-global",
       "Gemma 3 stack declared by its config whose sliding layers rotate with the global base 10⁶ and linear ×8 "
       "(vLLM PR #29111)",
       gemma3_local_layers_global},
      {"gemma3-config-window-plus-one",
       "Gemma 3 stack declared by its config whose sliding layers see sliding_window + 1 keys", gemma3_window_plus_one},
      {"gemma3-config-window-minus-one",
       "Gemma 3 stack declared by its config whose sliding layers see sliding_window − 1 keys", gemma3_window_minus_one},
      {"gpt-oss-config-every-layer-sliding",
       "GPT-OSS stack declared by its config with sliding_window applied to its full layers too (vLLM #49795)",
       gpt_oss_every_layer_sliding},
      {"llama4-config-chunk-as-window",
       "Llama 4 stack declared by its config whose chunked layers slide a window of attention_chunk_size keys",
       llama4_chunk_as_window},
      {"llama4-config-chunk-minus-one",
       "Llama 4 stack declared by its config whose chunks are attention_chunk_size − 1 tokens", llama4_chunk_minus_one},
      {"rope-config-table-wraps",
       "rotary declared by its config (max_position_embeddings 16384, linear ×4) whose cos/sin table holds 16384 / 4 "
       "positions and wraps (vLLM PR #56446)",
       [] { return SubjectPtr(std::make_unique<RopeTableWraps>()); }},
      {"rope-config-factor-twice",
       "rotary declared by its config (linear ×4) that divides the positions by the factor and the frequencies "
       "again (vLLM PR #56446)",
       [] { return SubjectPtr(std::make_unique<RopeFactorTwice>()); }},
  };
}

}  // namespace pecheck
