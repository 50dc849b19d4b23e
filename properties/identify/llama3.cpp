// Llama 3 scaling with one slip (identify/llama3.h): the published formula
// (transformers' _compute_llama3_parameters, as reference/rotary_frequencies.cpp
// computes it) with its bands, its smoothing or its boundary changed.
#include "identify/llama3.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace pecheck::identify {

std::vector<double> llama3_inv_freq(int rotary_width, const RotateConvention& convention,
                                    std::optional<Position> length, const Llama3Slip& slip) {
  RotateConvention plain = convention;
  plain.scaling = {};
  plain.freq_factors.clear();
  std::vector<double> w = reference::rotary_inv_freq(rotary_width, plain, length);
  const RopeScaling& s = convention.scaling;
  const double L = slip.boundary > 0 ? slip.boundary : static_cast<double>(s.original_max_position);
  const double low_band = L / s.low_freq_factor, high_band = L / s.high_freq_factor;
  for (size_t i = 0; i < w.size(); ++i) {
    const double f = w[i], wavelength = 2 * std::numbers::pi / f;
    double smooth = (L / wavelength - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
    if (slip.smooth_reversed) smooth = 1 - smooth;
    const bool divided = slip.bands_swapped ? wavelength < high_band : wavelength > low_band;
    const bool between = wavelength >= high_band && wavelength <= low_band && s.high_freq_factor > s.low_freq_factor;
    if (divided) {
      w[i] = f / s.factor;
    } else if (between) {
      w[i] = (1 - smooth) * f / s.factor + smooth * f;
    }
    if (i < convention.freq_factors.size()) w[i] /= convention.freq_factors[i];
  }
  return w;
}

std::vector<std::pair<std::string, Llama3Slip>> llama3_slips(const RopeScaling& s) {
  std::vector<std::pair<std::string, Llama3Slip>> out;
  out.push_back({fmt::format("has Llama 3's bands swapped: the short wavelengths (below L/high_freq_factor = {:g}) "
                             "divided by the factor {:g}, the long ones (above L/low_freq_factor = {:g}) kept",
                             static_cast<double>(s.original_max_position) / s.high_freq_factor, s.factor,
                             static_cast<double>(s.original_max_position) / s.low_freq_factor),
                 Llama3Slip{.bands_swapped = true}});
  out.push_back({"weighs Llama 3's medium band the wrong way round: ω/F by smooth and ω by 1 − smooth, where "
                 "(1 − smooth)·ω/F + smooth·ω belongs",
                 Llama3Slip{.smooth_reversed = true}});
  const auto L = static_cast<double>(s.original_max_position);
  out.push_back({fmt::format("takes a wavelength as 1/ω, not 2π/ω: Llama 3's band boundaries sit 2π times too far "
                             "out (as if original_max_position_embeddings were {:.0f}, not {})",
                             2 * std::numbers::pi * L, s.original_max_position),
                 Llama3Slip{.boundary = 2 * std::numbers::pi * L}});
  // Another L: a multiple of the declared one, or a context length configs carry (max_position_embeddings).
  std::vector<double> others;
  for (double k : {0.25, 0.5, 2.0, 4.0}) others.push_back(L * k);
  for (double c : {2048.0, 4096.0, 8192.0, 16384.0, 32768.0, 65536.0, 131072.0}) others.push_back(c);
  std::sort(others.begin(), others.end());
  others.erase(std::unique(others.begin(), others.end()), others.end());
  for (double other : others) {
    if (other == L || other < 1) continue;
    out.push_back({fmt::format("places Llama 3's band boundaries (wavelengths L/low_freq_factor, L/high_freq_factor) "
                               "at L = {:.0f} where original_max_position_embeddings {} is declared",
                               other, s.original_max_position),
                   Llama3Slip{.boundary = other}});
  }
  return out;
}

}  // namespace pecheck::identify
