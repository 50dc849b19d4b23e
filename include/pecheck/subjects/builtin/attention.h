#pragma once
// Built-in attention subjects (CLAIMS.md §1): scaled dot-product attention in
// float64 (the reference) and variants that emulate narrower dtypes.
#include <vector>

#include "pecheck/subjects/builtin/builtins.h"
#include "pecheck/subjects/typed_subject.h"

namespace pecheck {

// softmax(q kᵀ/√d_k + mask) v computed by reference/attention.h in `dtype`;
// ops attention and logits, any number of heads dividing d_k and d_v.
class AttentionSubject : public TypedSubject {
 public:
  explicit AttentionSubject(SubjectInfo info) : info_(std::move(info)) {}
  const SubjectInfo& info() const override { return info_; }
  Matrix attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask,
                   int heads) override;
  Matrix logits(const Matrix& q, const Matrix& k, const AttentionMask& mask) override;
  // The VJPs of its attention (CLAIMS.md §11), for a subject declaring
  // params.backward.of = ["attention"]: the float64 reference's
  // (reference/vjp.h) from inputs rounded to the dtype, each result rounded
  // to it — a correct backward whose only error is its inputs' and outputs'
  // rounding (the forward emulates every operation; a backward's error
  // model bounds both).
  Batch attention_backward(const AttentionCall& call, const Matrix& grad) override;

 private:
  SubjectInfo info_;
};

// The info of an attention subject named `name` computing in `dtype`:
// ops attention | logits, multi-head, judged by the "attention" scheme.
SubjectInfo attention_info(std::string name, SubjectSpec spec, Dtype dtype);

// Llama 4-style chunked attention (SUBJECT-PROTOCOL.md "Attention
// conventions"): 4 query heads over 2 key/value heads, causal within chunks of
// 3 keys, aligned top-left, a fully masked row refused; the reference computes it.
SubjectInfo llama4_attention_info(std::string name, SubjectSpec spec);

// A paged KV cache's attention (vLLM's decode over cache blocks): causal
// aligned bottom-right, a sliding window of 4 keys, and
// params.attention.poison_invariance — unreachable keys and values may hold
// NaN or ±1e30 (attention.poison_invariance); the reference computes it,
// reading no unreachable key. Op attention alone, in `dtype`.
SubjectInfo paged_attention_info(std::string name, SubjectSpec spec, Dtype dtype);

// Qwen2.5-1M-style dual chunk attention (params.attention.dual_chunk,
// reference/dual_chunk.h), scaled down so that a case of a few tokens spans
// several chunks: chunk_size 6, local_size 2 (chunks of 4), rotary base 10⁴
// in halves (Qwen2's is_neox_style), 2 query heads over 1 key/value head,
// causal requests only. Op attention alone, in `dtype`; the reference
// computes it.
SubjectInfo dual_chunk_attention_info(std::string name, SubjectSpec spec, Dtype dtype);

// The info with the op backward and params.backward.of = [ops it already
// has among rotate and attention].
SubjectInfo with_backward(SubjectInfo info);

std::vector<SubjectEntry> attention_builtins();

}  // namespace pecheck
