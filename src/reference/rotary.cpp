// The rotation itself (reference/rotary.h): pairs of the rotated block turned
// by t·ω_i (each at its axis's position), the tail passed through.
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

int rotary_output_first_column(int pair, int rotary_width, Layout layout) {
  return layout == Layout::interleave_then_halves ? pair : rotary_first_column(pair, rotary_width, layout);
}

int rotary_output_second_column(int pair, int rotary_width, Layout layout) {
  return layout == Layout::interleave_then_halves ? rotary_width / 2 + pair
                                                  : rotary_second_column(pair, rotary_width, layout);
}

Matrix rotary_input_order(const Matrix& answer, int rotary_width, Layout layout) {
  Matrix out = answer;
  if (layout != Layout::interleave_then_halves) return out;
  for (int i = 0; i < rotary_width / 2; ++i) {
    out.col(rotary_first_column(i, rotary_width, layout)) = answer.col(rotary_output_first_column(i, rotary_width, layout));
    out.col(rotary_second_column(i, rotary_width, layout)) =
        answer.col(rotary_output_second_column(i, rotary_width, layout));
  }
  return out;
}

namespace detail {

void check_axes(const std::vector<Positions>& axes, const Matrix& x, const RotateConvention& convention) {
  const size_t needed = static_cast<size_t>(convention.position_axes());
  if (axes.size() != needed) {
    throw Refusal(fmt::format("rotate: {} position streams for a convention with {} axes", axes.size(), needed));
  }
  for (const auto& axis : axes) {
    if (static_cast<Eigen::Index>(axis.size()) != x.rows()) {
      throw Refusal(fmt::format("rotate: {} positions for {} rows", axis.size(), x.rows()));
    }
  }
}

}  // namespace detail

Matrix rotary_axes(const std::vector<Positions>& axes, const Matrix& x, const RotateConvention& convention,
                   std::optional<Position> seq_len) {
  detail::check_axes(axes, x, convention);
  const int dim = static_cast<int>(x.cols());
  const int r = rotary_block(dim, convention);
  const auto inv_freq = detail::rotary_inv_freq_long(r, convention, rotary_length(axes, seq_len, convention));
  const long double m = rotary_magnitude(convention);
  const Layout layout = convention.layout;
  Matrix out = x;  // features r.. pass through unchanged
  for (Eigen::Index row = 0; row < x.rows(); ++row) {
    for (int i = 0; i < r / 2; ++i) {
      const auto axis = static_cast<size_t>(rotary_axis(i, r, convention));
      const auto t = static_cast<long double>(axes[axis][static_cast<size_t>(row)]);
      const long double theta = t * inv_freq[static_cast<size_t>(rotary_frequency_index(i, r, convention))];
      const long double c = std::cos(theta), s = std::sin(theta);
      const long double xa = x(row, rotary_first_column(i, r, layout)), xb = x(row, rotary_second_column(i, r, layout));
      out(row, rotary_output_first_column(i, r, layout)) = static_cast<double>(m * (xa * c - xb * s));
      out(row, rotary_output_second_column(i, r, layout)) = static_cast<double>(m * (xa * s + xb * c));
    }
  }
  return out;
}

Matrix rotary(const Positions& positions, const Matrix& x, const RotateConvention& convention,
              std::optional<Position> seq_len) {
  if (static_cast<Eigen::Index>(positions.size()) != x.rows()) {
    throw Refusal(fmt::format("rotate: {} positions for {} rows", positions.size(), x.rows()));
  }
  const size_t axes = static_cast<size_t>(convention.position_axes());
  return rotary_axes(std::vector<Positions>(axes, positions), x, convention, seq_len);
}

RotateConvention rope_slice(const RotateConvention& convention) {
  RotateConvention slice = convention;
  slice.qk_rope_head_dim.reset();
  slice.qk_nope_head_dim.reset();
  if (slice.layout == Layout::unspecified) slice.layout = Layout::interleaved;
  return slice;
}

Matrix rotary_decoupled(const Positions& positions, const Matrix& x, const RotateConvention& convention,
                        std::optional<Position> seq_len) {
  if (!convention.decoupled()) return rotary(positions, x, convention, seq_len);
  const int rope = *convention.qk_rope_head_dim, nope = convention.qk_nope_head_dim.value_or(0);
  if (x.cols() != rope + nope) {
    throw Refusal(fmt::format("rotate: a decoupled head has {} + {} features, got {}", nope, rope, x.cols()));
  }
  Matrix out = x;
  out.rightCols(rope) = rotary(positions, x.rightCols(rope), rope_slice(convention), seq_len);
  return out;
}

Matrix rotary_shift(const Positions& positions, Position shift, const Matrix& x, const RotateConvention& convention) {
  if (static_cast<Eigen::Index>(positions.size()) != x.rows()) {
    throw Refusal(fmt::format("rotate: {} positions for {} rows", positions.size(), x.rows()));
  }
  if (convention.position_axes() > 1 || convention.length_dependent()) {
    throw Refusal("a context shift is defined for one-axis rotaries whose angles follow the position alone");
  }
  if (convention.decoupled()) {  // the nope features pass through, the rope slice shifts
    const int rope = *convention.qk_rope_head_dim, nope = convention.qk_nope_head_dim.value_or(0);
    if (x.cols() != rope + nope) {
      throw Refusal(fmt::format("rotate: a decoupled head has {} + {} features, got {}", nope, rope, x.cols()));
    }
    Matrix out = x;
    out.rightCols(rope) = rotary_shift(positions, shift, x.rightCols(rope), rope_slice(convention));
    return out;
  }
  const int r = rotary_block(static_cast<int>(x.cols()), convention);
  const auto inv_freq = detail::rotary_inv_freq_long(r, convention, std::nullopt);
  const Layout layout = convention.layout;
  Matrix out = x;  // features r.. pass through unchanged
  for (Eigen::Index row = 0; row < x.rows(); ++row) {
    const Position p = positions[static_cast<size_t>(row)];
    if (p + shift < 0) throw Refusal(fmt::format("a context shift of {} from position {} lands before 0", shift, p));
    for (int i = 0; i < r / 2; ++i) {
      const long double w = inv_freq[static_cast<size_t>(rotary_frequency_index(i, r, convention))];
      // R(p + Δ)·R(p)⁻¹: back from p, then on to p + Δ (both angles as rotate computes them).
      const long double back = static_cast<long double>(p) * w, on = static_cast<long double>(p + shift) * w;
      const int a = rotary_output_first_column(i, r, layout), b = rotary_output_second_column(i, r, layout);
      const long double xa = x(row, a), xb = x(row, b);
      const long double ua = xa * std::cos(back) + xb * std::sin(back), ub = -xa * std::sin(back) + xb * std::cos(back);
      out(row, a) = static_cast<double>(ua * std::cos(on) - ub * std::sin(on));
      out(row, b) = static_cast<double>(ua * std::sin(on) + ub * std::cos(on));
    }
  }
  return out;
}

}  // namespace pecheck::reference
