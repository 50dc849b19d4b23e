// Planted bugs of the 2024–2026 positional schemes (CLAIMS.md §9): each
// declares exactly what its published twin (subjects/builtin/published.cpp:
// rope@longrope, rope@deepseek-yarn, rope@mrope, rope@qwen3-vl,
// rope@llama3-freq-factors) declares, is judged by the twin's scheme, and gets
// one thing wrong the way published code has.
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "pecheck/planted/mutants.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/reference/rotary.h"
#include "pecheck/subjects/builtin/published.h"
#include "pecheck/subjects/builtin/rope.h"

namespace pecheck {

namespace planted::rope_scheme_mutants {  // the file's own names (the planted bugs compile in unity batches)

SubjectInfo twin_info(const std::string& twin, const std::string& name) {
  for (const auto& entry : published_builtins()) {
    if (entry.name != twin) continue;
    SubjectInfo info = entry.make()->info();
    info.name = name;
    info.spec = mutant_spec(name);
    return info;
  }
  throw std::logic_error("no published built-in " + twin);
}

// vLLM's Phi3LongRoPEScaledRotaryEmbedding before PR #27431 (issue #27414):
// the factor set of a request is chosen by its own positions (long when some
// position is past L), so the keys of a prompt below L are cached with short
// factors and the queries that decode past L turn with long ones.
class LongropeByPositions : public RopeSubject {
 public:
  LongropeByPositions() : RopeSubject(twin_info("rope@longrope", "rope-longrope-by-positions")) {}

 protected:
  Position request_length(const std::vector<Positions>& positions, std::optional<Position>) const override {
    RotateConvention vllm = info().rotate;
    vllm.scaling.factor_switch = FactorSwitch::position;
    return reference::rotary_length(positions, std::nullopt, vllm);
  }
};

// llama.cpp's get_rope_factors keyed on the allocated context n_ctx_seq
// (issue #24823): loaded with a context past L (here the model's 131072),
// every sequence, however short, turns with the long factors.
class LongropeContextFactors : public RopeSubject {
 public:
  LongropeContextFactors() : RopeSubject(twin_info("rope@longrope", "rope-longrope-context-factors")) {}

 protected:
  Position request_length(const std::vector<Positions>&, std::optional<Position>) const override {
    return info().rotate.max_position_embeddings.value_or(0);
  }
};

// A port that reads rope_scaling.short_factor only (the 4k model's list):
// short factors where the long ones belong.
class LongropeShortOnly : public RopeSubject {
 public:
  LongropeShortOnly() : RopeSubject(twin_info("rope@longrope", "rope-longrope-short-factors-only")) {}

 protected:
  std::vector<double> inverse_frequencies(int rotary_width, Position) const override {
    return reference::rotary_inv_freq(rotary_width, info().rotate, 0);
  }
};

// LongRoPE's attention factor √(1 + ln f / ln L) left off the cos/sin tables.
class LongropeNoAttentionFactor : public RopeSubject {
 public:
  LongropeNoAttentionFactor() : RopeSubject(twin_info("rope@longrope", "rope-longrope-no-attention-factor")) {}

 protected:
  double table_magnitude() const override { return 1.0; }
};

// vLLM's generic YaRNScalingRotaryEmbedding before PR #48623 (issue #48621):
// mscale and mscale_all_dim ignored, the tables carry 0.1·ln F + 1 (1.369 for
// F = 40) where DeepSeek's ratio g(F, 1)/g(F, 1) is 1.
class DeepseekMscaleIgnored : public RopeSubject {
 public:
  DeepseekMscaleIgnored() : RopeSubject(twin_info("rope@deepseek-yarn", "rope-deepseek-yarn-mscale-ignored")) {}

