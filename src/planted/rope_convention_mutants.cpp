// Planted rotary bugs behind a declared convention: each declares exactly
// what its published twin (subjects/builtin/published.cpp) declares, is judged
// by the twin's scheme, and gets one thing wrong the way published code has.
#include <fmt/format.h>

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "pecheck/planted/mutants.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/reference/rotary.h"
#include "pecheck/subjects/builtin/published.h"
#include "pecheck/subjects/builtin/rope.h"

namespace pecheck {

namespace planted::rope_convention_mutants {  // the file's own names (the planted bugs compile in unity batches)

// The info of the published built-in `twin`, renamed as the mutant `name`.
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

// The Hugging Face cache length before a rebuild (max_position_embeddings of
// Llama 1 and 2 configs: 2048).
constexpr Position kLlamaCacheLength = 2048;

// Returns x: the rotation computed and then not applied (q_embed built, q
// returned). Norm, relative dot products and composition all hold.
class Identity : public RopeSubject {
 public:
  Identity() : RopeSubject(twin_info("rope@llama", "rope-identity")) {}
  Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override {
    RopeSubject::rotate(positions, x, seq_len);  // the same refusals as the twin
    return x.unaryExpr([this](double v) { return rounded(v); });
  }
};

// rope_theta 1000 where the hello says 10000 (a config default copied from
// another model): a rotation by a multiple of t, so only the reference sees it.
class Base1000 : public RopeSubject {
 public:
  Base1000() : RopeSubject(twin_info("rope@llama", "rope-base-1000")) {}

 protected:
  std::vector<double> inverse_frequencies(int rotary_width, Position length) const override {
    RotateConvention wrong = info().rotate;
    wrong.base = 1000;
    return reference::rotary_inv_freq(rotary_width, wrong, length);
  }
};

// rotate_half written cat(x2, −x1) instead of cat(−x2, x1) (or the complex
// form with freqs_cis conjugated): R_{−t}, a rotation, and a relative one.
class InverseRotation : public RopeSubject {
 public:
  InverseRotation() : RopeSubject(twin_info("rope@llama", "rope-inverse-rotation")) {}

 protected:
  double rotate_half_sign() const override { return 1.0; }
  double rotate_half_second_sign() const override { return -1.0; }
};

// GPT-NeoX's partial rotary (rotary_pct 0.25: the first 2·⌊d/8⌋ features)
// behind a hello that declares the full width, as a port that forgot
// rotary_pct in its declaration would.
class PartialDeclaredFull : public RopeSubject {
 public:
  PartialDeclaredFull() : RopeSubject(twin_info("rope@llama", "rope-partial-declared-full")) {}

 protected:
  int rotated_width(int dim) const override { return 2 * (dim / 8); }
};

// rotary_dim honoured, but the output written into a zero-filled buffer of
// which only the rotated block is filled: the pass-through features come back 0.
class PassThroughZeroed : public RopeSubject {
 public:
  PassThroughZeroed() : RopeSubject(twin_info("rope@neox", "rope-pass-through-zeroed")) {}
  Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override {
    Matrix out = RopeSubject::rotate(positions, x, seq_len);
    const int r = rotated_width(static_cast<int>(x.cols()));
    out.rightCols(x.cols() - r).setZero();
    return out;
  }
};

// rotary_dim honoured for the first block, but the r-wide cos/sin table tiled
// across the head (cos.repeat(1, d // r)): every further full r-wide block of
// the pass-through features is rotated as the first one is.
class PassThroughRotated : public RopeSubject {
 public:
  PassThroughRotated() : RopeSubject(twin_info("rope@neox", "rope-pass-through-rotated")) {}
  Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override {
    Matrix out = RopeSubject::rotate(positions, x, seq_len);
    const auto r = static_cast<Eigen::Index>(rotated_width(static_cast<int>(x.cols())));
    SubjectInfo block_info = info();
    block_info.rotate.rotary_fraction.reset();  // one r-wide block, rotated whole
    RopeSubject block(block_info);
    for (Eigen::Index start = r; start + r <= x.cols(); start += r) {
      out.middleCols(start, r) = block.rotate(positions, x.middleCols(start, r), seq_len);
    }
    return out;
  }
};

// vLLM's DynamicNTKScalingRotaryEmbedding before the fix (vllm-project/vllm
// issue #41236, PR #41277; earlier #3488, #5093): the cache is built once for
// max_len = L·F, so the base is base·(F·F − (F − 1))^(r/(r−2)) whatever the
// sequence length — static NTK under a dynamic name.
class DynamicNtkConstantBase : public RopeSubject {
 public:
  DynamicNtkConstantBase() : RopeSubject(twin_info("rope@dynamic-ntk", "rope-dynamic-ntk-constant-base")) {}

