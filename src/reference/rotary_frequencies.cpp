// The rotary frequencies under each scaling family (reference/rotary.h has the
// formulas and their sources). Every quantity is formed in long double.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "pecheck/reference/rotary.h"
#include "reference/rotary_frequencies.h"

namespace pecheck::reference {

namespace {

constexpr long double kTwoPi = 2 * std::numbers::pi_v<long double>;

bool positive(double value) { return value > 0 && std::isfinite(value); }

// A per-pair list must have one positive, finite entry per pair.
void check_pairs(const std::vector<double>& list, int pairs, const char* what) {
  if (static_cast<int>(list.size()) != pairs) {
    throw Refusal(fmt::format("{} has {} entries, one per pair of a rotary width {} needs {}", what, list.size(),
                              2 * pairs, pairs));
  }
  for (double v : list) {
    if (!positive(v)) throw Refusal(fmt::format("{} must hold positive, finite numbers, got {}", what, v));
  }
}

// The checks every family shares, then each family's own.
void check_convention(int rotary_width, const RotateConvention& c) {
  if (!positive(c.base)) throw Refusal(fmt::format("the rotary base must be positive and finite, got {}", c.base));
  if (!c.freq_factors.empty()) check_pairs(c.freq_factors, rotary_width / 2, "freq_factors");
  if (c.rope_2d && rotary_width % 4 != 0) {
    throw Refusal(fmt::format("a 2-D rotary splits its pairs between rows and columns: the rotated width must be a "
                              "multiple of 4, got {}", rotary_width));
  }
  if (c.multi_axis()) {
    int sum = 0;
    for (int s : c.mrope_section) {
      if (s < 0) throw Refusal(fmt::format("mrope_section counts pairs and cannot hold {}", s));
      sum += s;
    }
    if (sum != rotary_width / 2) {
      throw Refusal(fmt::format("mrope_section covers {} pairs, a rotary width {} has {}", sum, rotary_width,
                                rotary_width / 2));
    }
  }
  const RopeScaling& s = c.scaling;
  if (s.type == ScalingType::none) return;
  if (!positive(s.factor)) {
    throw Refusal(fmt::format("{} scaling needs a positive factor, got {}", name(s.type), s.factor));
  }
  const bool needs_length = s.type == ScalingType::dynamic_ntk || s.type == ScalingType::yarn ||
                            s.type == ScalingType::llama3 || s.type == ScalingType::longrope;
  if (needs_length && s.original_max_position < 1) {
    throw Refusal(fmt::format("{} scaling needs original_max_position >= 1, got {}", name(s.type),
                              s.original_max_position));
  }
  if ((s.type == ScalingType::ntk || s.type == ScalingType::dynamic_ntk) && rotary_width <= 2) {
    throw Refusal(fmt::format("{} scaling raises F to r/(r−2), undefined for a rotary width r = {}", name(s.type),
                              rotary_width));
  }
  if (s.type == ScalingType::llama3 && !(s.high_freq_factor >= s.low_freq_factor && s.low_freq_factor > 0)) {
    throw Refusal(fmt::format("llama3 scaling needs 0 < low_freq_factor <= high_freq_factor, got {} and {}",
                              s.low_freq_factor, s.high_freq_factor));
  }
  if (s.type == ScalingType::yarn && !(positive(s.beta_fast) && positive(s.beta_slow))) {
    throw Refusal(fmt::format("yarn scaling needs positive beta_fast and beta_slow, got {} and {}", s.beta_fast,
                              s.beta_slow));
  }
  if (s.type == ScalingType::longrope) {
    check_pairs(s.short_factor, rotary_width / 2, "longrope short_factor");
    check_pairs(s.long_factor, rotary_width / 2, "longrope long_factor");
  }
}

// DeepSeek's yarn_get_mscale: 0.1·s·ln F + 1 for F > 1, else 1.
long double yarn_mscale(long double factor, long double s) {
  return factor <= 1 ? 1.0L : 0.1L * s * std::log(factor) + 1.0L;
}

long double base_long(int r, const RotateConvention& c, std::optional<Position> length) {
  const long double base = c.base, factor = c.scaling.factor;
  const long double exponent = static_cast<long double>(r) / (r - 2);
  switch (c.scaling.type) {
    case ScalingType::ntk: return base * std::pow(factor, exponent);
    case ScalingType::dynamic_ntk: {
      const Position original = c.scaling.original_max_position;
      if (!length || *length <= original) return base;
      const long double ratio = factor * static_cast<long double>(*length) / static_cast<long double>(original);
      return base * std::pow(ratio - (factor - 1), exponent);
    }
    default: return base;
  }
}

// base^(−2i/r) for each pair: the unscaled schedule at a given base.
std::vector<long double> schedule(int r, long double base) {
  std::vector<long double> w(static_cast<size_t>(r / 2));
  for (int i = 0; i < r / 2; ++i) w[static_cast<size_t>(i)] = std::pow(base, -2.0L * i / r);
  return w;
}

// The pair index whose wavelength fits `rotations` times into L (YaRN's
// inverse dimension formula).
long double correction_dim(long double rotations, int r, long double base, long double original) {
  return r * std::log(original / (rotations * kTwoPi)) / (2 * std::log(base));
}

}  // namespace

int rotary_block(int dim, const RotateConvention& convention) {
  const int r = convention.rotary_width(dim);
  if (r < 2 || r % 2 != 0 || r > dim) {
    throw Refusal(fmt::format("a rotary width of {} is undefined for d = {} (it must be even, >= 2 and <= d)", r, dim));
  }
  return r;
}

Position rotary_length(const Positions& positions, std::optional<Position> seq_len) {
  if (seq_len) return *seq_len;
  if (positions.empty()) return 0;
  return *std::max_element(positions.begin(), positions.end()) + 1;
}

Position rotary_length(const Positions& positions, std::optional<Position> seq_len, const RotateConvention& c) {
  if (c.scaling.type == ScalingType::longrope && c.scaling.factor_switch == FactorSwitch::position) {
    return positions.empty() ? 0 : *std::max_element(positions.begin(), positions.end());
  }
  return rotary_length(positions, seq_len);
}

Position rotary_length(const std::vector<Positions>& axes, std::optional<Position> seq_len,
                       const RotateConvention& convention) {
  Positions all;
  for (const auto& axis : axes) all.insert(all.end(), axis.begin(), axis.end());
  return rotary_length(all, seq_len, convention);
}

bool longrope_long(const RotateConvention& c, std::optional<Position> length) {
  const RopeScaling& s = c.scaling;
  if (s.type != ScalingType::longrope) return false;
  if (s.factor_switch == FactorSwitch::context) {
    const auto context = c.max_position_embeddings.value_or(
        static_cast<Position>(std::llround(s.factor * static_cast<double>(s.original_max_position))));
    return context > s.original_max_position;
  }
  return length && *length > s.original_max_position;
}

double yarn_softmax_scale(const RopeScaling& s) {
  if (s.type != ScalingType::yarn || !s.mscale_all_dim) return 1.0;
  const long double m = yarn_mscale(s.factor, *s.mscale_all_dim);
  return static_cast<double>(m * m);
}

int rotary_frequency_index(int pair, int rotary_width, const RotateConvention& c) {
  if (!c.rope_2d) return pair;
  const int half = rotary_width / 4;  // the row's pairs
  if (pair < half) return 2 * pair;
  return 2 * (pair - half) + (c.rope_2d->frequencies == Frequencies2d::even_odd ? 1 : 0);
}

int rotary_axis(int pair, int rotary_width, const RotateConvention& c) {
  if (c.rope_2d) {
    const bool row = pair < rotary_width / 4;
    return row != c.rope_2d->columns_first ? 0 : 1;
  }
  if (!c.multi_axis()) return 0;
  const auto& sections = c.mrope_section;
  if (c.mrope_interleaved) {
    // Qwen3-VL: t, h, w round-robin while each axis has pairs left; the tail is t's.
    for (int axis = 1; axis < static_cast<int>(sections.size()); ++axis) {
      if (pair % 3 == axis && pair < 3 * sections[static_cast<size_t>(axis)]) return axis;
    }
    return 0;
  }
  int end = 0;
  for (size_t axis = 0; axis < sections.size(); ++axis) {
    end += sections[axis];
    if (pair < end) return static_cast<int>(axis);
  }
  (void)rotary_width;
  return static_cast<int>(sections.size()) - 1;
}

double rotary_base(int rotary_width, const RotateConvention& convention, std::optional<Position> length) {
  check_convention(rotary_width, convention);
  return static_cast<double>(base_long(rotary_width, convention, length));
}

std::vector<double> yarn_ramp(int rotary_width, const RotateConvention& convention) {
  check_convention(rotary_width, convention);
  const RopeScaling& s = convention.scaling;
  const long double base = convention.base, original = static_cast<long double>(s.original_max_position);
  long double low = correction_dim(s.beta_fast, rotary_width, base, original);
  long double high = correction_dim(s.beta_slow, rotary_width, base, original);
  if (s.truncate) low = std::floor(low), high = std::ceil(high);
  low = std::max(low, 0.0L);
  high = std::min(high, static_cast<long double>(rotary_width - 1));
  if (low == high) high += 0.001L;  // as published: a step, not a division by zero
  std::vector<double> ramp(static_cast<size_t>(rotary_width / 2));
  for (int i = 0; i < rotary_width / 2; ++i) {
    ramp[static_cast<size_t>(i)] = static_cast<double>(std::clamp((i - low) / (high - low), 0.0L, 1.0L));
  }
  return ramp;
}

namespace detail {

std::vector<long double> rotary_inv_freq_long(int rotary_width, const RotateConvention& convention,
                                              std::optional<Position> length) {
  if (rotary_width < 2 || rotary_width % 2 != 0) {
    throw Refusal(fmt::format("a rotary width must be even and >= 2, got {}", rotary_width));
  }
  check_convention(rotary_width, convention);
  const RopeScaling& s = convention.scaling;
  auto w = schedule(rotary_width, base_long(rotary_width, convention, length));
  const long double factor = s.factor;
  std::vector<double> ramp;
  if (s.type == ScalingType::yarn) ramp = yarn_ramp(rotary_width, convention);
  for (size_t i = 0; i < w.size(); ++i) {
    const long double original_w = w[i];
    switch (s.type) {
      case ScalingType::linear: w[i] = original_w / factor; break;
      case ScalingType::yarn: {
        const long double g = ramp[i];
        w[i] = (original_w / factor) * g + original_w * (1 - g);
        break;
      }
      case ScalingType::llama3: {
        const long double original = static_cast<long double>(s.original_max_position);
        const long double wavelength = kTwoPi / original_w;
        const long double low_band = original / s.low_freq_factor;    // longer waves than this: ω/F
        const long double high_band = original / s.high_freq_factor;  // shorter waves than this: ω
        if (wavelength > low_band) {
          w[i] = original_w / factor;
        } else if (wavelength >= high_band && s.high_freq_factor > s.low_freq_factor) {
          // (Equal factors, as Llama 4 declares them, leave no band between.)
          const long double smooth = (original / wavelength - s.low_freq_factor) /
                                     (s.high_freq_factor - s.low_freq_factor);
          w[i] = (1 - smooth) * original_w / factor + smooth * original_w;
        }
        break;
      }
      case ScalingType::longrope: {
        const auto& ext = longrope_long(convention, length) ? s.long_factor : s.short_factor;
        w[i] = original_w / static_cast<long double>(ext[i]);
        break;
      }
      default: break;  // none, ntk and dynamic_ntk change the base only
    }
    if (!convention.freq_factors.empty()) w[i] /= static_cast<long double>(convention.freq_factors[i]);
  }
  return w;
}

}  // namespace detail

std::vector<double> rotary_inv_freq(int rotary_width, const RotateConvention& convention,
                                    std::optional<Position> length) {
  const auto w = detail::rotary_inv_freq_long(rotary_width, convention, length);
  return {w.begin(), w.end()};
}

double rotary_magnitude(const RotateConvention& convention) {
  const RopeScaling& s = convention.scaling;
  if (s.attention_factor && (s.type == ScalingType::yarn || s.type == ScalingType::longrope)) {
    return *s.attention_factor;
  }
  if (s.type == ScalingType::yarn) {
    const long double factor = s.factor;
    return static_cast<double>(yarn_mscale(factor, s.mscale.value_or(1.0)) /
                               yarn_mscale(factor, s.mscale_all_dim.value_or(0.0)));
  }
  if (s.type == ScalingType::longrope) {
    const long double original = static_cast<long double>(s.original_max_position);
    const long double f = convention.max_position_embeddings
                              ? static_cast<long double>(*convention.max_position_embeddings) / original
                              : static_cast<long double>(s.factor);
    if (f <= 1 || original <= 1) return 1.0;
    return static_cast<double>(std::sqrt(1 + std::log(f) / std::log(original)));
  }
  return 1.0;
}

}  // namespace pecheck::reference
