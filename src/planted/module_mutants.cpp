// Planted module bugs (CLAIMS.md §7): each a built-in module with one step
// overridden, judged by its twin's scheme. They live where real ones do: in
// the caches and the bookkeeping around the formulas, not in the formulas.
#include <algorithm>
#include <cmath>
#include <map>

#include "pecheck/planted/mutants.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/reference/modules.h"
#include "pecheck/subjects/builtin/modules_encoder.h"
#include "pecheck/subjects/builtin/modules_llama.h"

namespace pecheck {

namespace planted::module_mutants {  // the file's own names (the planted bugs compile in unity batches)

SubjectInfo llama_mutant_info(const std::string& name, const LlamaBlockOptions& options = {}) {
  const bool scaled = options.scaling.type != ScalingType::none;
  // It declares what its twin declares: builtin:llama-block answers the backward of forward.
  LlamaBlockOptions declared = options;
  declared.answers_backward = !scaled;
  return llama_block_info(name, mutant_spec(name), declared, scaled ? "llama-block-dynamic-ntk" : "llama-block");
}

// The rotary table cached under the number of rows only
// (lucidrains/rotary-embedding-torch issue #11: cache_key = f'freqs:{seq_len}'
// while the offset is ignored): every later call with as many rows gets the
// rotation of the positions the first one had. A forward alone cannot show
// it (RoPE is relative, a whole-sequence shift changes nothing), but decode
// rotates one row at a time: every token after the first is rotated as if it
// stood where the first one did.
class RotaryCacheByLength : public LlamaBlockSubject {
 public:
  RotaryCacheByLength() : LlamaBlockSubject(llama_mutant_info("llama-rotary-cache-by-length"), {}) {}

 protected:
  Matrix rotary(const Matrix& x, const Positions& positions, Position seq_len) override {
    const auto [cached, inserted] = first_positions_.try_emplace(x.rows(), positions);
    return LlamaBlockSubject::rotary(x, cached->second, seq_len);
  }

 private:
  std::map<Eigen::Index, Positions> first_positions_;
};

// Decode rotates every cached key with the position of the token being
// decoded (the cache keeps keys unrotated and rotates the whole cache with
// the current position): all relative distances become 0, and decode stops
// agreeing with forward at the second token (transformers #25104 is the
// same family: cached keys rotated at the wrong positions).
class KvCacheCurrentPosition : public LlamaBlockSubject {
 public:
  KvCacheCurrentPosition() : LlamaBlockSubject(llama_mutant_info("llama-kv-cache-current-position"), {}) {}

 protected:
  Matrix cached_keys(const Session& session, Position seq_len) override {
    const Positions current(session.positions.size(), session.positions.back());
    return rotary(stack(session.keys, options().width), current, seq_len);
  }
};

// A causal mask that lets each query see the next token too (tril with
// diagonal=1, or triu(diagonal=1) taken for the allowed set).
class CausalMaskLeak : public LlamaBlockSubject {
 public:
  CausalMaskLeak() : LlamaBlockSubject(llama_mutant_info("llama-causal-mask-leak"), {}) {}

 protected:
  bool may_attend(Eigen::Index query, Eigen::Index key) const override { return key <= query + 1; }
};

// reset zeroes the cached keys and values in place but keeps their count,
// so the next session attends to stale zero keys (huggingface/transformers
// PR #48509, "DynamicCache.reset() leaving the cache in a corrupt, non-empty
// state", and PR #48809).
class ResetKeepsCache : public LlamaBlockSubject {
 public:
  ResetKeepsCache() : LlamaBlockSubject(llama_mutant_info("llama-reset-keeps-cache"), {}) {}

 protected:
  void clear(Session& session) override {
    for (auto* rows : {&session.keys, &session.keys_at_append, &session.values}) {
      for (auto& row : *rows) row.setZero();
    }
  }
};

// Dynamic NTK whose frequencies, once grown for a long sequence, are never
// scaled back for a shorter one (huggingface/transformers issue #25306 and
// PR #27033: inv_freq recomputed only when seq_len > max_seq_len_cached).
// The answer to a short request depends on whether a long one came before.
class NtkCacheNeverShrinks : public LlamaBlockSubject {
 public:
  NtkCacheNeverShrinks()
      : LlamaBlockSubject(llama_mutant_info("llama-ntk-cache-never-shrinks", dynamic_ntk_block_options()),
                          dynamic_ntk_block_options()) {}