 protected:
  std::vector<double> inverse_frequencies(int rotary_width, Position) const override {
    const RopeScaling& s = info().rotate.scaling;
    const auto max_len = static_cast<Position>(static_cast<double>(s.original_max_position) * s.factor);
    return reference::rotary_inv_freq(rotary_width, info().rotate, max_len);
  }
};

// transformers v4.31–4.37 LlamaRotaryEmbedding in a bfloat16 model
// (huggingface/transformers issues #25681, #29496): the cos/sin cache built at
// init in float32 is right, but a request longer than max_position_embeddings
// = 2048 rebuilds it from t = arange(seq_len, dtype=inv_freq.dtype) and the
// inv_freq buffer, both cast to bfloat16 with the model: positions and angles
// in bfloat16, so positions 256 and 257 (8 significant bits) rotate alike.
// Stateless here (each request by its own length); the transcription in
// tests/subjects/real/ keeps the rebuilt cache as the real one does.
class LlamaBf16CacheRebuild : public RopeSubject {
 public:
  LlamaBf16CacheRebuild() : RopeSubject(twin_info("rope@llama-bf16", "rope-llama-bf16-cache-rebuild")) {}

 protected:
  double angle(Position t, double inv_freq, Position length) const override {
    if (length <= kLlamaCacheLength) return RopeSubject::angle(t, inv_freq, length);
    auto bf16 = [](double v) { return round_to(Dtype::bfloat16, v); };
    return bf16(bf16(position_used(t)) * bf16(inv_freq));
  }
};

// Declares float32 angles beside bfloat16 values (as the correct Llama does)
// but keeps the angle table θ = t·ω in float16, a half buffer: from t = 2048
// on, neighbouring positions share an angle, and every large angle is off by
// up to |t|·2^-11.
class LlamaBf16AnglesFloat16 : public RopeSubject {
 public:
  LlamaBf16AnglesFloat16() : RopeSubject(twin_info("rope@llama-bf16", "rope-llama-bf16-angles-float16")) {}

 protected:
  double angle(Position t, double inv_freq, Position length) const override {
    return round_to(Dtype::float16, RopeSubject::angle(t, inv_freq, length));
  }
};

// Llama 3 scaling with one piece of _compute_llama3_parameters wrong.
enum class Llama3Flaw {
  bands_swapped,    // the short wavelengths divided by F, the long ones kept
  smooth_reversed,  // the medium band weights s and 1 − s exchanged
  wavelength_without_two_pi,  // wavelength = 1/ω where 2π/ω belongs: every boundary 2π times further out
};

class Llama3Wrong : public RopeSubject {
 public:
  Llama3Wrong(const std::string& name, Llama3Flaw flaw) : RopeSubject(twin_info("rope@llama3", name)), flaw_(flaw) {}

 protected:
  std::vector<double> inverse_frequencies(int rotary_width, Position length) const override {
    RotateConvention unscaled = info().rotate;
    unscaled.scaling = {};
    std::vector<double> w = reference::rotary_inv_freq(rotary_width, unscaled, length);
    const RopeScaling& s = info().rotate.scaling;
    const auto original = static_cast<double>(s.original_max_position);
    for (double& f : w) {
      const double wavelength = (flaw_ == Llama3Flaw::wavelength_without_two_pi ? 1.0 : 2 * std::numbers::pi) / f;
      const double low_band = original / s.low_freq_factor, high_band = original / s.high_freq_factor;
      const double smooth = (original / wavelength - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
      if (flaw_ == Llama3Flaw::bands_swapped) {
        if (wavelength < high_band) {
          f /= s.factor;
        } else if (wavelength <= low_band) {
          f = (1 - smooth) * f / s.factor + smooth * f;
        }
      } else if (flaw_ == Llama3Flaw::wavelength_without_two_pi) {
        if (wavelength > low_band) {
          f /= s.factor;
        } else if (wavelength >= high_band) {
          f = (1 - smooth) * f / s.factor + smooth * f;
        }
      } else {
        if (wavelength > low_band) {
          f /= s.factor;
        } else if (wavelength >= high_band) {
          f = smooth * f / s.factor + (1 - smooth) * f;
        }
      }
    }
    return w;
  }

 private:
  Llama3Flaw flaw_;
};

// YaRN's frequencies without its attention factor on the cos/sin tables
// (m = 0.1·ln F + 1 dropped): still a rotation, by the right angles, of the
// wrong length.
class YarnNoAttentionFactor : public RopeSubject {
 public:
  YarnNoAttentionFactor() : RopeSubject(twin_info("rope@yarn", "rope-yarn-no-attention-factor")) {}

