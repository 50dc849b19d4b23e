// The rotation evaluated in a subject's dtypes (reference/rotary.h,
// rotary_axes_rounded): the same-dtype reference of the rotary claims
// (issue 36, result/tight_bound.h). The stages round where real code rounds
// (Hugging Face's LlamaRotaryEmbedding and apply_rotary_pos_emb): ω_i and t
// in the angle dtype, θ = t·ω_i rounded there, its cosine and sine rounded
// there and cast to the values' dtype, x in the values' dtype, each product
// and their difference (sum) rounded, then the magnitude m. A float64 subject
// gets the rotation in double against the long double one: the error its
// angles carry at large t is real and is what its bound then follows.
#include <cmath>

#include "pecheck/core/dtype.h"
#include "pecheck/reference/rotary.h"
#include "reference/rotary_frequencies.h"

namespace pecheck::reference {

Matrix rotary_axes_rounded(const std::vector<Positions>& axes, const Matrix& x, const RotateConvention& convention,
                           std::optional<Position> seq_len, Dtype values, Dtype angles) {
  detail::check_axes(axes, x, convention);
  const int dim = static_cast<int>(x.cols());
  const int r = rotary_block(dim, convention);
  const auto inv_freq = detail::rotary_inv_freq_long(r, convention, rotary_length(axes, seq_len, convention));
  const double m = round_to(values, static_cast<double>(rotary_magnitude(convention)));
  const Layout layout = convention.layout;
  auto in_values = [values](double v) { return round_to(values, v); };
  auto in_angles = [angles](double v) { return round_to(angles, v); };
  Matrix out = x.unaryExpr(in_values);  // features r.. pass through, cast to the subject's dtype
  for (Eigen::Index row = 0; row < x.rows(); ++row) {
    for (int i = 0; i < r / 2; ++i) {
      const auto axis = static_cast<size_t>(rotary_axis(i, r, convention));
      const double t = in_angles(static_cast<double>(axes[axis][static_cast<size_t>(row)]));
      const double w = in_angles(static_cast<double>(inv_freq[static_cast<size_t>(rotary_frequency_index(i, r, convention))]));
      const double theta = in_angles(t * w);
      const double c = in_values(in_angles(std::cos(theta))), s = in_values(in_angles(std::sin(theta)));
      const double xa = in_values(x(row, rotary_first_column(i, r, layout)));
      const double xb = in_values(x(row, rotary_second_column(i, r, layout)));
      const double a = in_values(in_values(xa * c) - in_values(xb * s));
      const double b = in_values(in_values(xa * s) + in_values(xb * c));
      out(row, rotary_output_first_column(i, r, layout)) = m == 1 ? a : in_values(m * a);
      out(row, rotary_output_second_column(i, r, layout)) = m == 1 ? b : in_values(m * b);
    }
  }
  return out;
}

}  // namespace pecheck::reference