 protected:
  std::vector<double> frequencies(int dim, Position seq_len) override {
    auto& grown = longest_.try_emplace(dim, options().scaling.original_max_position).first->second;
    grown = std::max(grown, seq_len);
    return LlamaBlockSubject::frequencies(dim, grown);
  }

 private:
  std::map<int, Position> longest_;  // per rotary width: the longest length seen (at least L)
};

// A "dynamic" NTK base that does not depend on the length (vllm issue
// #41236: max_len = max_position · factor substituted for the sequence
// length, so the base is base·(F² − F + 1)^(d/(d−2)) at every length, even
// below L where the original base is due).
class NtkStaticBase : public LlamaBlockSubject {
 public:
  NtkStaticBase()
      : LlamaBlockSubject(llama_mutant_info("llama-ntk-static-base", dynamic_ntk_block_options()),
                          dynamic_ntk_block_options()) {}

 protected:
  std::vector<double> frequencies(int dim, Position) override {
    const auto& s = options().scaling;
    const auto max_len = static_cast<Position>(static_cast<double>(s.original_max_position) * s.factor);
    return LlamaBlockSubject::frequencies(dim, max_len);
  }
};

// Decode keeps each key as it was rotated when it was appended, with the
// base of that step's length (huggingface/transformers issue #25104,
// "Inconsistent Rotation Base for Dynamic NTK Scaling RoPE"): once the
// length passes L, old keys and the new query use different bases.
class NtkKvCacheStaleBase : public LlamaBlockSubject {
 public:
  NtkKvCacheStaleBase()
      : LlamaBlockSubject(llama_mutant_info("llama-ntk-kv-cache-stale-base", dynamic_ntk_block_options()),
                          dynamic_ntk_block_options()) {}

 protected:
  Matrix cached_keys(const Session& session, Position) override {
    return stack(session.keys_at_append, options().width);
  }
};

// Position ids counted from the start of the row, pads included, instead of
// the given positions (verl-project/verl issue #4159, response position ids
// padded on the wrong side; tloen/alpaca-lora issue #315, position_ids
// 0..N−1 under left padding): a left-padded sequence's real tokens look up
// the table rows of later positions.
class PositionIdsFromRowStart : public LearnedEncoderSubject {
 public:
  PositionIdsFromRowStart()
      : LearnedEncoderSubject(encoder_layer_info("learned-encoder-position-ids-from-row-start",
                                                 mutant_spec("learned-encoder-position-ids-from-row-start"), {},
                                                 Positional::absolute, "learned-encoder"),
                              {}) {}

 protected:
  Position table_row(const ForwardRequest&, Eigen::Index, Eigen::Index r) const override { return r; }
};

// LayerNorm reduced over the wrong axes: the mean and variance of token r
// taken over the features of token r of every sequence in the batch
// (x.mean(dim=(0, 2)) for x.mean(dim=-1)). A batch of one is normalised
// exactly as LayerNorm does; in a larger batch a sequence's output depends
// on its neighbours.
class BatchStatistics : public EncoderLayerSubject {
 public:
  BatchStatistics()
      : EncoderLayerSubject(encoder_layer_info("encoder-layer-batch-statistics", mutant_spec("encoder-layer-batch-statistics"),
                                               {}, Positional::none, "encoder-layer"),
                            {}) {}