 protected:
  double table_magnitude() const override { return 1.0; }
};

// GPT-OSS's YaRN (truncate: false, the correction range left unrounded)
// computed with the floor/ceil of truncate: true, as a port from DeepSeek's
// YaRN code does: the pairs at the ramp's two ends turn at other frequencies.
// It declares its twin's YaRN with truncate: false, as GPT-OSS's config does.
class YarnRangeRounded : public RopeSubject {
 public:
  YarnRangeRounded() : RopeSubject(untruncated(twin_info("rope@yarn", "rope-yarn-range-rounded"))) {}

 protected:
  std::vector<double> inverse_frequencies(int rotary_width, Position length) const override {
    RotateConvention rounded = info().rotate;
    rounded.scaling.truncate = true;
    return reference::rotary_inv_freq(rotary_width, rounded, length);
  }

 private:
  static SubjectInfo untruncated(SubjectInfo info) {
    info.rotate.scaling.truncate = false;
    return info;
  }
};

// GPT-NeoX's partial rotary (rotary_pct 0.25) applied to the whole head, as
// code that never reads partial_rotary_factor does: every feature rotates,
// by the schedule of the full width.
class PartialAppliedWhole : public RopeSubject {
 public:
  PartialAppliedWhole() : RopeSubject(twin_info("rope@neox", "rope-partial-applied-whole")) {}

 protected:
  int rotated_width(int dim) const override { return dim - dim % 2; }
};

// Positions ignored: the cos/sin tables built from arange(n), row r rotated
// as position r whatever it is given (a module that drops the position_ids
// it is passed). Structure holds; the first row of every request is at 0.
class PositionsIgnored : public RopeSubject {
 public:
  PositionsIgnored() : RopeSubject(twin_info("rope@llama", "rope-positions-ignored")) {}
  Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override {
    Positions arange(positions.size());
    for (size_t r = 0; r < arange.size(); ++r) arange[r] = static_cast<Position>(r);
    return RopeSubject::rotate(arange, x, seq_len);
  }
};

// cos from cat(freqs, freqs), sin from freqs.repeat_interleave(2): in the
// halves layout column j gets cos(t·ω_{j mod r/2}) but sin(t·ω_{⌊j/2⌋}), so
// pair i ≥ 1 turns its cosine and its sine at different frequencies.
class SinCosMismatch : public RopeSubject {
 public:
  SinCosMismatch() : RopeSubject(twin_info("rope@llama", "rope-sin-cos-mismatch")) {}
  Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override {
    const Matrix unrotated = RopeSubject::rotate(positions, x, seq_len);  // the same refusals as the twin
    const int dim = static_cast<int>(x.cols()), r = reference::rotary_block(dim, info().rotate), h = r / 2;
    const auto omegas = reference::rotary_inv_freq(r, info().rotate, reference::rotary_length(positions, seq_len));
    Matrix out = unrotated;
    for (Eigen::Index row = 0; row < x.rows(); ++row) {
      const auto t = static_cast<double>(positions[static_cast<size_t>(row)]);
      auto cos_at = [&](int j) { return std::cos(t * omegas[static_cast<size_t>(j % h)]); };
      auto sin_at = [&](int j) { return std::sin(t * omegas[static_cast<size_t>(j / 2)]); };
      for (int i = 0; i < h; ++i) {
        const int a = i, b = i + h;
        out(row, a) = x(row, a) * cos_at(a) - x(row, b) * sin_at(a);
        out(row, b) = x(row, b) * cos_at(b) + x(row, a) * sin_at(b);
      }
    }
    return out;
  }
};

// Llama in bfloat16 with float32 angles declared, whose inv_freq buffer was
// cast to bfloat16 (model.to(torch.bfloat16) casts buffers): every ω_i
// carries a relative error up to 2^-9 before the float32 product t·ω_i, so
// the angle drifts by t·Δω_i, far beyond float32 angles at large t.
class LlamaBf16InvFreq : public RopeSubject {
 public:
  LlamaBf16InvFreq() : RopeSubject(twin_info("rope@llama-bf16", "rope-llama-bf16-inv-freq")) {}

