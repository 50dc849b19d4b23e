#pragma once
// Built-in stacks of Llama-style blocks with per-layer positional settings
// (CLAIMS.md §9, module.layer_schedule): a Gemma-3-style model of local
// layers (base 10⁴, unscaled) and global ones (base 10⁶, linear ×8), and a
// Llama-4-style one with a NoPE layer in every four. Each declares its
// layers in params.forward.layers and answers for one layer when asked
// (SUBJECT-PROTOCOL.md "Per-layer positional settings", pecheck's spelling).
#include <vector>

#include "pecheck/subjects/builtin/modules_llama.h"
#include "pecheck/subjects/typed_subject.h"

namespace pecheck {

// y = layer_{L−1}(… layer_0(x)): each layer a LlamaBlockSubject with its own
// weights (seed + k) and rotary (or none), causal, its own key/value cache in
// decode. forward_layer(k) and rotate_layer(k) ask layer k alone; rotate
// without a layer is layer 0's rotation (params.rotate declares layer 0's).
class LayeredBlockSubject : public TypedSubject {
 public:
  LayeredBlockSubject(SubjectInfo info, std::vector<LlamaBlockOptions> layers);
  const SubjectInfo& info() const override { return info_; }
  Batch forward(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding) override;
  Batch forward_layer(int layer, const Batch& x, const std::vector<Positions>& positions,
                      const BoolMatrix& padding) override;
  Vector decode(const std::string& session, const Vector& x, Position position) override;
  void reset(const std::string& session) override;
  Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override;
  Matrix rotate_layer(int layer, const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override;
  // llama.cpp's context shift (llama-kv-cache.cpp build_rope_shift): the
  // cached keys of layer k (layer 0 without one) turned by layer k's rotation
  // at |Δ| — forward for Δ > 0, its transpose for Δ < 0.
  Matrix rotate_shift(std::optional<int> layer, const Positions& positions, const Matrix& x, Position shift,
                      std::optional<Position> seq_len) override;

 protected:
  // Layer k on a batch (planted bugs change one layer's path).
  virtual Batch run_layer(int layer, const Batch& x, const std::vector<Positions>& positions,
                          const BoolMatrix& padding);
  // The rotation layer k applies to queries and keys, as the rotate op reports it.
  virtual Matrix layer_rotation(int layer, const Positions& positions, const Matrix& x,
                                std::optional<Position> seq_len);
  // Layer k's rotation at Δ as a matrix M = R(Δ)ᵀ (rows of x times M are R(Δ) x), the
  // shift's building block (planted bugs take another layer's, or turn the other way).
  Matrix shift_matrix(int layer, Position delta, int dim);
  // The shift of layer k's keys rotated at `positions` (rotate_shift's body).
  virtual Matrix layer_shift(int layer, const Positions& positions, const Matrix& x, Position shift);
  LlamaBlockSubject& block(int layer);
  int layer_count() const { return static_cast<int>(blocks_.size()); }

 private:
  SubjectInfo info_;
  std::vector<std::unique_ptr<LlamaBlockSubject>> blocks_;
};

// The info of a stack: causal, positional relative, ops forward | decode |
// rotate, params.forward.layers one per layer, params.rotate layer 0's,
// params.forward.window where every layer has the same window.
SubjectInfo layered_block_info(std::string name, SubjectSpec spec, const std::vector<LlamaBlockOptions>& layers,
                               std::string scheme);

// Gemma 3's schedule (models/gemma3: sliding_window_pattern 6, layer k global
// when (k + 1) % 6 == 0; rope_local_base_freq 10⁴ unscaled on the local
// layers, rope_theta 10⁶ with rope_scaling linear ×8 on the global ones), at
// d = 32, 4 heads.
std::vector<LlamaBlockOptions> gemma3_layers();
// Llama 4's (models/llama4: no_rope_layers, every fourth layer without
// RoPE; rope_theta 500000), four layers at d = 32.
std::vector<LlamaBlockOptions> llama4_layers();
// The same with Llama 4's temperature tuning on the NoPE layer
// (configuration_llama4.py defaults: attn_scale 0.1, floor_scale 8192).
std::vector<LlamaBlockOptions> llama4_tuned_layers();

// Two Mistral blocks (mistral_block_options: window 4, rolling cache), each
// with its own weights: the window through a stack (module.window_no_lookback).
std::vector<LlamaBlockOptions> mistral_stack_layers();

std::vector<SubjectEntry> layered_block_builtins();

}  // namespace pecheck
