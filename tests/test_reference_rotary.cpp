// The rotary reference (reference/rotary.h) against independently computed
// values and the algebra its formulas imply. The constants were computed
// while writing this test with /usr/bin/python3 and NumPy (float64),
// transcribing the published formulas directly (the derivation is in each
// comment), so a mistake in the C++ transcription shows as a mismatch.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <vector>

#include "pecheck/reference/rotary.h"
#include "support/bounds.h"
#include "support/rotation_error.h"

BOOST_AUTO_TEST_SUITE(test_reference_rotary)

using namespace pecheck;
using pecheck::testing::max_abs_diff;
using pecheck::testing::random_matrix;

namespace {

// Relative agreement of two float64 computations of the same closed form:
// each side rounds `work` times (pow, products, sums, sin/cos), each a
// relative u(float64).
double relative_bound(double work, double scale) {
  return testing::bound_in(Dtype::float64, work, std::fabs(scale));
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

Matrix row(std::initializer_list<double> values) {
  Matrix m(1, static_cast<Eigen::Index>(values.size()));
  Eigen::Index j = 0;
  for (double v : values) m(0, j++) = v;
  return m;
}

Matrix iota_row(int dim) {
  Matrix x(1, dim);
  for (int j = 0; j < dim; ++j) x(0, j) = j + 1;
  return x;
}

void check_close(const Matrix& got, const Matrix& want, Position t) {
  const double bound = testing::rotation_bound(Dtype::float64, Dtype::float64, t, want.cwiseAbs().maxCoeff());
  BOOST_TEST(max_abs_diff(got, want) <= bound, "error " << max_abs_diff(got, want) << " > " << bound);
}

}  // namespace

// transformers' LlamaRotaryEmbedding + apply_rotary_pos_emb, in NumPy:
//   inv = 1/(10000**(arange(0, 8, 2)/8)); f = 3*inv; emb = cat(f, f)
//   x*cos(emb) + cat(-x[4:], x[:4])*sin(emb), x = 1..8
BOOST_AUTO_TEST_CASE(llama_halves_matches_the_transformers_formula) {
  const Matrix want = row({-1.6955925368997815, 0.13755173828317413, 2.7886815998294936, 3.975982036013484,
                           -4.8088424749423595, 6.323059348076316, 7.086836736850401, 8.011963982027009});
  check_close(reference::rotary({3}, iota_row(8), halves(), std::nullopt), want, 3);
}

// GPT-J's rotate_every_two on the first rotary_dim = 4 of 8 features:
//   inv = 1/(10000**(arange(0, 4, 2)/4)); sin, cos = repeat_interleave(…, 2)
//   x[:4]*cos + stack(-x[1::2], x[0::2]).flatten()*sin, x[4:] unchanged
BOOST_AUTO_TEST_CASE(gptj_interleaved_rotary_dim_matches_and_passes_the_rest_through) {
  RotateConvention gptj;
  gptj.rotary_dim = 4;
  gptj.layout = Layout::interleaved;
  const Matrix want = row({-1.27223251272018, -1.8388649851410237, 2.8786681004369807, 4.088186635603438, 5, 6, 7, 8});
  const Matrix got = reference::rotary({3}, iota_row(8), gptj, std::nullopt);
  check_close(got, want, 3);
  BOOST_TEST((got.rightCols(4) == iota_row(8).rightCols(4)), "pass-through is exact");
}

// GPT-NeoX rotary_pct 0.25 of 8 features: r = 2, one pair (0, 1) turned by t = 3.
BOOST_AUTO_TEST_CASE(neox_fraction_rotates_the_first_quarter) {
  RotateConvention neox = halves();
  neox.rotary_fraction = 0.25;
  BOOST_TEST(reference::rotary_block(8, neox) == 2);
  BOOST_TEST(reference::rotary_block(12, neox) == 2);  // 2·⌊12·0.25/2⌋
  BOOST_TEST(reference::rotary_block(64, neox) == 16);
  const Matrix want = row({-1.27223251272018, -1.8388649851410237, 3, 4, 5, 6, 7, 8});
  check_close(reference::rotary({3}, iota_row(8), neox, std::nullopt), want, 3);
}

// _compute_llama3_parameters in NumPy, base 500000, r = 128, F = 8, low 1,
// high 4, L = 8192: w = base**(-arange(0,128,2)/128), λ = 2π/w; λ > 8192: w/F;
// λ < 2048: w; else s = (L/λ − 1)/3, (1 − s)·w/F + s·w.
BOOST_AUTO_TEST_CASE(llama3_inverse_frequencies_in_each_band) {
  RotateConvention llama3 = halves(500000);
  llama3.scaling = {ScalingType::llama3, 8, 8192, 32, 1, 1, 4};
  const auto w = reference::rotary_inv_freq(128, llama3, std::nullopt);
  BOOST_REQUIRE(w.size() == 64u);
  struct Expected {
    int pair;
    double value;
  };
  const Expected expected[] = {
      {0, 1.0},                      // λ = 6.28: high frequency, kept
      {10, 0.12868737343265052},     // λ = 48.8: kept
      {24, 0.0072926647372171085},   // λ = 861.6: kept
      {30, 0.0013718935677611381},   // λ = 2948.3: medium, smoothed (unscaled 0.0021311195369119653)
      {40, 3.428102195952591e-05},   // λ = 22910.6: low frequency, divided by 8
      {63, 3.068925988914511e-07},   // λ = 2559195.5: divided by 8
  };
  for (const auto& [pair, value] : expected) {
    BOOST_TEST_CONTEXT("pair " << pair) {
      BOOST_TEST(std::fabs(w[static_cast<size_t>(pair)] - value) <= relative_bound(8, value));
    }
  }
  // The bands meet continuously: s = 0 at λ = L/low gives w/F, s = 1 at λ = L/high gives w.
  const auto unscaled = reference::rotary_inv_freq(128, halves(500000), std::nullopt);
  for (size_t i = 0; i < w.size(); ++i) {
    BOOST_TEST(w[i] <= unscaled[i] * (1 + relative_bound(4, 1)));
    BOOST_TEST(w[i] >= unscaled[i] / 8 * (1 - relative_bound(4, 1)));
  }
}

// _compute_yarn_parameters in NumPy, base 10000, r = 128, F = 4, L = 4096,
// beta 32/1: dim(n) = 128·ln(4096/(2πn))/(2 ln 10000): dim(32) = 20.94 → low 20,
// dim(1) = 45.03 → high 46; ramp = clip((i − 20)/26, 0, 1);
// w' = (w/F)·ramp + w·(1 − ramp).
BOOST_AUTO_TEST_CASE(yarn_ramp_frequencies_and_attention_factor) {
  RotateConvention yarn = scaled(ScalingType::yarn, 4, 4096);
  const auto ramp = reference::yarn_ramp(128, yarn);
  BOOST_TEST(ramp[20] == 0.0);
  BOOST_TEST(std::fabs(ramp[21] - 1.0 / 26) <= relative_bound(4, 1.0 / 26));
  BOOST_TEST(ramp[46] == 1.0);
  const auto w = reference::rotary_inv_freq(128, yarn, std::nullopt);
  struct Expected {
    int pair;
    double value;
  };
  const Expected expected[] = {
      {0, 1.0},                       // extrapolated: the original ω
      {20, 0.056234132519034905},     // the last extrapolated pair
      {21, 0.047292038501684786},     // ramp 1/26
      {30, 0.009488517882700574},     // ramp 10/26
      {45, 0.0004294025889973582},    // ramp 25/26
      {46, 0.00033338035804083096},   // interpolated: ω/4
      {63, 2.8869549617236455e-05},
  };
  for (const auto& [pair, value] : expected) {
    BOOST_TEST_CONTEXT("pair " << pair) {
      BOOST_TEST(std::fabs(w[static_cast<size_t>(pair)] - value) <= relative_bound(8, value));
    }
  }
  // 0.1·ln 4 + 1, computed in NumPy.
  BOOST_TEST(std::fabs(reference::rotary_magnitude(yarn) - 1.138629436111989) <= relative_bound(4, 1.14));
  BOOST_TEST(reference::rotary_magnitude(halves()) == 1.0);
  BOOST_TEST(reference::rotary_magnitude(scaled(ScalingType::linear, 4)) == 1.0);
}

// The NTK-aware base base·F^(r/(r−2)): 10000·4**(64/62) and 10000·4**(8/6) in NumPy.
BOOST_AUTO_TEST_CASE(ntk_base_formula) {
  const auto ntk = scaled(ScalingType::ntk, 4);
  BOOST_TEST(std::fabs(reference::rotary_base(64, ntk, std::nullopt) - 41829.36592889948) <=
             relative_bound(8, 41829.4));
  BOOST_TEST(std::fabs(reference::rotary_base(8, ntk, std::nullopt) - 63496.04207872797) <=
             relative_bound(8, 63496.0));
  // The frequencies are the unscaled schedule at that base.
  const auto w = reference::rotary_inv_freq(8, ntk, std::nullopt);
  const auto at_base = reference::rotary_inv_freq(8, halves(63496.04207872797), std::nullopt);
  for (size_t i = 0; i < w.size(); ++i) BOOST_TEST(std::fabs(w[i] - at_base[i]) <= relative_bound(16, w[i]));
}

BOOST_AUTO_TEST_CASE(dynamic_ntk_keeps_the_base_up_to_the_original_length) {
  const auto dynamic = scaled(ScalingType::dynamic_ntk, 2, 2048);
  for (Position len : {1, 100, 2047, 2048}) {
    BOOST_TEST(reference::rotary_base(64, dynamic, len) == 10000.0);
    BOOST_TEST((reference::rotary_inv_freq(64, dynamic, len) == reference::rotary_inv_freq(64, halves(), len)));
  }
  BOOST_TEST(reference::rotary_base(64, dynamic, std::nullopt) == 10000.0);
  BOOST_TEST(reference::rotary_base(64, dynamic, 2049) > 10000.0);
  // 10000·(2·4096/2048 − 1)**(64/62) in NumPy.
  BOOST_TEST(std::fabs(reference::rotary_base(64, dynamic, 4096) - 31082.236667168814) <=
             relative_bound(8, 31082.2));
  // At len = 3072, F·len/L − (F − 1) = 2 = F: the static NTK base for F = 2.
  BOOST_TEST(std::fabs(reference::rotary_base(64, dynamic, 3072) -
                       reference::rotary_base(64, scaled(ScalingType::ntk, 2), std::nullopt)) <=
             relative_bound(8, 20000));
  // The length comes from seq_len, else from the largest position.
  BOOST_TEST(reference::rotary_length({5, 3000, 7}, std::nullopt) == 3001);
  BOOST_TEST(reference::rotary_length({5, 7}, 4096) == 4096);
  BOOST_TEST(reference::rotary_length({}, std::nullopt) == 0);
  const Matrix x = random_matrix(2, 64, 7);
  const Matrix by_positions = reference::rotary({10, 4095}, x, dynamic, std::nullopt);
  const Matrix by_length = reference::rotary({10, 4095}, x, dynamic, 4096);
  BOOST_TEST((by_positions == by_length));
  const Matrix shorter = reference::rotary({10, 4095}, x, dynamic, 5000);
  BOOST_TEST(max_abs_diff(shorter, by_length) > 1e-3, "a longer sequence gets a larger base");
}

// Position interpolation: R_t under linear F equals R_{t/F} unscaled.
BOOST_AUTO_TEST_CASE(linear_scaling_divides_positions_by_the_factor) {
  const auto linear = scaled(ScalingType::linear, 4);
  const Matrix x = random_matrix(3, 16, 11);
  const Positions scaled_positions{0, 8, 4000}, plain_positions{0, 2, 1000};
  check_close(reference::rotary(scaled_positions, x, linear, std::nullopt),
              reference::rotary(plain_positions, x, halves(), std::nullopt), 4000);
}

BOOST_AUTO_TEST_CASE(rotation_preserves_norms_up_to_yarns_factor) {
  RotateConvention llama3 = halves(500000);
  llama3.scaling = {ScalingType::llama3, 8, 8192, 32, 1, 1, 4};
  const std::vector<RotateConvention> conventions = {
      halves(), scaled(ScalingType::linear, 4), scaled(ScalingType::ntk, 4), llama3,
      scaled(ScalingType::dynamic_ntk, 2, 2048), scaled(ScalingType::yarn, 4, 4096)};
  const Matrix x = random_matrix(4, 32, 3);
  const Positions positions{0, 1, 777, 9999};
  for (const auto& c : conventions) {
    BOOST_TEST_CONTEXT(name(c.scaling.type)) {
      const Matrix out = reference::rotary(positions, x, c, std::nullopt);
      const double m = reference::rotary_magnitude(c);
      for (Eigen::Index r = 0; r < x.rows(); ++r) {
        const double want = m * x.row(r).norm();
        BOOST_TEST(std::fabs(out.row(r).norm() - want) <= relative_bound(8 + 32, want));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(composition_and_identity_at_zero) {
  RotateConvention gptj;
  gptj.rotary_dim = 8;
  const Matrix x = random_matrix(1, 12, 5);
  for (const auto& c : {halves(), gptj, scaled(ScalingType::ntk, 4)}) {
    const Matrix once = reference::rotary({1234}, x, c, std::nullopt);
    const Matrix twice = reference::rotary({234}, reference::rotary({1000}, x, c, std::nullopt), c, std::nullopt);
    check_close(twice, once, 1234);
    BOOST_TEST((reference::rotary({0}, x, c, std::nullopt) == x), "R_0 is exactly the identity");
  }
}

// The halves layout is the interleaved one with the features permuted:
// pair i at (i, r/2 + i) instead of (2i, 2i+1).
BOOST_AUTO_TEST_CASE(halves_is_interleaved_under_a_column_permutation) {
  RotateConvention interleaved;
  interleaved.layout = Layout::interleaved;
  const int dim = 10;
  const Matrix x = random_matrix(2, dim, 9);
  Matrix permuted(2, dim);  // column 2i ← i, 2i+1 ← h + i
  for (int i = 0; i < dim / 2; ++i) {
    permuted.col(2 * i) = x.col(i);
    permuted.col(2 * i + 1) = x.col(dim / 2 + i);
  }
  const Matrix a = reference::rotary({3, 500}, x, halves(), std::nullopt);
  const Matrix b = reference::rotary({3, 500}, permuted, interleaved, std::nullopt);
  for (int i = 0; i < dim / 2; ++i) {
    BOOST_TEST((a.col(i) == b.col(2 * i)));
    BOOST_TEST((a.col(dim / 2 + i) == b.col(2 * i + 1)));
  }
}

// R_{−t} is R_t's inverse: the rotation direction is part of the reference.
BOOST_AUTO_TEST_CASE(rotation_direction_is_counterclockwise) {
  // Pair 0 of x = (1, 0) at t = 1 (ω_0 = 1) is (cos 1, sin 1).
  const Matrix out = reference::rotary({1}, row({1, 0}), halves(), std::nullopt);
  BOOST_TEST(std::fabs(out(0, 0) - std::cos(1.0)) <= relative_bound(4, 1));
  BOOST_TEST(std::fabs(out(0, 1) - std::sin(1.0)) <= relative_bound(4, 1));
}

BOOST_AUTO_TEST_CASE(undefined_conventions_are_refused) {
  const Matrix x = Matrix::Ones(1, 8);
  RotateConvention wide;
  wide.rotary_dim = 64;
  BOOST_CHECK_THROW(reference::rotary({1}, x, wide, std::nullopt), Refusal);
  RotateConvention odd;
  odd.rotary_dim = 3;
  BOOST_CHECK_THROW(reference::rotary({1}, x, odd, std::nullopt), Refusal);
  BOOST_CHECK_THROW(reference::rotary({1}, Matrix::Ones(1, 7), halves(), std::nullopt), Refusal);
  BOOST_CHECK_THROW(reference::rotary({1, 2}, x, halves(), std::nullopt), Refusal);
  BOOST_CHECK_THROW(reference::rotary_inv_freq(2, scaled(ScalingType::ntk, 4), std::nullopt), Refusal);
  BOOST_CHECK_THROW(reference::rotary_inv_freq(8, scaled(ScalingType::dynamic_ntk, 2, 0), 10), Refusal);
  BOOST_CHECK_THROW(reference::rotary_inv_freq(8, scaled(ScalingType::yarn, 4, 0), std::nullopt), Refusal);
  BOOST_CHECK_THROW(reference::rotary_inv_freq(8, scaled(ScalingType::linear, 0), std::nullopt), Refusal);
  RotateConvention llama3 = halves(500000);
  llama3.scaling = {ScalingType::llama3, 8, 8192, 32, 1, 4, 1};  // high_freq_factor below low_freq_factor
  BOOST_CHECK_THROW(reference::rotary_inv_freq(8, llama3, std::nullopt), Refusal);
  BOOST_CHECK_THROW(reference::rotary_inv_freq(8, halves(0), std::nullopt), Refusal);
  BOOST_CHECK_THROW(reference::rotary_inv_freq(8, halves(NAN), std::nullopt), Refusal);
}

BOOST_AUTO_TEST_SUITE_END()  // test_reference_rotary
