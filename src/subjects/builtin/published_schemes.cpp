// The published numbers of the 2024–2026 positional schemes, as their
// config.json files state them (model hyperparameters, not code): the
// built-ins of published.cpp, the planted bugs and the tests read them here.
#include "pecheck/subjects/builtin/published.h"

#include <cmath>
#include <numbers>

namespace pecheck {

namespace {

// microsoft/Phi-3.5-mini-instruct config.json: rope_scaling (type longrope),
// 48 pairs of a 96-wide head (hidden_size 3072 / 32 heads).
const std::vector<double> kPhi35Short = {
    1.0, 1.0199999809265137, 1.0299999713897705, 1.0299999713897705, 1.0499999523162842, 1.0499999523162842,
    1.0499999523162842, 1.0499999523162842, 1.0499999523162842, 1.0699999332427979, 1.0999999046325684,
    1.1099998950958252, 1.1599998474121094, 1.1599998474121094, 1.1699998378753662, 1.2899998426437378,
    1.339999794960022, 1.679999828338623, 1.7899998426437378, 1.8199998140335083, 1.8499997854232788,
    1.8799997568130493, 1.9099997282028198, 1.9399996995925903, 1.9899996519088745, 2.0199997425079346,
    2.0199997425079346, 2.0199997425079346, 2.0199997425079346, 2.0199997425079346, 2.0199997425079346,
    2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914,
    2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0799996852874756,
    2.0899996757507324, 2.189999580383301, 2.2199995517730713, 2.5899994373321533, 2.729999542236328,
    2.749999523162842, 2.8399994373321533,
};
const std::vector<double> kPhi35Long = {
    1.0800000429153442, 1.1100000143051147, 1.1399999856948853, 1.340000033378601, 1.5899999141693115,
    1.600000023841858, 1.6200000047683716, 2.620000123977661, 3.2300000190734863, 3.2300000190734863,
    4.789999961853027, 7.400000095367432, 7.700000286102295, 9.09000015258789, 12.199999809265137,
    17.670000076293945, 24.46000099182129, 28.57000160217285, 30.420001983642578, 30.840002059936523,
    32.590003967285156, 32.93000411987305, 42.320003509521484, 44.96000289916992, 50.340003967285156,
    50.45000457763672, 57.55000305175781, 57.93000411987305, 58.21000289916992, 60.1400032043457,
    62.61000442504883, 62.62000274658203, 62.71000289916992, 63.1400032043457, 63.1400032043457, 63.77000427246094,
    63.93000411987305, 63.96000289916992, 63.970001220703125, 64.02999877929688, 64.06999969482422,
    64.08000183105469, 64.12000274658203, 64.41000366210938, 64.4800033569336, 64.51000213623047,
    64.52999877929688, 64.83999633789062,
};

}  // namespace

RotateConvention phi35_longrope() {
  // rope_theta 10000, rotate_half (models/phi3/modeling_phi3.py), original
  // 4096 and max_position_embeddings 131072 beside rope_scaling.
  RotateConvention c;
  c.base = 10000;
  c.layout = Layout::halves;
  c.max_position_embeddings = 131072;
  c.scaling.type = ScalingType::longrope;
  c.scaling.original_max_position = 4096;
  c.scaling.short_factor = kPhi35Short;
  c.scaling.long_factor = kPhi35Long;
  return c;
}

RotateConvention deepseek_v3_yarn() {
  // deepseek-ai/DeepSeek-V3 config.json: qk_rope_head_dim 64, rope_theta
  // 10000, rope_scaling {type yarn, factor 40, original_max_position_embeddings
  // 4096, beta_fast 32, beta_slow 1, mscale 1.0, mscale_all_dim 1.0};
  // modeling_deepseek.py rotates with the interleave-then-halves layout.
  RotateConvention c;
  c.base = 10000;
  c.layout = Layout::interleave_then_halves;
  c.max_position_embeddings = 163840;
  c.scaling.type = ScalingType::yarn;
  c.scaling.factor = 40;
  c.scaling.original_max_position = 4096;
  c.scaling.beta_fast = 32;
  c.scaling.beta_slow = 1;
  c.scaling.mscale = 1.0;
  c.scaling.mscale_all_dim = 1.0;
  return c;
}

RotateConvention qwen2_vl_mrope() {
  // Qwen/Qwen2-VL-7B-Instruct config.json: rope_theta 1000000, rope_scaling
  // {type mrope, mrope_section [16, 24, 24]}, head_dim 128, rotate_half.
  RotateConvention c;
  c.base = 1000000;
  c.layout = Layout::halves;
  c.mrope_section = {16, 24, 24};
  return c;
}

RotateConvention qwen3_vl_mrope() {
  // Qwen/Qwen3-VL-8B-Instruct config.json (text_config): rope_theta 5000000,
  // rope_scaling {rope_type default, mrope_section [24, 20, 20],
  // mrope_interleaved true}, head_dim 128, rotate_half.
  RotateConvention c;
  c.base = 5000000;
  c.layout = Layout::halves;
  c.mrope_section = {24, 20, 20};
  c.mrope_interleaved = true;
  return c;
}

RotateConvention llama3_freq_factors() {
  // llama.cpp's form of Llama 3.1's scaling (convert_hf_to_gguf.py writes
  // rope_freqs: per pair the factor ω_i / ω'_i of _compute_llama3_parameters,
  // with factor 8, low 1, high 4, original 8192), head_dim 128, base 500000:
  // the same rotation as rope@llama3, declared as freq_factors.
  RotateConvention c;
  c.base = 500000;
  c.layout = Layout::halves;
  const double factor = 8, low = 1, high = 4, original = 8192;
  for (int i = 0; i < 64; ++i) {
    const double w = std::pow(500000.0, -2.0 * i / 128), wavelength = 2 * std::numbers::pi / w;
    double ratio = 1;  // ω / ω'
    if (wavelength > original / low) {
      ratio = factor;
    } else if (wavelength >= original / high) {
      const double smooth = (original / wavelength - low) / (high - low);
      ratio = 1 / ((1 - smooth) / factor + smooth);
    }
    c.freq_factors.push_back(ratio);
  }
  return c;
}

}  // namespace pecheck
