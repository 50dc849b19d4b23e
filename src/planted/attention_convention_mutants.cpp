// Planted bugs behind the attention conventions of 2024–2026 models
// (CLAIMS.md §8): each declares the attention of a built-in — the attention
// op of mistral-block, gemma2-block, gpt-oss-block or attention-llama4 — and
// gets one convention wrong the way published code has.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "pecheck/planted/mutants.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/reference/attention.h"
#include "pecheck/subjects/builtin/attention.h"
#include "pecheck/subjects/builtin/modules_llama.h"
#include "pecheck/subjects/typed_subject.h"

namespace pecheck {

namespace planted::attention_convention_mutants {  // the file's own names (the planted bugs compile in unity batches)

enum class Flaw {
  window_plus_one,       // W + 1 keys: flash-attention's window_size=(W, 0) given HF's sliding_window (transformers #29623)
  window_minus_one,      // W − 1 keys: key i − W + 1 masked by '<' for '≤'
  chunk_as_window,       // a sliding window of C keys where the attention is chunked
  chunk_skips_first,     // a chunk's first key masked ('>' for '≥' at the chunk's start)
  softcap_dropped,       // no cap (sglang #33915, vllm-metal #665)
  softcap_no_division,   // c·tanh(s) for c·tanh(s/c)
  sinks_ignored,         // the sink logits never join the softmax
  sink_unshifted,        // e^σ added to Σ e^{s_j − max}: the sink not shifted by the row maximum
  causal_top_left,       // a causal mask aligned top-left where bottom_right is declared (a KV cache's decode)
  causal_bottom_right,   // aligned bottom-right where top_left is declared (MLX's mask="causal": mlx #2835)
  fully_masked_nan,      // a row of −∞ logits: 0/0 (pytorch #110213)
  fully_masked_uniform,  // a finite mask value (finfo.min): a fully masked row is the values' mean
  value_cache_one_head,  // values of kv heads past the first read as zeros (a value cache for one kv head)
  scale_inverse_sqrt_d,  // 1/√d_h where another scale is declared (Gemma 2's query_pre_attn_scalar^−½ ignored)
  softcap_after_mask,    // c·tanh applied to the masked logits: a hidden key's logit −c, not −∞
  sink_carries_value,    // the sink a key of the softmax whose weight multiplies v_0 (a sink column, values not padded)
  softcap_scaled_tanh,   // (s/c)·tanh(s/c) for c·tanh(s/c): a mistyped cap formula
};

class ConventionFlaw : public TypedSubject {
 public:
  ConventionFlaw(SubjectInfo info, Flaw flaw) : info_(std::move(info)), flaw_(flaw) {}
  const SubjectInfo& info() const override { return info_; }

  Matrix attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask, int heads) override {
    const AttentionConvention& c = info_.attention;
    reference::check_grouped_inputs(q, k, v, mask, heads, c);
    const int groups = reference::kv_heads_of(q, k, v, heads);
    const Eigen::Index n = q.rows(), m = k.rows(), dh = q.cols() / heads, dv = v.cols() / groups;
    Matrix y = Matrix::Zero(n, heads * dv);
    for (int h = 0; h < heads; ++h) {
      const int g = AttentionConvention::kv_head_of(h, heads, groups, c.grouping);
      const double scale = flaw_ == Flaw::scale_inverse_sqrt_d ? 1 / std::sqrt(static_cast<double>(dh)) : c.scale_for(dh);
      std::optional<double> sink;
      if (c.sinks && flaw_ != Flaw::sinks_ignored) sink = c.sink_logits[static_cast<size_t>(h)];
      for (Eigen::Index i = 0; i < n; ++i) {
        std::vector<double> s(static_cast<size_t>(m), -std::numeric_limits<double>::infinity());
        double top = -std::numeric_limits<double>::infinity();
        bool any = false;
        for (Eigen::Index j = 0; j < m; ++j) {
          if (!sees(mask, i, j, n, m)) {
            // The mask added first, the cap after it: tanh(−∞) = −1, the hidden key's logit is −c
            // (never above a capped visible logit, so the row maximum stands).
            if (flaw_ == Flaw::softcap_after_mask && c.softcap) s[static_cast<size_t>(j)] = -*c.softcap;
            continue;
          }
          any = true;
          double logit = q.row(i).segment(h * dh, dh).dot(k.row(j).segment(g * dh, dh)) * scale;
          if (c.softcap && flaw_ != Flaw::softcap_dropped) {
            logit = flaw_ == Flaw::softcap_no_division   ? *c.softcap * std::tanh(logit)
                    : flaw_ == Flaw::softcap_scaled_tanh ? (logit / *c.softcap) * std::tanh(logit / *c.softcap)
                                                         : *c.softcap * std::tanh(logit / *c.softcap);
          }
          s[static_cast<size_t>(j)] = logit;
          top = std::max(top, logit);
        }
        if (!any && !sink) {
          if (flaw_ == Flaw::fully_masked_nan) {
            y.row(i).segment(h * dv, dv).setConstant(std::numeric_limits<double>::quiet_NaN());
          } else if (flaw_ == Flaw::fully_masked_uniform) {
            y.row(i).segment(h * dv, dv) = values(v, g, dv).colwise().mean();
          } else if (c.masked_policy() == FullyMasked::refuse) {
            throw Refusal(fmt::format("query {} may attend to no key", i));
          }
          continue;
        }
        const double shift = sink ? std::max(top, flaw_ == Flaw::sink_unshifted ? top : *sink) : top;
        double sum = sink ? std::exp(*sink - (flaw_ == Flaw::sink_unshifted ? 0.0 : shift)) : 0.0;
        std::vector<double> w(static_cast<size_t>(m), 0.0);
        for (Eigen::Index j = 0; j < m; ++j) {
          if (!std::isfinite(s[static_cast<size_t>(j)])) continue;
          w[static_cast<size_t>(j)] = std::exp(s[static_cast<size_t>(j)] - shift);
          sum += w[static_cast<size_t>(j)];
        }
        const Matrix vals = values(v, g, dv);
        for (Eigen::Index j = 0; j < m; ++j) y.row(i).segment(h * dv, dv) += (w[static_cast<size_t>(j)] / sum) * vals.row(j);
        if (flaw_ == Flaw::sink_carries_value && sink) {
          y.row(i).segment(h * dv, dv) += (std::exp(*sink - shift) / sum) * vals.row(0);
        }
      }
    }
    return y;
  }