 protected:
  Batch normalize(const Batch& h, const ForwardRequest& request, int which) const override {
    Batch out = h;
    for (Eigen::Index r = 0; r < request.tokens; ++r) {
      Matrix column(static_cast<Eigen::Index>(h.size()), options().width);  // token r of every sequence
      for (size_t b = 0; b < h.size(); ++b) column.row(static_cast<Eigen::Index>(b)) = h[b].row(r);
      const double mean = column.mean();
      const double var = (column.array() - mean).square().mean();
      const double inv = 1.0 / std::sqrt(var + 1e-5);
      for (size_t b = 0; b < h.size(); ++b) {
        out[b].row(r) = ((h[b].row(r).array() - mean) * inv * norm_gain(which).transpose().array() +
                         norm_shift(which).transpose().array())
                            .matrix();
      }
    }
    return out;
  }
};

// Dynamic NTK whose length is the longest in the batch: the base follows
// max(position_ids) + 1 over the whole batch tensor (huggingface/transformers
// LlamaDynamicNTKScalingRotaryEmbedding.forward; QwenLM/Qwen issue #401: "if
// there is an outlier long sequence in the batch, the ntk value for this
// batch will all use the longest one"). Alone, a sequence gets its own base;
// beside a longer one past L, another.
class NtkBatchMaxLength : public LlamaBlockSubject {
 public:
  NtkBatchMaxLength()
      : LlamaBlockSubject(llama_mutant_info("llama-ntk-batch-max-length", dynamic_ntk_block_options()),
                          dynamic_ntk_block_options()) {}

  Batch forward(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding) override {
    const ForwardRequest request = forward_request(info(), x, positions, padding);
    batch_length_ = 1;
    for (const auto& row : request.positions) {
      for (Position t : row) batch_length_ = std::max(batch_length_, t + 1);
    }
    // Only for this forward: decode and rotate keep their own length.
    struct Restore {
      Position& length;
      ~Restore() { length = 1; }
    } restore{batch_length_};
    return LlamaBlockSubject::forward(x, request.positions, request.padding);
  }

 protected:
  std::vector<double> frequencies(int dim, Position seq_len) override {
    return LlamaBlockSubject::frequencies(dim, std::max(seq_len, batch_length_));
  }

 private:
  Position batch_length_ = 1;  // the batch's longest length, during a forward
};

// An encoder declared position-free (positional none) whose embedding still
// adds a learned position table: a BERT-style embedding module reused in
// front of a set encoder, its position embeddings left on. Permuting the
// tokens then changes more than their order.
class EncoderPositionsLeftOn : public LearnedEncoderSubject {
 public:
  EncoderPositionsLeftOn()
      : LearnedEncoderSubject(encoder_layer_info("encoder-layer-positions-left-on", mutant_spec("encoder-layer-positions-left-on"),
                                                 {}, Positional::none, "encoder-layer"),
                              {}) {}
};

// A learned-position encoder whose tokens all look up table row 0: the
// position ids left at their zero default (never passed, or a non-persistent
// position_ids buffer restored as zeros). Declared absolute, it ignores
// positions, so no permutation changes more than the row order.
class LearnedPositionsAllZero : public LearnedEncoderSubject {
 public:
  LearnedPositionsAllZero()
      : LearnedEncoderSubject(encoder_layer_info("learned-encoder-positions-all-zero",
                                                 mutant_spec("learned-encoder-positions-all-zero"), {}, Positional::absolute,
                                                 "learned-encoder"),
                              {}) {}

 protected:
  Position table_row(const ForwardRequest&, Eigen::Index, Eigen::Index) const override { return 0; }
};

// Position ids r − (number of pads): generation code that supports left
// padding only (the pads assumed to come first). Left-padded tokens get
// their positions right; right-padded ones are moved back by the pad count
// (clamped at 0, as a masked_fill or clamp(min=0) leaves them).
class LearnedAssumesLeftPadding : public LearnedEncoderSubject {
 public:
  LearnedAssumesLeftPadding()
      : LearnedEncoderSubject(encoder_layer_info("learned-encoder-assumes-left-padding",
                                                 mutant_spec("learned-encoder-assumes-left-padding"), {}, Positional::absolute,
                                                 "learned-encoder"),
                              {}) {}

 protected:
  Position table_row(const ForwardRequest& request, Eigen::Index b, Eigen::Index r) const override {
    Position pads = 0;
    for (Eigen::Index k = 0; k < request.tokens; ++k) pads += request.real(b, k) ? 0 : 1;
    return std::max<Position>(0, r - pads);
  }
};

// The positions of the batch's first sequence used for every sequence
// (position ids built once, 1 × N, and broadcast over the batch, though each
// sequence has its own). At index 0 a sequence is right; elsewhere it gets
// the first sequence's positions.
class LearnedPositionsFromFirstRow : public LearnedEncoderSubject {
 public:
  LearnedPositionsFromFirstRow()
      : LearnedEncoderSubject(encoder_layer_info("learned-encoder-positions-from-first-row",
                                                 mutant_spec("learned-encoder-positions-from-first-row"), {},
                                                 Positional::absolute, "learned-encoder"),
                              {}) {}