 protected:
  std::vector<double> inverse_frequencies(int rotary_width, Position length) const override {
    std::vector<double> w = RopeSubject::inverse_frequencies(rotary_width, length);
    for (double& f : w) f = round_to(Dtype::bfloat16, f);
    return w;
  }
};

template <class Bug, class... Args>
SubjectEntry entry(std::string name, std::string description, Args... args) {
  return {std::move(name), std::move(description), [=] { return std::make_unique<Bug>(args...); }};
}

}  // namespace planted::rope_convention_mutants

std::vector<SubjectEntry> rope_convention_mutants() {
  using namespace planted::rope_convention_mutants;
  return {
      entry<Identity>("rope-identity", "declares Llama's rotary but returns x unrotated (the identity map)"),
      entry<PositionsIgnored>("rope-positions-ignored",
                              "declares Llama's rotary but rotates row r as position r (positions ignored)"),
      entry<SinCosMismatch>("rope-sin-cos-mismatch",
                            "Llama's rotary with cos from cat(freqs, freqs) and sin from repeat_interleave: sine and "
                            "cosine at different frequencies"),
      entry<LlamaBf16InvFreq>("rope-llama-bf16-inv-freq",
                              "bfloat16 Llama with float32 angles declared, its inv_freq rounded to bfloat16 before "
                              "the product"),
      entry<Base1000>("rope-base-1000", "declares base 10000 but rotates with base 1000"),
      entry<InverseRotation>("rope-inverse-rotation",
                             "rotate_half as cat(x2, −x1): rotates by −t·ω_i (R_{−t}, the inverse rotation)"),
      entry<PartialDeclaredFull>("rope-partial-declared-full",
                                 "GPT-NeoX partial rotary (first 2·⌊d/8⌋ features) declared as the full width"),
      entry<PassThroughZeroed>("rope-pass-through-zeroed",
                               "GPT-NeoX partial rotary whose pass-through features come back zero"),
      entry<PassThroughRotated>("rope-pass-through-rotated",
                                "GPT-NeoX partial rotary with the cos/sin table tiled across the head: the tail rotates"),
      entry<DynamicNtkConstantBase>(
          "rope-dynamic-ntk-constant-base",
          "dynamic NTK whose base is fixed at length L·F, whatever the sequence length (vllm #41236)"),
      entry<LlamaBf16CacheRebuild>(
          "rope-llama-bf16-cache-rebuild",
          "transformers 4.31–4.37 bf16 Llama: past 2048 tokens the cache is rebuilt with positions and angles in "
          "bfloat16 (positions 256 and 257 rotate alike)"),
      entry<LlamaBf16AnglesFloat16>("rope-llama-bf16-angles-float16",
                                    "bfloat16 Llama declaring float32 angles whose angle table is float16"),
      entry<Llama3Wrong>("rope-llama3-bands-swapped",
                         "Llama 3 scaling with the bands swapped: short wavelengths divided by 8, long ones kept",
                         std::string("rope-llama3-bands-swapped"), Llama3Flaw::bands_swapped),
      entry<Llama3Wrong>("rope-llama3-smooth-reversed",
                         "Llama 3 scaling whose medium band weighs ω/F by s instead of 1 − s",
                         std::string("rope-llama3-smooth-reversed"), Llama3Flaw::smooth_reversed),
      entry<YarnNoAttentionFactor>("rope-yarn-no-attention-factor",
                                   "YaRN frequencies without the attention factor 0.1·ln F + 1 on cos and sin"),
      entry<Llama3Wrong>("rope-llama3-wavelength-without-2pi",
                         "Llama 3 scaling whose wavelength is 1/ω, not 2π/ω: the band boundaries 2π times too far out",
                         std::string("rope-llama3-wavelength-without-2pi"), Llama3Flaw::wavelength_without_two_pi),
      entry<YarnRangeRounded>("rope-yarn-range-rounded",
                              "YaRN declared with truncate: false (GPT-OSS) computed with the floor/ceil range"),
      entry<PartialAppliedWhole>("rope-partial-applied-whole",
                                 "GPT-NeoX partial rotary (rotary_fraction 0.25) applied to the whole head"),
  };
}

}  // namespace pecheck
