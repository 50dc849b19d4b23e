#include "pecheck/subjects/builtin/attention.h"

#include <fmt/format.h>

#include "pecheck/core/subject_spec.h"
#include "pecheck/reference/attention.h"
#include "pecheck/reference/vjp.h"

namespace pecheck {

SubjectInfo attention_info(std::string name, SubjectSpec spec, Dtype dtype) {
  SubjectInfo info;
  info.name = std::move(name);
  info.spec = std::move(spec);
  info.ops = static_cast<unsigned>(Op::attention) | static_cast<unsigned>(Op::logits);
  info.dtype = dtype;
  info.multi_head = true;
  info.scheme = "attention";
  return info;
}

Matrix AttentionSubject::attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask,
                                   int heads) {
  if (!info_.attention.any() && k.cols() == q.cols()) return reference::attention(q, k, v, mask, heads, info_.dtype);
  return reference::attention(q, k, v, mask, heads, info_.dtype, info_.attention);
}

Matrix AttentionSubject::logits(const Matrix& q, const Matrix& k, const AttentionMask& mask) {
  return reference::attention_logits(q, k, mask, info_.dtype);
}

Batch AttentionSubject::attention_backward(const AttentionCall& c, const Matrix& grad) {
  if ((info_.backward_of & static_cast<unsigned>(Op::attention)) == 0) {
    throw Refusal(fmt::format("{} does not answer the backward of attention", info_.name));
  }
  const Dtype dtype = info_.dtype;
  const reference::AttentionVjp vjp =
      reference::attention_vjp(reference::round_entries(c.q, dtype), reference::round_entries(c.k, dtype),
                               reference::round_entries(c.v, dtype), c.mask, c.heads, info_.attention,
                               reference::round_entries(grad, dtype));
  return {reference::round_entries(vjp.dq, dtype), reference::round_entries(vjp.dk, dtype),
          reference::round_entries(vjp.dv, dtype)};
}

SubjectInfo with_backward(SubjectInfo info) {
  info.ops |= static_cast<unsigned>(Op::backward);
  info.backward_of |= info.ops & (static_cast<unsigned>(Op::rotate) | static_cast<unsigned>(Op::attention));
  return info;
}

SubjectInfo llama4_attention_info(std::string name, SubjectSpec spec) {
  SubjectInfo info = attention_info(std::move(name), std::move(spec), Dtype::float64);
  info.ops = static_cast<unsigned>(Op::attention);
  info.attention.heads = 4;
  info.attention.kv_heads = 2;
  info.attention.chunk = 3;
  info.attention.alignment = Alignment::top_left;
  info.attention.fully_masked = FullyMasked::refuse;
  info.scheme = "attention-llama4";
  info.declared = {"params.attention.alignment", "params.attention.chunk", "params.attention.fully_masked",
                   "params.attention.heads", "params.attention.kv_heads"};
  return info;
}

SubjectInfo paged_attention_info(std::string name, SubjectSpec spec, Dtype dtype) {
  SubjectInfo info = attention_info(std::move(name), std::move(spec), dtype);
  info.ops = static_cast<unsigned>(Op::attention);
  info.attention.alignment = Alignment::bottom_right;
  info.attention.window = 4;
  info.attention.poison_invariance = true;
  info.scheme = "attention-paged";
  info.declared = {"params.attention.alignment", "params.attention.window", "params.attention.poison_invariance"};
  return info;
}

SubjectInfo dual_chunk_attention_info(std::string name, SubjectSpec spec, Dtype dtype) {
  SubjectInfo info = attention_info(std::move(name), std::move(spec), dtype);
  info.ops = static_cast<unsigned>(Op::attention);
  info.attention.heads = 2;
  info.attention.kv_heads = 1;
  DualChunk dc;
  dc.chunk_size = 6;
  dc.local_size = 2;
  dc.rotate.base = 10000;
  dc.rotate.layout = Layout::halves;
  info.attention.dual_chunk = dc;
  info.scheme = "attention-dca";
  info.declared = {"params.attention.heads", "params.attention.kv_heads", "params.attention.dual_chunk.chunk_size",
                   "params.attention.dual_chunk.local_size", "params.attention.dual_chunk.rotate.base",
                   "params.attention.dual_chunk.rotate.layout"};
  return info;
}

std::vector<SubjectEntry> attention_builtins() {
  std::vector<SubjectEntry> table = {
      {"attention", "scaled dot-product attention softmax(QKᵀ/√d_k + mask)V, multi-head, float64 (the reference)",
       [] { return std::make_unique<AttentionSubject>(with_backward(attention_info("attention", builtin_spec("attention"), Dtype::float64))); }},
      {"attention-llama4",
       "Llama 4-style chunked attention: GQA (4 query heads over 2 key/value heads), causal within chunks of 3 keys, "
       "aligned top-left, a fully masked row refused (the reference of these conventions)",
       [] { return std::make_unique<AttentionSubject>(with_backward(llama4_attention_info("attention-llama4", builtin_spec("attention-llama4")))); }},
  };
  table.push_back({"attention-paged",
                   "a paged KV cache's attention: causal bottom-right, a sliding window of 4, unreachable cache "
                   "slots that may hold NaN or ±1e30 (poison_invariance; the reference reads none of them)",
                   [] { return std::make_unique<AttentionSubject>(paged_attention_info("attention-paged", builtin_spec("attention-paged"), Dtype::float64)); }});
  // Appended after the others: the claims matrix's columns stay as they were.
  table.push_back({"attention-dca",
                   "Qwen2.5-1M-style dual chunk attention, scaled down: chunk_size 6, local_size 2 (chunks of 4), "
                   "rotary base 10⁴ in halves applied inside at the chunk-remapped positions, 2 query heads over 1 "
                   "key/value head, causal (the reference of these conventions)",
                   [] { return std::make_unique<AttentionSubject>(dual_chunk_attention_info("attention-dca", builtin_spec("attention-dca"), Dtype::float64)); },
                   false});
  table.push_back({"attention-dca@float32", "attention-dca emulating float32 (every operation rounded)",
                   [] { return std::make_unique<AttentionSubject>(dual_chunk_attention_info("attention-dca@float32", builtin_spec("attention-dca@float32"), Dtype::float32)); },
                   false});
  // Variants computing in a narrower dtype (every operation rounded), to show
  // that the tolerances are fair to a correct implementation at each precision.
  for (Dtype dtype : {Dtype::float32, Dtype::float16, Dtype::bfloat16}) {
    const std::string paged = fmt::format("attention-paged@{}", pecheck::name(dtype));
    table.push_back({paged,
                     fmt::format("attention-paged emulating {} (every operation rounded)", pecheck::name(dtype)),
                     [paged, dtype] { return std::make_unique<AttentionSubject>(paged_attention_info(paged, builtin_spec(paged), dtype)); },
                     false});
  }
  for (Dtype dtype : {Dtype::float32, Dtype::float16, Dtype::bfloat16}) {
    const std::string name = fmt::format("attention@{}", pecheck::name(dtype));
    table.push_back({name,
                     fmt::format("scaled dot-product attention emulating {} (every operation rounded)",
                                 pecheck::name(dtype)),
                     [name, dtype] { return std::make_unique<AttentionSubject>(with_backward(attention_info(name, builtin_spec(name), dtype))); },
                     false});
  }
  return table;
}

}  // namespace pecheck