 private:
  // kv head g's values as this subject reads them.
  Matrix values(const Matrix& v, int g, Eigen::Index dv) const {
    if (flaw_ == Flaw::value_cache_one_head && g > 0) return Matrix::Zero(v.rows(), dv);
    return v.middleCols(g * dv, dv);
  }

  bool sees(const AttentionMask& mask, Eigen::Index i, Eigen::Index j, Eigen::Index n, Eigen::Index m) const {
    if (mask.kind != AttentionMask::Kind::causal) return reference::may_attend(mask, i, j);
    const AttentionConvention& c = info_.attention;
    AttentionConvention as = c;
    switch (flaw_) {
      case Flaw::window_plus_one: as.window = *c.window + 1; break;
      case Flaw::window_minus_one: as.window = *c.window - 1; break;
      case Flaw::chunk_as_window:
        as.window = *c.chunk;
        as.chunk.reset();
        break;
      case Flaw::chunk_skips_first: {
        const Position at = static_cast<Position>(i) + c.offset(n, m);
        if (j == (at / *c.chunk) * *c.chunk && j < at) return false;
        break;
      }
      case Flaw::causal_top_left: as.alignment = Alignment::top_left; break;
      case Flaw::causal_bottom_right: as.alignment = Alignment::bottom_right; break;
      default: break;
    }
    return as.causal_sees(i, j, n, m);
  }

  SubjectInfo info_;
  Flaw flaw_;
};

// The attention op of a built-in, as a planted bug declares it: the block's
// (or attention-llama4's) params.attention, op attention alone, its scheme.
SubjectInfo twin_info(const std::string& name, const SubjectInfo& twin) {
  SubjectInfo info;
  info.name = name;
  info.spec = mutant_spec(name);
  info.ops = static_cast<unsigned>(Op::attention);
  info.dtype = Dtype::float64;
  info.attention = twin.attention;
  info.multi_head = true;
  info.scheme = twin.scheme;
  for (const auto& field : twin.declared) {
    if (field.starts_with("params.attention.")) info.declared.push_back(field);
  }
  return info;
}

SubjectInfo block_twin(const std::string& name, const std::string& block, const LlamaBlockOptions& options) {
  return twin_info(name, llama_block_info(block, builtin_spec(block), options, block));
}

struct Row {
  const char* name;
  const char* description;
  const char* twin;  // mistral-block, gemma2-block, gpt-oss-block, attention-llama4
  Flaw flaw;
};

SubjectInfo info_of(const Row& row) {
  const std::string twin = row.twin;
  if (twin == "mistral-block") return block_twin(row.name, twin, mistral_block_options());
  if (twin == "gemma2-block") return block_twin(row.name, twin, gemma2_block_options());
  if (twin == "gpt-oss-block") return block_twin(row.name, twin, gpt_oss_block_options());
  if (twin == "llama-gqa-block") return block_twin(row.name, twin, llama_gqa_block_options());
  SubjectInfo info = twin_info(row.name, llama4_attention_info("attention-llama4", builtin_spec("attention-llama4")));
  if (row.flaw == Flaw::causal_bottom_right) {
    // Torch-style attention without chunks: a bottom-right mask then sees more, never less.
    info.attention.chunk.reset();
    std::erase(info.declared, "params.attention.chunk");
  }
  return info;
}

}  // namespace planted::attention_convention_mutants