 protected:
  Position table_row(const ForwardRequest& request, Eigen::Index b, Eigen::Index r) const override {
    return request.real(0, r) ? request.positions[0][static_cast<size_t>(r)] : LearnedEncoderSubject::table_row(request, b, r);
  }
};

// A rotary cos/sin table of 64 rows gathered with out-of-range indices
// clamped to the last row (jax.numpy.take's default mode clamps; a table
// sized to max_position_embeddings and indexed past it): every position past
// 63 is rotated like 63, so a shift that crosses the table's end changes the
// output of a module declared relative.
class RopeTableClamped : public LlamaBlockSubject {
 public:
  RopeTableClamped() : LlamaBlockSubject(llama_mutant_info("llama-rope-table-clamped"), {}) {}

 protected:
  Matrix rotary(const Matrix& x, const Positions& positions, Position seq_len) override {
    Positions clamped = positions;
    for (auto& t : clamped) t = std::min<Position>(t, kTableRows - 1);
    return LlamaBlockSubject::rotary(x, clamped, seq_len);
  }

 private:
  static constexpr Position kTableRows = 64;
};

// The Llama blocks of CLAIMS.md §8, each with one convention wrong in its kernel.
SubjectInfo block_mutant_info(const std::string& name, const LlamaBlockOptions& options, const std::string& scheme) {
  return llama_block_info(name, mutant_spec(name), options, scheme);
}

// GQA with the kv heads tiled ([h0, h1, h0, h1]) in forward, decode and the
// attention op alike, the block declaring repeat_interleave: every module
// claim holds (a consistent head permutation is only other weights), the
// grouping claim on its attention op does not (onnx PR #7274's reference).
class GqaTile : public LlamaBlockSubject {
 public:
  GqaTile()
      : LlamaBlockSubject(block_mutant_info("llama-gqa-block-tile", llama_gqa_block_options(), "llama-gqa-block"),
                          llama_gqa_block_options()) {}

 protected:
  int kv_head(int h) const override { return h % options().key_heads(); }
};

// A rotating cache whose prefill keeps W + 1 keys and whose decode keeps W
// (mlx-lm PR #390, the RotatingKVCache filled by a prompt holding one more
// key than when filled by generation): forward and the attention op (the
// prefill kernel) see W + 1 keys, decode W.
class PrefillWindowPlusOne : public LlamaBlockSubject {
 public:
  PrefillWindowPlusOne()
      : LlamaBlockSubject(block_mutant_info("mistral-block-prefill-window-plus-one", mistral_block_options(),
                                            "mistral-block"),
                          mistral_block_options()) {}

 protected:
  bool prefill_may_attend(Eigen::Index query, Eigen::Index key) const override {
    return key <= query && key > query - *options().attention.window - 1;
  }
};

// The decode kernel's softcap hard-coded to 0 (none) while prefill applies
// the declared cap (vllm-metal #665: the paged SDPA call passes 0.0):
// decode, one token or several, agrees with itself and not with forward.
class DecodeSoftcapZero : public LlamaBlockSubject {
 public:
  DecodeSoftcapZero()
      : LlamaBlockSubject(block_mutant_info("gemma2-block-decode-softcap-zero", gemma2_block_options(), "gemma2-block"),
                          gemma2_block_options()) {}

 protected:
  double cap_logit(double s, Path path) const override {
    return path == Path::decode ? s : LlamaBlockSubject::cap_logit(s, path);
  }
};

// A one-token decode step given torch's is_causal=True over the cache: the
// mask tril(ones(1, m)) is anchored top-left, so the new token sees only the
// first cached key (pytorch #103082: "with kv-cache L = 1 ... the correct
// attn_mask should be [True, True, ..., True]"); a step of several tokens
// takes the bottom-right mask a cache needs, and forward is right.
class SingleTokenTopLeft : public LlamaBlockSubject {
 public:
  SingleTokenTopLeft() : LlamaBlockSubject(llama_mutant_info("llama-block-single-token-top-left"), {}) {}

