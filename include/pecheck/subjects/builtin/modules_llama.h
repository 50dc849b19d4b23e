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
#include "pecheck/subjects/typed_subject.h"

namespace pecheck {

struct LlamaBlockOptions {
  int width = 32;        // hidden size
  int heads = 4;         // head width width/heads, rotated as one rotary head each
  int kv_heads = 0;      // key/value heads (grouped-query attention); 0: as many as heads
  int hidden = 64;       // intermediate size of the SwiGLU MLP
  double base = 10000;   // rope_theta
  RopeScaling scaling;   // none, linear, ntk, dynamic_ntk or llama3 (a scaling with no magnitude)
  bool rope = true;      // false: a NoPE layer (Llama 4, Cohere2): queries and keys are not rotated
  std::uint64_t seed = 0x11A3A;
  // The attention's conventions (window, softcap, sinks with their logits,
  // scale, grouping); heads and kv_heads come from the fields above.
  AttentionConvention attention;
  bool rolling_buffer = false;    // decode keeps only the last `window` keys (Mistral's rotating cache)
  bool offers_attention = false;  // the block's attention kernel is offered as the op attention
  bool answers_backward = false;  // answers the backward of forward (params.backward.of = [forward])
  // Llama 4's query temperature (NoPE layers): queries at position p scaled by
  // `temperature` (reference::query_temperature unless a planted bug gives its own).
  std::optional<TemperatureTuning> temperature_tuning;
  std::function<double(const TemperatureTuning&, Position)> temperature;
  int key_heads() const { return kv_heads > 0 ? kv_heads : heads; }
  int head_width() const { return width / heads; }
  int key_width() const { return key_heads() * head_width(); }
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
//
// The attention follows options.attention (SUBJECT-PROTOCOL.md "Attention
// conventions"): H query heads over G = kv_heads key/value heads (query head h
// reads kv_head(h)); logits scaled (declared scale, else 1/√d_h), soft-capped
// where declared; a key visible to a query by may_attend (causal, within the
// window); a sink logit per head in every softmax. decode_tokens appends k
// tokens at once (each sees the cache and the tokens before it: a KV cache's
// bottom-right causal mask); with rolling_buffer the cache then keeps the
// last `window` keys. forward_packed runs packed documents, each seeing only
// itself. The attention op (offers_attention) is the same kernel on given
// q, k, v: causal bottom-right (a cache's), a query with no visible key a
// zero row.
class LlamaBlockSubject : public TypedSubject {
 public:
  LlamaBlockSubject(SubjectInfo info, LlamaBlockOptions options);
  const SubjectInfo& info() const override { return info_; }
  Batch forward(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding) override;
  Vector decode(const std::string& session, const Vector& x, Position position) override;
  void reset(const std::string& session) override;
  Batch forward_packed(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding,
                       const std::vector<Positions>& segments) override;
  Matrix decode_tokens(const std::string& session, const Matrix& x, const Positions& positions) override;
  void reset_with_capacity(const std::string& session, Position capacity) override;
  // The block's attention kernel on q (n×H·d_h), k (m×G·d_h), v (m×G·d_v).
  Matrix attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask, int heads) override;
  // The block's rotary embedding applied to x as one rotary head of width
  // x.cols() (offered where info declares op rotate: the dynamic-NTK block).
  Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override;
  // dx of each sequence (options.answers_backward): the reference reverse
  // pass (reference/vjp.h block_vjp) with the block's weights, each query
  // seeing the real keys backward_may_attend lets it.
  Batch forward_backward(const ForwardCall& call, const Batch& grad) override;
  // The same with the block's own mask (prefill_may_attend), whatever a
  // subclass's backward does: pecheck's reference VJP of this block.
  Batch reference_backward(const ForwardCall& call, const Batch& grad);

