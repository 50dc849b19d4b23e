// The rotation itself (reference/rotary.h): pairs of the rotated block turned
// by t·ω_i, the tail passed through.
#include "pecheck/reference/rotary.h"

#include <fmt/format.h>

#include <cmath>

#include "reference/rotary_frequencies.h"

namespace pecheck::reference {

int rotary_first_column(int pair, int /*rotary_width*/, Layout layout) {
  return layout == Layout::halves ? pair : 2 * pair;
}

int rotary_second_column(int pair, int rotary_width, Layout layout) {
  return layout == Layout::halves ? rotary_width / 2 + pair : 2 * pair + 1;
}

Matrix rotary(const Positions& positions, const Matrix& x, const RotateConvention& convention,
              std::optional<Position> seq_len) {
  if (static_cast<Eigen::Index>(positions.size()) != x.rows()) {
    throw Refusal(fmt::format("rotate: {} positions for {} rows", positions.size(), x.rows()));
  }
  const int dim = static_cast<int>(x.cols());
  const int r = rotary_block(dim, convention);
  const auto inv_freq = detail::rotary_inv_freq_long(r, convention, rotary_length(positions, seq_len));
  const long double m = rotary_magnitude(convention);
  Matrix out = x;  // features r.. pass through unchanged
  for (Eigen::Index row = 0; row < x.rows(); ++row) {
    const auto t = static_cast<long double>(positions[static_cast<size_t>(row)]);
    for (int i = 0; i < r / 2; ++i) {
      const int a = rotary_first_column(i, r, convention.layout), b = rotary_second_column(i, r, convention.layout);
      const long double theta = t * inv_freq[static_cast<size_t>(i)];
      const long double c = std::cos(theta), s = std::sin(theta);
      const long double xa = x(row, a), xb = x(row, b);
      out(row, a) = static_cast<double>(m * (xa * c - xb * s));
      out(row, b) = static_cast<double>(m * (xa * s + xb * c));
    }
  }
  return out;
}

}  // namespace pecheck::reference
