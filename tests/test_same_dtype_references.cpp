// Issue 36: the same-dtype references the rotary and sinusoid claims take
// their tight bounds from (reference/rotary_rounded.cpp,
// reference/sinusoidal_rounded.cpp) round where real code rounds, and the
// bounds built on them judge: a correct reduced-precision subject's answer is
// the rounded reference's, a float64 evaluation sits within ulps of the
// exact one, and the error model's angle work is never rooted (tight_bound).
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "pecheck/core/dtype.h"
#include "pecheck/reference/rotary.h"
#include "pecheck/reference/sinusoidal.h"
#include "pecheck/result/judge.h"
#include "pecheck/result/tight_bound.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/typed_subject.h"

BOOST_AUTO_TEST_SUITE(test_same_dtype_references)

using namespace pecheck;

namespace {

Matrix some_vectors(Eigen::Index rows, Eigen::Index dim) {
  Matrix x(rows, dim);
  for (Eigen::Index r = 0; r < rows; ++r) {
    for (Eigen::Index c = 0; c < dim; ++c) x(r, c) = std::sin(1.7 * static_cast<double>(r * dim + c) + 0.3) * 3;
  }
  return x;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_bfloat16_rotation_is_what_a_llama_bf16_implementation_answers) {
  // builtin:rope@llama-bf16 computes as transformers' Llama does in bfloat16 (float32 angles, bf16 tables
  // and products): the rounded reference must land on its answers, or its error would not be the one a
  // correct subject makes.
  auto subject = make_subject("builtin:rope@llama-bf16");
  const SubjectInfo info = subject->info();
  const Positions ts = {0, 1, 17, 4095, 10000};
  const Matrix x = some_vectors(5, 64);
  const Matrix answer = ask::rotate(*subject, ts, x, std::nullopt);
  RotateConvention c = info.rotate;
  if (c.layout == Layout::unspecified) c.layout = info.layout;
  const Matrix rounded = reference::rotary_axes_rounded({ts}, x, c, std::nullopt, info.dtype, info.angles_dtype());
  const Matrix exact = reference::rotary_axes({ts}, x, c, std::nullopt);
  const double rounded_gap = (answer - rounded).cwiseAbs().maxCoeff();
  const double exact_gap = (answer - exact).cwiseAbs().maxCoeff();
  BOOST_TEST(exact_gap > 1e-3, "a bf16 answer is not the exact rotation: " << exact_gap);
  BOOST_TEST(rounded_gap <= 0.25 * exact_gap, "rounded reference " << rounded_gap << " vs exact " << exact_gap);
}

BOOST_AUTO_TEST_CASE(a_float64_rotation_is_within_ulps_of_the_long_double_one) {
  RotateConvention c;
  c.layout = Layout::halves;
  const Positions ts = {3, 9000};
  const Matrix x = some_vectors(2, 32);
  const Matrix rounded = reference::rotary_axes_rounded({ts}, x, c, std::nullopt, Dtype::float64, Dtype::float64);
  const Matrix exact = reference::rotary_axes({ts}, x, c, std::nullopt);
  const double gap = (rounded - exact).cwiseAbs().maxCoeff();
  // θ = 9000·ω rounds by up to u·9000 in double: a real error, not zero, far below float32's.
  BOOST_TEST(gap > 0.0);
  BOOST_TEST(gap < 9000 * 4 * unit_roundoff(Dtype::float64) * 8);
}

BOOST_AUTO_TEST_CASE(sinusoid_angles_in_float16_lose_large_positions) {
  EncodeConvention c;
  c.layout = Layout::interleaved;
  const Positions ts = {1, 5000};
  const Matrix exact = reference::sinusoidal_exact(16, ts, c);
  const Matrix in64 = reference::sinusoidal_rounded(16, ts, c, Dtype::float64, Dtype::float64);
  const Matrix half = reference::sinusoidal_rounded(16, ts, c, Dtype::float32, Dtype::float16);
  BOOST_TEST((in64 - exact).cwiseAbs().maxCoeff() < 1e-12);
  // t = 5000 is not a float16 number (the spacing there is 4): the angle of ω_0 = 1 moves by up to 2 rad.
  BOOST_TEST((half.row(1) - exact.row(1)).cwiseAbs().maxCoeff() > 0.1);
  BOOST_TEST((half.row(0) - exact.row(0)).cwiseAbs().maxCoeff() < 0.01);
  // The float64 formula (reference::sinusoidal) agrees with the long double one within its own ulps.
  BOOST_TEST((reference::sinusoidal(16, ts, c) - exact).cwiseAbs().maxCoeff() < 1e-12);
}

BOOST_AUTO_TEST_CASE(the_exact_sinusoid_agrees_with_long_double) {
  // sinusoidal_exact carries θ to long double's accuracy with one fma and takes double's sine and cosine
  // (a tenth of long double's cost). Against the formula evaluated in long double here: within what long
  // double's own θ rounds (2⁻⁶⁴ of θ, 4·10⁻¹⁶ at t = 10⁴) and double's sine (an ulp), a thousandth of what
  // θ's double rounding moves an entry by (u·θ).
  EncodeConvention c;
  c.layout = Layout::halves;
  c.amplitude = 0.1;
  c.position_offset = 2;  // fairseq's padding_idx + 1
  const Positions ts = {0, 1, 4095, 9999};
  const int d = 128;
  const Matrix exact = reference::sinusoidal_exact(d, ts, c);
  double gap = 0;
  for (size_t r = 0; r < ts.size(); ++r) {
    for (int i = 0; i < d / 2; ++i) {
      const long double w = std::pow(10000.0L, -static_cast<long double>(i) * (2.0L / d));
      const long double theta = static_cast<long double>(ts[r] + c.position_offset) * w;
      const auto row = static_cast<Eigen::Index>(r);
      gap = std::max(gap, std::fabs(exact(row, i) - static_cast<double>(0.1L * std::sin(theta))));
      gap = std::max(gap, std::fabs(exact(row, i + d / 2) - static_cast<double>(0.1L * std::cos(theta))));
    }
  }
  const double u = unit_roundoff(Dtype::float64);
  BOOST_TEST(gap <= 0.1 * (10001 * std::ldexp(1.0, -63) + 4 * u), "largest gap " << gap);
  const Matrix in64 = reference::sinusoidal_rounded(d, ts, c, Dtype::float64, Dtype::float64);
  BOOST_TEST((in64 - exact).cwiseAbs().maxCoeff() > 100 * gap);  // the float64 angles' real error shows
}

BOOST_AUTO_TEST_CASE(an_angle_terms_work_is_never_rooted) {
  // Values: a count of roundings (rooted in the floor); angles: the size of an angle's error (never).
  SubjectInfo info;
  info.dtype = Dtype::float32;
  const BoundModel model(ErrorModel{}, "rope.relative_dot", info);
  Bound b = Bound::upper(16, 1, "values");
  b.plus(Stage::angles, 1e4, 1, "angles");
  b.same_dtype(0, "none");
  const auto tight = tight_value(model, b);
  BOOST_REQUIRE(tight.has_value());
  const double u = unit_roundoff(Dtype::float32);
  BOOST_TEST(tight->bound == 2 * (u * 4 + u * 1e4), boost::test_tools::tolerance(1e-12));
  b.probabilistic(2, "two paths");
  const auto p = tight_value(model, b);
  BOOST_TEST(p->bound == model.factor() * (u * std::sqrt(32.0) + u * 1e4), boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_SUITE_END()
