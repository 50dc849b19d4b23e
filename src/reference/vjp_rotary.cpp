// The VJP of the rotation (reference/vjp.h): the transposed rotation of the
// upstream gradient, pair by pair, with the forward's frequencies and magnitude.
#include <fmt/format.h>

#include <cmath>

#include "pecheck/reference/rotary.h"
#include "pecheck/reference/vjp.h"
#include "reference/rotary_frequencies.h"

namespace pecheck::reference {

Matrix rotary_vjp(const std::vector<Positions>& axes, const Matrix& g, const RotateConvention& convention,
                  std::optional<Position> seq_len) {
  const size_t needed = static_cast<size_t>(convention.position_axes());
  if (axes.size() != needed) {
    throw Refusal(fmt::format("rotate: {} position streams for a convention with {} axes", axes.size(), needed));
  }
  for (const auto& axis : axes) {
    if (static_cast<Eigen::Index>(axis.size()) != g.rows()) {
      throw Refusal(fmt::format("rotate: {} positions for {} rows", axis.size(), g.rows()));
    }
  }
  const int dim = static_cast<int>(g.cols());
  const int r = rotary_block(dim, convention);
  const auto inv_freq = detail::rotary_inv_freq_long(r, convention, rotary_length(axes, seq_len, convention));
  const long double m = rotary_magnitude(convention);
  const Layout layout = convention.layout;
  Matrix dx = g;  // features r.. pass the gradient through; every rotated column is written below
  for (Eigen::Index row = 0; row < g.rows(); ++row) {
    for (int i = 0; i < r / 2; ++i) {
      const auto axis = static_cast<size_t>(rotary_axis(i, r, convention));
      const auto t = static_cast<long double>(axes[axis][static_cast<size_t>(row)]);
      const long double theta = t * inv_freq[static_cast<size_t>(rotary_frequency_index(i, r, convention))];
      const long double c = std::cos(theta), s = std::sin(theta);
      const long double ga = g(row, rotary_output_first_column(i, r, layout));
      const long double gb = g(row, rotary_output_second_column(i, r, layout));
      dx(row, rotary_first_column(i, r, layout)) = static_cast<double>(m * (ga * c + gb * s));
      dx(row, rotary_second_column(i, r, layout)) = static_cast<double>(m * (gb * c - ga * s));
    }
  }
  return dx;
}

Matrix rotary_vjp(const Positions& positions, const Matrix& g, const RotateConvention& convention,
                  std::optional<Position> seq_len) {
  if (static_cast<Eigen::Index>(positions.size()) != g.rows()) {
    throw Refusal(fmt::format("rotate: {} positions for {} rows", positions.size(), g.rows()));
  }
  const size_t axes = static_cast<size_t>(convention.position_axes());
  return rotary_vjp(std::vector<Positions>(axes, positions), g, convention, seq_len);
}

}  // namespace pecheck::reference
