#include "pecheck/reference/sinusoidal.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <tuple>
#include <vector>

namespace pecheck::reference {

namespace {

constexpr std::size_t kFrequencyTables = 256;  // per thread: every even width to 512

// Refuses the widths a convention leaves undefined (see the header).
void check_defined(int dim, const EncodeConvention& convention) {
  if (dim < 1) throw Refusal(fmt::format("the sinusoidal encoding needs a positive dim, got {}", dim));
  if (convention.schedule == Schedule::i_over_h_minus_1 && (dim % 2 != 0 || dim < 4)) {
    throw Refusal(fmt::format("schedule i/(h-1) is defined for an even d >= 4 (h = d/2 >= 2), got d = {}", dim));
  }
  if (convention.layout == Layout::halves && dim % 2 != 0) {
    throw Refusal(fmt::format("the halves layout [sin… | cos…] needs an even d, got {}", dim));
  }
  if (!(convention.base > 0) || !std::isfinite(convention.base)) {
    throw Refusal(fmt::format("the base must be positive and finite, got {}", convention.base));
  }
}

double frequency_unchecked(int pair, int dim, const EncodeConvention& convention) {
  if (convention.schedule == Schedule::i_over_h_minus_1) {
    const int h = dim / 2;
    return std::pow(convention.base, -static_cast<double>(pair) / static_cast<double>(h - 1));
  }
  return std::pow(convention.base, -2.0 * pair / static_cast<double>(dim));
}

}  // namespace

double frequency(int pair, int dim, const EncodeConvention& convention) {
  check_defined(dim, convention);
  return frequency_unchecked(pair, dim, convention);
}

double frequency(int pair, int dim) { return frequency(pair, dim, EncodeConvention{}); }

const std::vector<double>& frequencies(int dim, const EncodeConvention& convention) {
  check_defined(dim, convention);
  using Key = std::tuple<int, double, Schedule>;
  thread_local std::map<Key, std::vector<double>> cache;
  const Key key{dim, convention.base, convention.schedule};
  if (const auto it = cache.find(key); it != cache.end()) return it->second;
  if (cache.size() >= kFrequencyTables) cache.clear();
  std::vector<double> w;
  for (int i = 0; i < (dim + 1) / 2; ++i) w.push_back(frequency_unchecked(i, dim, convention));
  return cache.emplace(key, std::move(w)).first->second;
}

int sin_index(int pair, int /*dim*/, Layout layout) {
  return layout == Layout::halves ? pair : 2 * pair;
}

int cos_index(int pair, int dim, Layout layout) {
  return layout == Layout::halves ? dim / 2 + pair : 2 * pair + 1;
}

Matrix sinusoidal(int dim, const Positions& positions, const EncodeConvention& convention) {
  const std::vector<double>& omegas = frequencies(dim, convention);
  Matrix out(static_cast<Eigen::Index>(positions.size()), dim);
  const int pairs = (dim + 1) / 2;  // an odd interleaved d ends with a lone sine
  for (int i = 0; i < pairs; ++i) {
    const double w = omegas[static_cast<std::size_t>(i)];
    const int si = sin_index(i, dim, convention.layout), ci = cos_index(i, dim, convention.layout);
    for (size_t r = 0; r < positions.size(); ++r) {
      const auto row = static_cast<Eigen::Index>(r);
      // t + offset is an exact integer; the product is the one rounding of the angle.
      const double angle = static_cast<double>(positions[r] + convention.position_offset) * w;
      out(row, si) = convention.amplitude * std::sin(angle);
      if (ci < dim) out(row, ci) = convention.amplitude * std::cos(angle);
    }
  }
  return out;
}

Matrix sinusoidal(int dim, const Positions& positions, Layout layout, double amplitude) {
  EncodeConvention convention;
  convention.layout = layout;
  convention.amplitude = amplitude;
  return sinusoidal(dim, positions, convention);
}

}  // namespace pecheck::reference
