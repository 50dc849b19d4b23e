// Planted bugs of per-layer positional settings (CLAIMS.md §9,
// module.layer_schedule): each declares what its twin (gemma3-block,
// llama4-block: subjects/builtin/modules_layered.h) declares and runs layers
// built otherwise, the way published ports have.
#include "pecheck/planted/mutants.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/subjects/builtin/modules_layered.h"

namespace pecheck {

namespace planted::layer_mutants {  // the file's own names (the planted bugs compile in unity batches)

// The twin's declaration (its layers as published), renamed.
SubjectInfo declared_as(const std::string& name, const std::vector<LlamaBlockOptions>& layers,
                        const std::string& scheme) {
  SubjectInfo info = layered_block_info(name, mutant_spec(name), layers, scheme);
  return info;
}

// Gemma 3 with the global layers' rope_scaling (linear ×8) on the local
// layers too: llama.cpp read one freq_scale for both kinds (issue #14367);
// vLLM's Gemma3 regression fixed by PR #29111 configured the sliding layers
// with the global scaling.
SubjectPtr gemma3_local_layers_scaled() {
  auto built = gemma3_layers();
  for (auto& layer : built) {
    layer.scaling.type = ScalingType::linear;
    layer.scaling.factor = 8;
  }
  return std::make_unique<LayeredBlockSubject>(
      declared_as("gemma3-local-layers-scaled", gemma3_layers(), "gemma3-block"), built);
}

// Gemma 3 with rope_scaling parsed and never applied: the global layers turn
// at unscaled positions (mlx-vlm PR #1709, lablup/mlxcel #1340).
SubjectPtr gemma3_global_layers_unscaled() {
  auto built = gemma3_layers();
  for (auto& layer : built) layer.scaling = {};
  return std::make_unique<LayeredBlockSubject>(
      declared_as("gemma3-global-layers-unscaled", gemma3_layers(), "gemma3-block"), built);
}

// Llama 4 with RoPE on every layer: no_rope_layers read the wrong way round
// and ignored, the NoPE layer rotates in forward and reports so.
SubjectPtr llama4_nope_layer_rotated() {
  auto built = llama4_layers();
  for (auto& layer : built) layer.rope = true;
  return std::make_unique<LayeredBlockSubject>(
      declared_as("llama4-nope-layer-rotated", llama4_layers(), "llama4-block"), built);
}

// Llama 4 whose rotate op honours the NoPE layer but whose attention path
// rotates there anyway (the flag read where the rotary is reported, not where
// it is applied).
class NopeForwardRotated : public LayeredBlockSubject {
 public:
  NopeForwardRotated() : LayeredBlockSubject(declared_as("llama4-nope-forward-rotated", llama4_layers(), "llama4-block"),
                                             all_rotary()) {}

 protected:
  Matrix layer_rotation(int layer, const Positions& positions, const Matrix& x,
                        std::optional<Position> seq_len) override {
    if (!info().forward->layers[static_cast<size_t>(layer)].rotate) return x;
    return LayeredBlockSubject::layer_rotation(layer, positions, x, seq_len);
  }

 private:
  static std::vector<LlamaBlockOptions> all_rotary() {
    auto built = llama4_layers();
    for (auto& layer : built) layer.rope = true;
    return built;
  }
};

// Llama 4 whose forward honours no_rope_layers but whose rotate op answers
// every layer with one shared rotary (the model-level rotary_emb built from
// the first layer's settings, applied without asking whether the layer
// rotates): the reported rotation of the NoPE layer turns its inputs.
class NopeRotateShared : public LayeredBlockSubject {
 public:
  NopeRotateShared()
      : LayeredBlockSubject(declared_as("llama4-nope-rotate-shared", llama4_layers(), "llama4-block"), llama4_layers()) {}

 protected:
  Matrix layer_rotation(int, const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override {
    return LayeredBlockSubject::layer_rotation(0, positions, x, seq_len);
  }
};

}  // namespace planted::layer_mutants

std::vector<SubjectEntry> layer_mutants() {
  using namespace planted::layer_mutants;
  return {
      {"gemma3-local-layers-scaled",
       "Gemma 3 with the global linear ×8 scaling on the local layers too (llama.cpp #14367, vLLM PR #29111)",
       gemma3_local_layers_scaled},
      {"gemma3-global-layers-unscaled",
       "Gemma 3 with rope_scaling never applied: global layers unscaled (mlx-vlm PR #1709)",
       gemma3_global_layers_unscaled},
      {"llama4-nope-layer-rotated", "Llama 4 rotating its NoPE layer (no_rope_layers ignored)",
       llama4_nope_layer_rotated},
      {"llama4-nope-forward-rotated",
       "Llama 4 whose NoPE layer reports no rotation but rotates in forward",
       [] { return std::make_unique<NopeForwardRotated>(); }},
      {"llama4-nope-rotate-shared",
       "Llama 4 whose rotate op applies one shared rotary to every layer, the NoPE layer too (forward honours it)",
       [] { return std::make_unique<NopeRotateShared>(); }},
  };
}

}  // namespace pecheck