 protected:
  double table_magnitude() const override { return 0.1 * std::log(info().rotate.scaling.factor) + 1.0; }
};

// apply_rotary_pos_emb_interleave's regrouping left out: pairs (2i, 2i+1)
// rotated in place, the output in the input's order where the declared layout
// puts pair i at (i, i + r/2).
class DeepseekInterleaveIgnored : public RopeSubject {
 public:
  DeepseekInterleaveIgnored() : RopeSubject(twin_info("rope@deepseek-yarn", "rope-deepseek-interleave-ignored")) {}
  Matrix rotate_axes(const std::vector<Positions>& positions, const Matrix& x,
                     std::optional<Position> seq_len) override {
    const Matrix out = RopeSubject::rotate_axes(positions, x, seq_len);
    const int r = rotated_width(static_cast<int>(x.cols()));
    return reference::rotary_input_order(out, r, Layout::interleave_then_halves);
  }
};

// Plain RoPE on position_ids[0]: every pair turns by the t axis's position
// (a text-only port of a multi-axis model).
class MropeTextPositions : public RopeSubject {
 public:
  MropeTextPositions() : RopeSubject(twin_info("rope@mrope", "rope-mrope-text-positions")) {}

 protected:
  int axis_of(int, int) const override { return 0; }
};

// Each axis's frequencies computed as if its section were a head of its own:
// ω restarts at base^0 at the first pair of every section.
class MropeSectionLocalFrequencies : public RopeSubject {
 public:
  MropeSectionLocalFrequencies() : RopeSubject(twin_info("rope@mrope", "rope-mrope-section-local-frequencies")) {}

 protected:
  std::vector<double> inverse_frequencies(int rotary_width, Position length) const override {
    const auto w = reference::rotary_inv_freq(rotary_width, info().rotate, length);
    std::vector<double> out(w.size());
    int start = 0;
    for (int section : info().rotate.mrope_section) {
      for (int k = 0; k < section; ++k) out[static_cast<size_t>(start + k)] = w[static_cast<size_t>(k)];
      start += section;
    }
    return out;
  }
};

// The h and w sections exchanged: the pairs of h turn by w's position and the
// reverse (a (t, w, h) stacking of the position streams).
class MropeSectionsSwapped : public RopeSubject {
 public:
  MropeSectionsSwapped() : RopeSubject(twin_info("rope@mrope", "rope-mrope-sections-swapped")) {}

 protected:
  int axis_of(int pair, int rotary_width) const override {
    const int axis = RopeSubject::axis_of(pair, rotary_width);
    return axis == 0 ? 0 : 3 - axis;
  }
};

// Qwen2-VL's chunked sections applied to a Qwen3-VL model (mrope_interleaved
// ignored: apply_multimodal_rotary_pos_emb where apply_interleaved_mrope belongs).
class Qwen3VlInterleaveIgnored : public RopeSubject {
 public:
  Qwen3VlInterleaveIgnored() : RopeSubject(twin_info("rope@qwen3-vl", "rope-qwen3-vl-interleave-ignored")) {}

 protected:
  int axis_of(int pair, int rotary_width) const override {
    RotateConvention chunked = info().rotate;
    chunked.mrope_interleaved = false;
    return reference::rotary_axis(pair, rotary_width, chunked);
  }
};

// ggml's rope_freqs multiplied into the frequencies instead of dividing them:
// the long wavelengths made 8 times shorter instead of longer.
class FreqFactorsMultiplied : public RopeSubject {
 public:
  FreqFactorsMultiplied() : RopeSubject(twin_info("rope@llama3-freq-factors", "rope-freq-factors-multiplied")) {}