std::vector<SubjectEntry> attention_convention_mutants() {
  using namespace planted::attention_convention_mutants;
  static const Row rows[] = {
      {"attention-window-plus-one",
       "a sliding window of W + 1 keys where W is declared (flash-attention's window_size=(W, 0) given HF's "
       "sliding_window: transformers #29623, vLLM #3385)",
       "mistral-block", Flaw::window_plus_one},
      {"attention-window-minus-one", "a sliding window of W − 1 keys where W is declared ('<' for '≤' at its edge)",
       "mistral-block", Flaw::window_minus_one},
      {"attention-chunk-as-window", "a sliding window of C keys where chunked attention (chunk C) is declared",
       "attention-llama4", Flaw::chunk_as_window},
      {"attention-chunk-skips-first", "each chunk's first key masked for the later queries of the chunk",
       "attention-llama4", Flaw::chunk_skips_first},
      {"attention-softcap-dropped",
       "the declared attention softcap never applied (sglang #33915, vllm-metal #665)", "gemma2-block",
       Flaw::softcap_dropped},
      {"attention-softcap-no-division", "the softcap applied as c·tanh(s) instead of c·tanh(s/c)", "gemma2-block",
       Flaw::softcap_no_division},
      {"attention-sinks-ignored", "the declared sink logits never join the softmax", "gpt-oss-block",
       Flaw::sinks_ignored},
      {"attention-sink-unshifted",
       "the sink added as e^σ to Σ e^{s_j − max}: the keys' exponentials shifted by the row maximum, the sink's not",
       "gpt-oss-block", Flaw::sink_unshifted},
      {"attention-causal-top-left",
       "a causal mask aligned top-left (query i at key i) where bottom_right is declared: a decode step sees only "
       "the first cached key",
       "mistral-block", Flaw::causal_top_left},
      {"attention-causal-bottom-right",
       "a causal mask aligned bottom-right (MLX's mask=\"causal\": mlx #2835, executorch #22426) where top_left is "
       "declared (attention-llama4's heads, no chunks)",
       "attention-llama4", Flaw::causal_bottom_right},
      {"attention-fully-masked-nan",
       "a fully masked row computed as the softmax of −∞ logits: NaN (pytorch #110213) where zeros is declared",
       "mistral-block", Flaw::fully_masked_nan},
      {"attention-fully-masked-uniform",
       "masked logits set to a finite minimum (finfo.min): a fully masked row is the values' mean where zeros is "
       "declared",
       "mistral-block", Flaw::fully_masked_uniform},
      {"attention-gqa-value-cache-one-head",
       "grouped-query attention whose values of kv heads past the first are read as zeros (a value cache allocated "
       "for one kv head)",
       "llama-gqa-block", Flaw::value_cache_one_head},
      {"gemma2-attention-scale-inverse-sqrt-d",
       "Gemma 2's attention scaled by 1/√d_h where query_pre_attn_scalar^−½ (1/16) is declared (the config's "
       "query_pre_attn_scalar read as head_dim)",
       "gemma2-block", Flaw::scale_inverse_sqrt_d},
      {"gemma2-attention-softcap-after-mask",
       "Gemma 2's soft cap applied after the mask is added: a hidden key's logit is c·tanh(−∞) = −c, so when every "
       "visible logit saturates at −c the masked keys share the row's weight",
       "gemma2-block", Flaw::softcap_after_mask},
      {"attention-sink-carries-key0-value",
       "the sink joins the softmax as a column prepended to the logits while the values are not padded with a zero "
       "row: the sink's weight multiplies key 0's value (a sink carries no value)",
       "gpt-oss-block", Flaw::sink_carries_value},
      {"attention-softcap-scaled-tanh",
       "the soft cap written (s/c)·tanh(s/c) for c·tanh(s/c): a mistyped cap formula in a score_mod",
       "gemma2-block", Flaw::softcap_scaled_tanh},
  };
  std::vector<SubjectEntry> out;
  for (const Row& row : rows) {
    out.push_back({row.name, row.description, [row] { return std::make_unique<ConventionFlaw>(info_of(row), row.flaw); }});
  }
  return out;
}

}  // namespace pecheck
