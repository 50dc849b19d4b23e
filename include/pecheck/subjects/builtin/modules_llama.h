#pragma once
// A built-in Llama-style decoder block (CLAIMS.md §7) in float64 with fixed
// weights, and its key/value cache for incremental decoding.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pecheck/subjects/builtin/modules.h"

namespace pecheck {

struct LlamaBlockOptions {
  int width = 32;        // hidden size
  int heads = 4;         // head width width/heads, rotated as one rotary head each
  int hidden = 64;       // intermediate size of the SwiGLU MLP
  double base = 10000;   // rope_theta
  RopeScaling scaling;   // none, linear, ntk, dynamic_ntk or llama3 (a scaling with no magnitude)
  bool rope = true;      // false: a NoPE layer (Llama 4, Cohere2): queries and keys are not rotated
  std::uint64_t seed = 0x11A3A;
};

// h = x + W_o·Attn(RoPE(RMSNorm(x) W_q), RoPE(RMSNorm(x) W_k), RMSNorm(x) W_v),
// y = h + W_down·(SiLU(RMSNorm(h) W_gate) ⊙ RMSNorm(h) W_up)
// (huggingface/transformers models/llama/modeling_llama.py: LlamaDecoderLayer,
// written here from its equations). RoPE rotates each head in the halves
// layout at the given positions (none at all in a NoPE layer); the attention is causal by token index and
// sees only real keys. With dynamic_ntk scaling the rotary base follows the
// sequence length: max(real positions) + 1 in forward, the largest cached
// position + 1 in decode, seq_len (else max(positions) + 1) in rotate.
//
// decode(session, x, position) appends one token to the session's cache and
// returns its output row: the query attends to every cached key. The cache
// keeps each key before rotation and rotates them all at their own positions
// with the frequencies of the current length — the same rotation forward
// gives them (for a fixed base, HF's cache of keys rotated once is the same).
class LlamaBlockSubject : public Subject {
 public:
  LlamaBlockSubject(SubjectInfo info, LlamaBlockOptions options);
  const SubjectInfo& info() const override { return info_; }
  Batch forward(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding) override;
  Vector decode(const std::string& session, const Vector& x, Position position) override;
  void reset(const std::string& session) override;
  // The block's rotary embedding applied to x as one rotary head of width
  // x.cols() (offered where info declares op rotate: the dynamic-NTK block).
  Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override;

 protected:
  struct Session {
    std::vector<Vector> keys;            // k = RMSNorm(x) W_k, before rotation
    std::vector<Vector> keys_at_append;  // k rotated once, with the frequencies of its own step
    std::vector<Vector> values;
    Positions positions;
  };
  // ω_i of a rotary head of width `dim` for a sequence of `seq_len` tokens.
  virtual std::vector<double> frequencies(int dim, Position seq_len);
  // Rotates every head block of x (rows at `positions`).
  virtual Matrix rotary(const Matrix& x, const Positions& positions, Position seq_len);
  // The causal mask: query i sees key j (both token indices).
  virtual bool may_attend(Eigen::Index query, Eigen::Index key) const { return key <= query; }
  // The session's keys, rotated, for a query of a sequence of `seq_len`.
  virtual Matrix cached_keys(const Session& session, Position seq_len);
  // What reset does to a session.
  virtual void clear(Session& session) { session = Session{}; }

  const LlamaBlockOptions& options() const { return options_; }
  static Matrix stack(const std::vector<Vector>& rows, Eigen::Index width);

 private:
  // The block on one sequence: rotated at `positions`, attending where allowed.
  Matrix block(const Matrix& x, const Positions& positions, Position seq_len,
               const std::function<bool(Eigen::Index, Eigen::Index)>& allowed);
  Matrix attend(const Matrix& q, const Matrix& k, const Matrix& v, const BoolMatrix& allowed) const;
  Matrix mlp(const Matrix& h) const;

  SubjectInfo info_;
  LlamaBlockOptions options_;
  Matrix wq_, wk_, wv_, wo_, w_gate_, w_up_, w_down_;
  Vector attention_norm_, mlp_norm_;
  std::map<std::string, Session> sessions_;
};

// info of a Llama block: causal, positional relative, ops forward | decode,
// plus rotate (and params.rotate: base, halves, the scaling) when scaled.
SubjectInfo llama_block_info(std::string name, std::string spec, const LlamaBlockOptions& options, std::string scheme);

// The dynamic-NTK block's options: factor 2 beyond L = 16 positions (small,
// so that tests cross it cheaply).
LlamaBlockOptions dynamic_ntk_block_options();

// The rotary convention the block's options declare (halves; none for a NoPE layer).
std::optional<RotateConvention> block_rotary(const LlamaBlockOptions& options);

std::vector<SubjectEntry> llama_block_builtins();

}  // namespace pecheck