 protected:
  std::vector<double> inverse_frequencies(int rotary_width, Position length) const override {
    RotateConvention plain = info().rotate;
    plain.freq_factors.clear();
    auto w = reference::rotary_inv_freq(rotary_width, plain, length);
    for (size_t i = 0; i < w.size() && i < info().rotate.freq_factors.size(); ++i) w[i] *= info().rotate.freq_factors[i];
    return w;
  }
};

// Qwen2-VL's generation before transformers PR #43952: the rope_deltas of the
// last prompt with an image (max position + 1 − tokens) kept on the model and
// added to the positions of text that comes later, a new sequence's too.
// Stateful, as the published code is: a fresh copy keeps no delta.
class MropeRopeDeltasKept : public RopeSubject {
 public:
  MropeRopeDeltasKept() : RopeSubject(twin_info("rope@mrope", "rope-mrope-rope-deltas-kept")) {}
  Matrix rotate_axes(const std::vector<Positions>& positions, const Matrix& x,
                     std::optional<Position> seq_len) override {
    bool text = true;
    Position top = 0;
    for (const auto& axis : positions) {
      text = text && axis == positions.front();
      for (Position t : axis) top = std::max(top, t);
    }
    if (!text) {
      delta_ = top + 1 - static_cast<Position>(x.rows());
      return RopeSubject::rotate_axes(positions, x, seq_len);
    }
    std::vector<Positions> moved = positions;
    for (auto& axis : moved) {
      for (Position& t : axis) t += delta_;
    }
    return RopeSubject::rotate_axes(moved, x, seq_len);
  }

 private:
  Position delta_ = 0;
};

template <class Bug>
SubjectEntry entry(std::string name, std::string description) {
  return {std::move(name), std::move(description), [] { return std::make_unique<Bug>(); }};
}

}  // namespace planted::rope_scheme_mutants

std::vector<SubjectEntry> rope_scheme_mutants() {
  using namespace planted::rope_scheme_mutants;
  return {
      entry<LongropeByPositions>("rope-longrope-by-positions",
                                 "Phi-3.5 LongRoPE choosing the factor set by each request's positions: a short-factor "
                                 "cache meets long-factor queries (vLLM #27414)"),
      entry<LongropeContextFactors>("rope-longrope-context-factors",
                                    "Phi-3.5 LongRoPE choosing the factor set by the allocated context: long factors "
                                    "for short sequences (llama.cpp #24823)"),
      entry<LongropeShortOnly>("rope-longrope-short-factors-only",
                               "Phi-3.5 LongRoPE with the short factors where the long ones belong"),
      entry<LongropeNoAttentionFactor>("rope-longrope-no-attention-factor",
                                       "Phi-3.5 LongRoPE without the attention factor √(1 + ln f / ln L)"),
      entry<DeepseekMscaleIgnored>("rope-deepseek-yarn-mscale-ignored",
                                   "DeepSeek-V3 YaRN with mscale/mscale_all_dim ignored: magnitude 0.1·ln 40 + 1 "
                                   "instead of 1 (vLLM #48621)"),
      entry<DeepseekInterleaveIgnored>("rope-deepseek-interleave-ignored",
                                       "DeepSeek-V3 rotary without the interleave-then-halves regrouping"),
      entry<MropeTextPositions>("rope-mrope-text-positions",
                                "Qwen2-VL multi-axis rotary turning every pair by the t position"),
      entry<MropeSectionLocalFrequencies>("rope-mrope-section-local-frequencies",
                                          "Qwen2-VL multi-axis rotary restarting the frequencies in each section"),
      entry<MropeSectionsSwapped>("rope-mrope-sections-swapped",
                                  "Qwen2-VL multi-axis rotary with the h and w sections exchanged"),
      entry<Qwen3VlInterleaveIgnored>("rope-qwen3-vl-interleave-ignored",
                                      "Qwen3-VL multi-axis rotary applying Qwen2-VL's chunked sections "
                                      "(mrope_interleaved ignored)"),
      entry<MropeRopeDeltasKept>("rope-mrope-rope-deltas-kept",
                                 "Qwen2-VL multi-axis rotary keeping the last image prompt's rope_deltas for later text "
                                 "(transformers PR #43952)"),
      entry<FreqFactorsMultiplied>("rope-freq-factors-multiplied",
                                   "llama.cpp-style freq_factors multiplied into ω instead of dividing it"),
  };
}

}  // namespace pecheck
