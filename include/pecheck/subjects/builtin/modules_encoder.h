#pragma once
// Built-in transformer encoder layers (CLAIMS.md §7): torch.nn.TransformerEncoderLayer's
// computation in float64 with fixed weights — multi-head self-attention with a
// key-padding mask, residuals, LayerNorm (post- or pre-norm), a ReLU or GELU
// feed-forward — and a variant that first adds a learned absolute position table.
#include <cstdint>
#include <vector>

#include "pecheck/subjects/builtin/modules.h"
#include "pecheck/subjects/typed_subject.h"

namespace pecheck {

enum class Activation { relu, gelu };

struct EncoderLayerOptions {
  int width = 16;        // d_model
  int heads = 4;         // head width width/heads
  int hidden = 32;       // dim_feedforward
  bool pre_norm = false; // torch's norm_first
  Activation activation = Activation::relu;
  std::uint64_t seed = 0xE7C0DE;
};

// Post-norm:  h = LN₁(x + MHA(x)),  y = LN₂(h + FFN(h));
// pre-norm:   h = x + MHA(LN₁(x)),  y = h + FFN(LN₂(h)).
// MHA: q, k, v = x W + b per head, softmax(q kᵀ/√d_h) v over the real keys of
// the sequence, heads concatenated, then W_o + b_o. No positional encoding
// and no causal mask: permuting a sequence's tokens permutes its output rows.
class EncoderLayerSubject : public TypedSubject {
 public:
  EncoderLayerSubject(SubjectInfo info, EncoderLayerOptions options);
  const SubjectInfo& info() const override { return info_; }
  Batch forward(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding) override;

 protected:
  // What enters the layer for sequence b (x itself: no positional encoding).
  virtual Matrix embed(const ForwardRequest& request, Eigen::Index b, const Matrix& x) const;
  // LayerNorm `which` (0 or 1) of every token of the batch, each with its
  // own mean and variance over its features.
  virtual Batch normalize(const Batch& h, const ForwardRequest& request, int which) const;
  const Vector& norm_gain(int which) const { return which == 0 ? ln1_gain_ : ln2_gain_; }
  const Vector& norm_shift(int which) const { return which == 0 ? ln1_shift_ : ln2_shift_; }
  const EncoderLayerOptions& options() const { return options_; }

 private:
  Matrix self_attention(const Matrix& h, const ForwardRequest& request, Eigen::Index b) const;
  Matrix feed_forward(const Matrix& h) const;

  SubjectInfo info_;
  EncoderLayerOptions options_;
  Matrix wq_, wk_, wv_, wo_, w1_, w2_;
  Vector bq_, bk_, bv_, bo_, b1_, b2_, ln1_gain_, ln1_shift_, ln2_gain_, ln2_shift_;
};

// The encoder layer after a learned absolute position table: real token r of
// sequence b enters as x[b][r] + E[positions[b][r]], E a fixed random
// table of `table_size` rows (entries uniform in [−1, 1]). Pads get no
// position. A real position outside the table is refused.
class LearnedEncoderSubject : public EncoderLayerSubject {
 public:
  LearnedEncoderSubject(SubjectInfo info, EncoderLayerOptions options, Position table_size = 4096);

 protected:
  Matrix embed(const ForwardRequest& request, Eigen::Index b, const Matrix& x) const override;
  // The table row of token r of sequence b: its given position.
  virtual Position table_row(const ForwardRequest& request, Eigen::Index b, Eigen::Index r) const;

 private:
  Matrix table_;
};

// info of the encoder layers: not causal, width from `options`, positional
// none (encoder-layer) or absolute (learned-encoder).
SubjectInfo encoder_layer_info(std::string name, SubjectSpec spec, const EncoderLayerOptions& options,
                               Positional positional, std::string scheme);

std::vector<SubjectEntry> encoder_layer_builtins();

}  // namespace pecheck