 protected:
  struct Session {
    std::vector<Vector> keys;            // k = RMSNorm(x) W_k, before rotation
    std::vector<Vector> keys_at_append;  // k rotated once, with the frequencies of its own step
    std::vector<Vector> values;
    Positions positions;
    Eigen::Index first = 0;              // the token index (since reset) of keys[0] (a rolling buffer drops older ones)
    std::optional<Position> capacity;    // the allocated cache length, where reset gave one
  };
  // Where a computation runs: the prefill path (forward, the attention op) or
  // the decode path (the cache); a kernel may differ between them.
  enum class Path { prefill, decode };
  // ω_i of a rotary head of width `dim` for a sequence of `seq_len` tokens.
  virtual std::vector<double> frequencies(int dim, Position seq_len);
  // Rotates every head block of x (rows at `positions`).
  virtual Matrix rotary(const Matrix& x, const Positions& positions, Position seq_len);
  // Queries scaled by the layer's temperature at their positions (none declared: as they are).
  Matrix tuned(Matrix q, const Positions& positions) const;
  // The causal mask: query i sees key j (both token indices), within the window.
  virtual bool may_attend(Eigen::Index query, Eigen::Index key) const;
  // The mask of the prefill path (forward, the attention op): may_attend.
  virtual bool prefill_may_attend(Eigen::Index query, Eigen::Index key) const { return may_attend(query, key); }
  // The mask the backward of forward recomputes its weights under (a kernel's backward may differ).
  virtual bool backward_may_attend(Eigen::Index query, Eigen::Index key) const { return prefill_may_attend(query, key); }
  // The kv head query head h reads (options.attention.grouping).
  virtual int kv_head(int h) const;
  // A scaled logit after the cap (c·tanh(s/c) where declared).
  virtual double cap_logit(double s, Path path) const;
  // Head h's sink logit, where declared.
  virtual std::optional<double> sink_logit(int h) const;
  // The kernel: query head h over kv head kv_head(h) on n×(H·d_h) q, m×(G·d_h)
  // k, m×(G·d_v) v, key j visible to query i where seen(i, j); a query with
  // no visible key (and no sink) gets a zero row.
  Matrix heads_attention(const Matrix& q, const Matrix& k, const Matrix& v, const BoolMatrix& seen, Path path) const;
  // The keys a decode step keeps after appending (the rolling buffer's trim).
  virtual void trim(Session& session) const;
  // Whether row `row` of a decode step of `rows` tokens sees cached key
  // `key` (index into the cache; tokens `query_token` and `key_token` since reset).
  virtual bool step_may_attend(Eigen::Index row, Eigen::Index rows, Eigen::Index key, Eigen::Index query_token,
                               Eigen::Index key_token) const {
    (void)row, (void)rows, (void)key;
    return may_attend(query_token, key_token);
  }
  // The length the rotary frequencies of a decode step follow (the largest cached position + 1).
  virtual Position decode_length(const Session& session) const { return cached_length(session); }
  // The session's keys, rotated, for a query of a sequence of `seq_len`.
  virtual Matrix cached_keys(const Session& session, Position seq_len);
  // What reset does to a session.
  virtual void clear(Session& session) { session = Session{}; }

  const LlamaBlockOptions& options() const { return options_; }
  static Matrix stack(const std::vector<Vector>& rows, Eigen::Index width);

  // The session's cached keys' frequencies' length (the largest cached position + 1).
  static Position cached_length(const Session& session);

 private:
  // The block on one sequence: rotated at `positions`, attending where allowed.
  Matrix block(const Matrix& x, const Positions& positions, Position seq_len,
               const std::function<bool(Eigen::Index, Eigen::Index)>& allowed);
  Matrix attend(const Matrix& q, const Matrix& k, const Matrix& v, const BoolMatrix& allowed, Path path) const;
  Matrix mlp(const Matrix& h) const;
  // Appends tokens x (rows, at positions) to the session and returns their output rows.
  Matrix append(Session& session, const Matrix& x, const Positions& positions);
  Batch backward_under(const ForwardCall& call, const Batch& grad,
                       const std::function<bool(Eigen::Index, Eigen::Index)>& may_attend);

  SubjectInfo info_;
  LlamaBlockOptions options_;
  Matrix wq_, wk_, wv_, wo_, w_gate_, w_up_, w_down_;
  Vector attention_norm_, mlp_norm_;
  std::map<std::string, Session> sessions_;
};

// info of a Llama block: causal, positional relative, ops forward | decode,
// plus rotate (and params.rotate: base, halves, the scaling) when scaled;
// params.forward declares the attention's conventions, segments,
// cache_capacity and multi_token_decode; with offers_attention, the op
// attention and params.attention (the same conventions, bottom_right,
// fully_masked zeros).
SubjectInfo llama_block_info(std::string name, SubjectSpec spec, const LlamaBlockOptions& options, std::string scheme);

// The 2024–2026 blocks (SUBJECT-PROTOCOL.md "Attention conventions"), each the
// Llama block with its model's attention, at d = 32 with 4 query heads:
// Mistral (GQA 4/2, sliding window 4 with a rolling buffer), Llama 3 (GQA
// 4/2), Gemma 2 (GQA 4/2, softcap 50, scale 1/√query_pre_attn_scalar = 1/16),
// GPT-OSS (GQA 4/2, a sliding layer: window 4, learned sinks).
LlamaBlockOptions mistral_block_options();
LlamaBlockOptions llama_gqa_block_options();
LlamaBlockOptions gemma2_block_options();
LlamaBlockOptions gpt_oss_block_options();

// The dynamic-NTK block's options: factor 2 beyond L = 16 positions (small,
// so that tests cross it cheaply).
LlamaBlockOptions dynamic_ntk_block_options();

// The rotary convention the block's options declare (halves; none for a NoPE layer).
std::optional<RotateConvention> block_rotary(const LlamaBlockOptions& options);

std::vector<SubjectEntry> llama_block_builtins();

// pecheck's reference module of scheme `scheme` (a built-in block whose
// backward of forward pecheck computes: "llama-block"), or none: what
// grad.reference_values compares a module's VJP with.
std::unique_ptr<LlamaBlockSubject> reference_module(std::string_view scheme);
bool has_reference_module(std::string_view scheme);

}  // namespace pecheck