 protected:
  bool step_may_attend(Eigen::Index row, Eigen::Index rows, Eigen::Index key, Eigen::Index query_token,
                       Eigen::Index key_token) const override {
    if (rows == 1) return key <= row;  // tril(ones(1, m)): key 0 only
    return may_attend(query_token, key_token);
  }
};

// Packed documents split where a position is smaller than the one before it
// (ms-swift PR #9904's revert_padding_free): `segments` ignored, a one-token
// document followed by another (positions 0, 0) merged with it.
class PackedBoundaryByPositionDrop : public LlamaBlockSubject {
 public:
  PackedBoundaryByPositionDrop() : LlamaBlockSubject(llama_mutant_info("llama-packed-boundary-by-position-drop"), {}) {}

  Batch forward_packed(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding,
                       const std::vector<Positions>& segments) override {
    std::vector<Positions> found = segments;
    for (std::size_t b = 0; b < positions.size() && b < found.size(); ++b) {
      Position document = 0;
      for (std::size_t r = 0; r < positions[b].size(); ++r) {
        if (r > 0 && positions[b][r] < positions[b][r - 1]) ++document;
        found[b][r] = document;
      }
    }
    return LlamaBlockSubject::forward_packed(x, positions, padding, found);
  }
};

// Dynamic NTK whose decode length is the allocated cache length, not the
// sequence's (llama.cpp #24823: LongRoPE's long/short factors chosen by
// n_ctx_seq): a short sequence in a large context gets the long-context base.
class NtkByCapacity : public LlamaBlockSubject {
 public:
  NtkByCapacity()
      : LlamaBlockSubject(llama_mutant_info("llama-ntk-by-capacity", dynamic_ntk_block_options()),
                          dynamic_ntk_block_options()) {}

 protected:
  Position decode_length(const Session& session) const override {
    return session.capacity ? *session.capacity : LlamaBlockSubject::decode_length(session);
  }
};

// A rolling buffer of W slots whose multi-token write clamps its write index
// at the last slot instead of wrapping (issue 36): when k tokens written at
// once cross the end of the buffer, the ones past it overwrite the last slot
// in turn, so the cache keeps the oldest W − 1 keys and the newest one. The
// k rows of that call are right (they attend before the write is trimmed);
// every decode after it sees stale keys where the wrapped ones belong. One
// token at a time wraps correctly.
class WrapWriteClamped : public LlamaBlockSubject {
 public:
  WrapWriteClamped()
      : LlamaBlockSubject(block_mutant_info("mistral-block-wrap-write-clamped", mistral_block_options(),
                                            "mistral-block"),
                          mistral_block_options()) {}

  Matrix decode_tokens(const std::string& session, const Matrix& x, const Positions& positions) override {
    writing_ = x.rows();
    Matrix out;
    try {
      out = LlamaBlockSubject::decode_tokens(session, x, positions);
    } catch (...) {
      writing_ = 1;
      throw;
    }
    writing_ = 1;
    return out;
  }

 protected:
  void trim(Session& session) const override {
    const auto slots = static_cast<std::size_t>(*options().attention.window);
    if (writing_ < 2 || session.keys.size() <= slots) return LlamaBlockSubject::trim(session);
    // Slots 0 … W − 2 keep the oldest keys; slot W − 1 holds the last token written.
    auto keep = [slots](auto& v) { v.erase(v.begin() + static_cast<std::ptrdiff_t>(slots) - 1, v.end() - 1); };
    keep(session.keys);
    keep(session.keys_at_append);
    keep(session.values);
    keep(session.positions);
  }

