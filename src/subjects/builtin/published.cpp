// One built-in per published convention. The numbers are those of the code
// each imitates (cited per entry); each computes through the reference
// (float64) unless its point is a precision (rope@llama-bf16).
#include "pecheck/subjects/builtin/published.h"

#include "pecheck/core/subject_spec.h"
#include "pecheck/subjects/builtin/encoders.h"
#include "pecheck/subjects/builtin/rope.h"

namespace pecheck {

std::vector<std::string> declared_fields(const RotateConvention& c) {
  std::vector<std::string> fields = {"params.rotate.base"};
  if (c.rotary_dim) fields.push_back("params.rotate.rotary_dim");
  if (c.rotary_fraction) fields.push_back("params.rotate.rotary_fraction");
  if (c.layout != Layout::unspecified) fields.push_back("params.rotate.layout");
  if (c.max_position_embeddings) fields.push_back("params.rotate.max_position_embeddings");
  if (!c.freq_factors.empty()) fields.push_back("params.rotate.freq_factors");
  if (c.multi_axis()) fields.push_back("params.rotate.mrope_section");
  if (c.mrope_interleaved) fields.push_back("params.rotate.mrope_interleaved");
  const ScalingType type = c.scaling.type;
  if (type == ScalingType::none) return fields;
  fields.push_back("params.rotate.scaling.type");
  if (type != ScalingType::longrope) fields.push_back("params.rotate.scaling.factor");
  if (type == ScalingType::dynamic_ntk || type == ScalingType::yarn || type == ScalingType::llama3 ||
      type == ScalingType::longrope) {
    fields.push_back("params.rotate.scaling.original_max_position");
  }
  if (type == ScalingType::yarn) {
    fields.push_back("params.rotate.scaling.beta_fast");
    fields.push_back("params.rotate.scaling.beta_slow");
    if (c.scaling.mscale) fields.push_back("params.rotate.scaling.mscale");
    if (c.scaling.mscale_all_dim) fields.push_back("params.rotate.scaling.mscale_all_dim");
  }
  if (type == ScalingType::longrope) {
    fields.push_back("params.rotate.scaling.short_factor");
    fields.push_back("params.rotate.scaling.long_factor");
  }
  if (type == ScalingType::llama3) {
    fields.push_back("params.rotate.scaling.low_freq_factor");
    fields.push_back("params.rotate.scaling.high_freq_factor");
  }
  return fields;
}

std::vector<std::string> declared_fields(const EncodeConvention& c) {
  std::vector<std::string> fields = {"params.encode.base", "params.encode.schedule"};
  if (c.position_offset != 0) fields.push_back("params.encode.position_offset");
  if (c.amplitude != 1) fields.push_back("params.encode.amplitude");
  if (c.layout != Layout::unspecified) fields.push_back("params.encode.layout");
  return fields;
}

namespace {

// A rotary built-in declaring `convention`; angles in `angles` when given.
SubjectEntry rotary(const std::string& name, const std::string& description, const RotateConvention& convention,
                    bool in_default_matrix, Dtype dtype = Dtype::float64,
                    std::optional<Dtype> angles = std::nullopt) {
  return {name, description,
          [=] {
            auto declared = declared_fields(convention);
            if (angles) declared.push_back("compute.angles");
            return std::make_unique<RopeSubject>(
                rope_info(name, builtin_spec(name), convention, dtype, angles, std::move(declared), name));
          },
          in_default_matrix};
}

SubjectEntry encoder(const std::string& name, const std::string& description, const EncodeConvention& convention,
                     bool in_default_matrix) {
  return {name, description,
          [=] {
            return std::make_unique<EncoderSubject>(
                encoder_info(name, builtin_spec(name), convention, Dtype::float64, std::nullopt,
                             declared_fields(convention), name),
                sinusoidal_row(convention, Dtype::float64, Dtype::float64));
          },
          in_default_matrix};
}

RotateConvention halves(double base = 10000) {
  RotateConvention c;
  c.base = base;
  c.layout = Layout::halves;
  return c;
}

RotateConvention scaled(ScalingType type, double factor, Position original = 0) {
  RotateConvention c = halves();
  c.scaling.type = type;
  c.scaling.factor = factor;
  c.scaling.original_max_position = original;
  return c;
}

}  // namespace

std::vector<SubjectEntry> published_builtins() {
  // GPT-J (transformers models/gptj/modeling_gptj.py): rotate_every_two on the
  // first rotary_dim = 64 features of each head, the rest passed through.
  RotateConvention gptj;
  gptj.rotary_dim = 64;
  gptj.layout = Layout::interleaved;
  // GPT-NeoX (models/gpt_neox/modeling_gpt_neox.py): rotate_half on the first
  // rotary_pct = 0.25 of each head.
  RotateConvention neox = halves();
  neox.rotary_fraction = 0.25;
  // Llama 3.1 (rope_type "llama3" in modeling_rope_utils.py; the published
  // config: rope_theta 500000, factor 8, low 1, high 4, original 8192).
  RotateConvention llama3 = halves(500000);
  llama3.scaling.type = ScalingType::llama3;
  llama3.scaling.factor = 8;
  llama3.scaling.low_freq_factor = 1;
  llama3.scaling.high_freq_factor = 4;
  llama3.scaling.original_max_position = 8192;
  // YaRN (arXiv 2309.00071; rope_type "yarn"): factor 4 over a 4096 context,
  // the paper's beta_fast 32, beta_slow 1.
  RotateConvention yarn = scaled(ScalingType::yarn, 4, 4096);
  yarn.scaling.beta_fast = 32;
  yarn.scaling.beta_slow = 1;
  // tensor2tensor get_timing_signal_1d (layers/common_attention.py): ω_i =
  // 10000^(−i/(h−1)), [sin… | cos…].
  EncodeConvention t2t;
  t2t.schedule = Schedule::i_over_h_minus_1;
  t2t.layout = Layout::halves;
  // fairseq SinusoidalPositionalEmbedding (modules/sinusoidal_positional_embedding.py):
  // the same table, real tokens at padding_idx + 1 = 2 onwards.
  EncodeConvention fairseq = t2t;
  fairseq.position_offset = 2;

  // kAwaitsDeclaredClaims: correct subjects the version-1 claims cannot judge
  // yet — they generate widths below rotary_dim 64, judge encoders against the
  // 2i/d schedule, compare rotations across sequence lengths, and expect unit
  // magnitude where YaRN has 0.1·ln F + 1. They join the default matrix when
  // the claims read the declared convention (CLAIMS.md §5).
  constexpr bool kAwaitsDeclaredClaims = true;
  return {
      rotary("rope@gptj", "GPT-J rotary: interleaved pairs, rotary_dim 64, the rest passed through", gptj,
             kAwaitsDeclaredClaims),
      rotary("rope@neox", "GPT-NeoX rotary: rotate_half on the first quarter (rotary_fraction 0.25)", neox, true),
      rotary("rope@llama", "Llama rotary: rotate_half form (halves), base 10000", halves(), true),
      rotary("rope@llama3", "Llama 3.1 rotary: base 500000, llama3 scaling (factor 8, low 1, high 4, original 8192)",
             llama3, true),
      rotary("rope@linear", "rotary with linear scaling (position interpolation): t/4", scaled(ScalingType::linear, 4),
             true),
      rotary("rope@ntk", "rotary with NTK-aware scaling: base·4^(r/(r−2))", scaled(ScalingType::ntk, 4), true),
      rotary("rope@dynamic-ntk",
             "rotary with dynamic NTK scaling (factor 2, original 2048): the base grows with the sequence length",
             scaled(ScalingType::dynamic_ntk, 2, 2048), kAwaitsDeclaredClaims),
      rotary("rope@yarn", "rotary with YaRN scaling (factor 4, original 4096, beta 32/1), attention factor 1.139",
             yarn, kAwaitsDeclaredClaims),
      rotary("rope@llama-bf16", "Llama rotary in bfloat16 with float32 angles (transformers >= 4.38): correct",
             halves(), true, Dtype::bfloat16, Dtype::float32),
      rotary("rope@longrope",
             "Phi-3.5-mini LongRoPE: 48 short/long factors switched past 4096 tokens, attention factor 1.19",
             phi35_longrope(), true),
      rotary("rope@deepseek-yarn",
             "DeepSeek-V3 YaRN (factor 40, original 4096, mscale = mscale_all_dim = 1: magnitude 1), "
             "interleave-then-halves layout",
             deepseek_v3_yarn(), true),
      rotary("rope@mrope", "Qwen2-VL multi-axis rotary: sections [16, 24, 24] of (t, h, w), base 10⁶",
             qwen2_vl_mrope(), true),
      rotary("rope@qwen3-vl", "Qwen3-VL interleaved multi-axis rotary: [24, 20, 20] round-robin, base 5·10⁶",
             qwen3_vl_mrope(), true),
      rotary("rope@llama3-freq-factors",
             "Llama 3.1's scaling as llama.cpp applies it: per-pair freq_factors, base 500000", llama3_freq_factors(),
             true),
      encoder("sinusoidal@t2t", "tensor2tensor timing signal: ω_i = 10000^(−i/(h−1)), [sin… | cos…]", t2t,
              kAwaitsDeclaredClaims),
      encoder("sinusoidal@fairseq", "fairseq sinusoidal embedding: the t2t table read from position t + 2", fairseq,
              kAwaitsDeclaredClaims),
  };
}

}  // namespace pecheck