 private:
  Eigen::Index writing_ = 1;  // tokens of the call being appended
};

template <class Bug>
SubjectEntry entry(std::string name, std::string description) {
  return {std::move(name), std::move(description), [] { return std::make_unique<Bug>(); }};
}

}  // namespace planted::module_mutants

std::vector<SubjectEntry> module_mutants() {
  using namespace planted::module_mutants;
  return {
      entry<RotaryCacheByLength>("llama-rotary-cache-by-length",
                                 "Llama block whose rotary cache is keyed by length only, the offset ignored "
                                 "(rotary-embedding-torch #11): decode rotates every token like the first"),
      entry<KvCacheCurrentPosition>("llama-kv-cache-current-position",
                                    "Llama block whose decode rotates every cached key at the current position"),
      entry<CausalMaskLeak>("llama-causal-mask-leak", "Llama block whose causal mask lets each query see the next token"),
      entry<ResetKeepsCache>("llama-reset-keeps-cache",
                             "Llama block whose reset zeroes the cache but keeps its length (transformers #48509)"),
      entry<NtkCacheNeverShrinks>("llama-ntk-cache-never-shrinks",
                                  "dynamic-NTK Llama block whose grown base is never scaled back (transformers #25306)"),
      entry<NtkStaticBase>("llama-ntk-static-base",
                           "dynamic-NTK Llama block whose base does not depend on the length (vllm #41236)"),
      entry<NtkKvCacheStaleBase>("llama-ntk-kv-cache-stale-base",
                                 "dynamic-NTK Llama block whose cached keys keep the base of their step (transformers "
                                 "#25104)"),
      entry<PositionIdsFromRowStart>("learned-encoder-position-ids-from-row-start",
                                     "learned-position encoder counting position ids from the row start, pads included "
                                     "(verl #4159)"),
      entry<BatchStatistics>("encoder-layer-batch-statistics",
                             "encoder layer whose LayerNorm statistics for token r span token r of every sequence"),
      entry<NtkBatchMaxLength>("llama-ntk-batch-max-length",
                               "dynamic-NTK Llama block whose base follows the longest sequence of the batch "
                               "(Qwen #401)"),
      entry<EncoderPositionsLeftOn>("encoder-layer-positions-left-on",
                                    "encoder layer declared position-free whose learned position table is still added"),
      entry<LearnedPositionsAllZero>("learned-encoder-positions-all-zero",
                                     "learned-position encoder whose tokens all look up position 0 (ids left at zero)"),
      entry<LearnedAssumesLeftPadding>("learned-encoder-assumes-left-padding",
                                       "learned-position encoder with position ids r − pads: right pads move the tokens"),
      entry<LearnedPositionsFromFirstRow>("learned-encoder-positions-from-first-row",
                                          "learned-position encoder using the first sequence's positions for the batch"),
      entry<RopeTableClamped>("llama-rope-table-clamped",
                              "Llama block whose 64-row rotary table clamps later positions to the last row (jnp.take)"),
      entry<GqaTile>("llama-gqa-block-tile",
                     "GQA Llama block whose kv heads are tiled, not repeated in place, in forward, decode and its "
                     "attention op (onnx PR #7274)"),
      entry<PrefillWindowPlusOne>("mistral-block-prefill-window-plus-one",
                                  "Mistral block whose prefill keeps W + 1 keys and decode W (mlx-lm PR #390)"),
      entry<DecodeSoftcapZero>("gemma2-block-decode-softcap-zero",
                               "Gemma 2 block whose decode kernel drops the softcap (vllm-metal #665)"),
      entry<SingleTokenTopLeft>("llama-block-single-token-top-left",
                                "Llama block whose one-token decode step is masked top-left over the cache: it sees "
                                "only the first cached key (pytorch #103082)"),
      entry<PackedBoundaryByPositionDrop>("llama-packed-boundary-by-position-drop",
                                          "Llama block that finds packed documents where positions drop, merging a "
                                          "one-token document with the next (ms-swift PR #9904)"),
      entry<NtkByCapacity>("llama-ntk-by-capacity",
                           "dynamic-NTK Llama block whose decode base follows the allocated cache length "
                           "(llama.cpp #24823)"),
      entry<WrapWriteClamped>("mistral-block-wrap-write-clamped",
                              "Mistral block whose rolling buffer clamps a multi-token write at its last slot "
                              "instead of wrapping: the decodes after a write across the wrap see stale keys"),
  };
}

}  // namespace pecheck
