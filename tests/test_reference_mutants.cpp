// Each planted convention bug against the reference of what it declares: it
// differs where its bug says, by more than the error bound of its declared
// precision, and only there (elsewhere it is its correct twin).
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <map>
#include <string>

#include "pecheck/reference/attention.h"
#include "pecheck/reference/rotary.h"
#include "pecheck/reference/sinusoidal.h"
#include "pecheck/planted/mutants.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/typed_subject.h"
#include "support/bounds.h"
#include "support/rotation_error.h"

BOOST_AUTO_TEST_SUITE(test_reference_mutants)

using namespace pecheck;
using pecheck::testing::max_abs_diff;
using pecheck::testing::random_matrix;
using pecheck::testing::rotation_bound;

namespace {

struct Compared {
  Matrix got, want;  // the mutant's answer and the declared reference
  SubjectInfo info;
};

Compared rotate(const std::string& mutant, const Positions& positions, const Matrix& x,
                std::optional<Position> seq_len = std::nullopt) {
  auto subject = make_subject("mutant:" + mutant);
  return {ask::rotate(*subject, positions, x, seq_len), reference::rotary(positions, x, subject->info().rotate, seq_len),
          subject->info()};
}

// The bound for row r of a comparison: what a correct implementation of the
// declared precisions may be off by.
double row_bound(const Compared& c, const Matrix& x, Eigen::Index r, const Positions& positions) {
  return rotation_bound(c.info.dtype, c.info.angles_dtype(), positions[static_cast<size_t>(r)],
                        x.row(r).cwiseAbs().maxCoeff(), reference::rotary_magnitude(c.info.rotate));
}

// Columns [from, to) of row r agree with the reference within the bound
// (`agree`), or some entry there is off by more than it.
void expect_columns(const Compared& c, const Matrix& x, const Positions& positions, Eigen::Index r, int from, int to,
                    bool agree) {
  const double bound = row_bound(c, x, r, positions);
  const double error = max_abs_diff(c.got.row(r).segment(from, to - from), c.want.row(r).segment(from, to - from));
  if (agree) {
    BOOST_TEST(error <= bound, "row " << r << " columns [" << from << ", " << to << "): " << error << " > " << bound);
  } else {
    BOOST_TEST(error > bound, "row " << r << " columns [" << from << ", " << to << "): " << error << " <= " << bound);
  }
}

bool rows_equal(const Matrix& m, Eigen::Index a, Eigen::Index b) { return (m.row(a) - m.row(b)).norm() == 0.0; }

const Positions kPositions = {0, 1, 7, 300, 5000};

bool same_convention(const RotateConvention& a, const RotateConvention& b) {
  return a.base == b.base && a.rotary_dim == b.rotary_dim && a.rotary_fraction == b.rotary_fraction &&
         a.layout == b.layout && a.scaling.type == b.scaling.type && a.scaling.factor == b.scaling.factor &&
         a.scaling.original_max_position == b.scaling.original_max_position &&
         a.scaling.beta_fast == b.scaling.beta_fast && a.scaling.beta_slow == b.scaling.beta_slow &&
         a.scaling.low_freq_factor == b.scaling.low_freq_factor && a.scaling.high_freq_factor == b.scaling.high_freq_factor;
}

bool same_convention(const EncodeConvention& a, const EncodeConvention& b) {
  return a.base == b.base && a.schedule == b.schedule && a.position_offset == b.position_offset &&
         a.amplitude == b.amplitude && a.layout == b.layout;
}

}  // namespace

// A planted bug must look like its correct twin from the outside: the same
// declaration, the same expectations (scheme); only its answers differ.
BOOST_AUTO_TEST_CASE(each_convention_mutant_declares_what_its_twin_declares) {
  const std::map<std::string, std::string> twin = {
      {"rope-identity", "rope@llama"},
      {"rope-positions-ignored", "rope@llama"},
      {"rope-sin-cos-mismatch", "rope@llama"},
      {"rope-llama-bf16-inv-freq", "rope@llama-bf16"},
      {"sinusoidal-cos-odd-exponent", ""},  // declares the paper's interleaved table explicitly, as no built-in does
      {"rope-base-1000", "rope@llama"},
      {"rope-inverse-rotation", "rope@llama"},
      {"rope-partial-declared-full", "rope@llama"},
      {"rope-pass-through-zeroed", "rope@neox"},
      {"rope-pass-through-rotated", "rope@neox"},
      {"rope-dynamic-ntk-constant-base", "rope@dynamic-ntk"},
      {"rope-llama-bf16-cache-rebuild", "rope@llama-bf16"},
      {"rope-llama-bf16-angles-float16", "rope@llama-bf16"},
      {"rope-llama3-bands-swapped", "rope@llama3"},
      {"rope-llama3-smooth-reversed", "rope@llama3"},
      {"rope-yarn-no-attention-factor", "rope@yarn"},
      {"rope-llama3-wavelength-without-2pi", "rope@llama3"},
      {"rope-yarn-range-rounded", "rope@yarn"},  // and truncate: false, as GPT-OSS declares (tested below)
      {"rope-partial-applied-whole", "rope@neox"},
      {"sinusoidal-padding-row-leak", "sinusoidal@t2t"},
      {"sinusoidal-offset-ignored", "sinusoidal@fairseq"},
      {"sinusoidal-schedule-misdeclared", ""},  // declares a convention no built-in has
  };
  auto all = rope_convention_mutants();
  for (auto& e : encoder_convention_mutants()) all.push_back(std::move(e));
  BOOST_TEST(all.size() == twin.size(), "every convention mutant has a twin here and a test in this file");
  for (const auto& entry : all) {
    BOOST_TEST_CONTEXT(entry.name) {
      BOOST_REQUIRE(twin.count(entry.name) == 1u);
      const SubjectInfo info = make_subject("mutant:" + entry.name)->info();
      BOOST_TEST(info.name == entry.name);
      BOOST_TEST(format_spec(info.spec) == "mutant:" + entry.name);
      BOOST_TEST(!info.declared.empty());
      const std::string& twin_name = twin.at(entry.name);
      if (twin_name.empty()) continue;
      const SubjectInfo correct = make_subject("builtin:" + twin_name)->info();
      BOOST_TEST(info.scheme == twin_name);
      BOOST_TEST(info.declared == correct.declared);
      BOOST_TEST(info.ops == correct.ops);
      BOOST_TEST((info.dtype == correct.dtype && info.compute.angles == correct.compute.angles));
      BOOST_TEST(same_convention(info.rotate, correct.rotate));
      BOOST_TEST(same_convention(info.encode, correct.encode));
    }
  }
}

BOOST_AUTO_TEST_CASE(identity_returns_x_and_differs_from_every_nonzero_rotation) {
  const Matrix x = random_matrix(5, 16, 1);
  const auto c = rotate("rope-identity", kPositions, x);
  BOOST_TEST((c.got == x));
  expect_columns(c, x, kPositions, 0, 0, 16, true);  // R_0 = I
  for (Eigen::Index r = 1; r < x.rows(); ++r) expect_columns(c, x, kPositions, r, 0, 16, false);
}

// Pair 0 turns by t·1 at any base; every other pair by t·base^(−2i/d).
// Row r turns as position r, whatever position it is given.
BOOST_AUTO_TEST_CASE(positions_ignored_rotates_row_r_as_position_r) {
  const Positions given = {7, 300, 5000};
  const Matrix x = random_matrix(3, 16, 11);
  const auto c = rotate("rope-positions-ignored", given, x);
  const Positions rows = {0, 1, 2};
  const Matrix as_rows = reference::rotary(rows, x, c.info.rotate, std::nullopt);
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    BOOST_TEST(max_abs_diff(c.got.row(r), as_rows.row(r)) <= row_bound(c, x, r, given));
    expect_columns(c, x, given, r, 0, 16, false);
  }
}

// Halves layout: column i (< h) takes cos and sin of pair i, column i + h the
// cosine of pair i but the sine of pair ⌊(i + h)/2⌋: pair 0's first half is
// right, its second half is not once t > 0; position 0 is x itself.
BOOST_AUTO_TEST_CASE(sin_cos_mismatch_turns_the_second_half_by_another_sine) {
  const Positions ts = {0, 1, 300};
  const Matrix x = random_matrix(3, 16, 12);
  const auto c = rotate("rope-sin-cos-mismatch", ts, x);
  expect_columns(c, x, ts, 0, 0, 16, true);
  for (Eigen::Index r = 1; r < x.rows(); ++r) {
    expect_columns(c, x, ts, r, 0, 1, true);
    expect_columns(c, x, ts, r, 8, 9, false);
  }
}

// ω_i rounded to bfloat16 before t·ω_i: right at 0, off by t·Δω_i far out.
BOOST_AUTO_TEST_CASE(llama_bf16_inv_freq_drifts_with_the_position) {
  const Positions ts = {0, 5000};
  const Matrix x = random_matrix(2, 16, 13);
  const auto c = rotate("rope-llama-bf16-inv-freq", ts, x);
  expect_columns(c, x, ts, 0, 0, 16, true);
  expect_columns(c, x, ts, 1, 0, 16, false);
}

// pe[:, 2i] = sin(t·10000^(−2i/d)) as declared, pe[:, 2i+1] = cos(t·10000^(−(2i+1)/d)).
BOOST_AUTO_TEST_CASE(cos_odd_exponent_turns_each_cosine_one_column_slower) {
  auto bug = make_subject("mutant:sinusoidal-cos-odd-exponent");
  const Positions ts{0, 1, 3, 100};
  const Matrix got = ask::encode(*bug, 8, ts, 101);
  const Matrix want = reference::sinusoidal(8, ts, bug->info().encode);
  for (Eigen::Index r = 0; r < got.rows(); ++r) {
    for (Eigen::Index j = 0; j < 8; ++j) {
      const double error = std::fabs(got(r, j) - want(r, j));
      if (j % 2 == 0 || ts[static_cast<size_t>(r)] == 0) {
        BOOST_TEST(error <= 1e-12, "row " << r << " column " << j);
      } else {
        BOOST_TEST(error > 1e-9, "row " << r << " column " << j);  // t = 1, column 7: cosines 4.5e-7 apart
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(base_1000_differs_in_every_pair_but_the_first) {
  const Matrix x = random_matrix(5, 16, 2);
  const auto c = rotate("rope-base-1000", kPositions, x);
  BOOST_TEST(c.info.rotate.base == 10000, "it declares 10000");
  RotateConvention actual = c.info.rotate;
  actual.base = 1000;
  const Matrix as_computed = reference::rotary(kPositions, x, actual, std::nullopt);
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    BOOST_TEST(max_abs_diff(c.got.row(r), as_computed.row(r)) <= row_bound(c, x, r, kPositions));
    // halves layout: pair 0 is columns 0 and 8
    const double pair0 = std::max(std::fabs(c.got(r, 0) - c.want(r, 0)), std::fabs(c.got(r, 8) - c.want(r, 8)));
    BOOST_TEST(pair0 <= row_bound(c, x, r, kPositions));
  }
  for (Eigen::Index r = 1; r < x.rows(); ++r) expect_columns(c, x, kPositions, r, 1, 8, false);
}

BOOST_AUTO_TEST_CASE(inverse_rotation_is_the_reference_at_minus_t) {
  const Matrix x = random_matrix(5, 16, 3);
  const auto c = rotate("rope-inverse-rotation", kPositions, x);
  Positions negated;
  for (Position t : kPositions) negated.push_back(-t);
  const Matrix backwards = reference::rotary(negated, x, c.info.rotate, std::nullopt);
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    BOOST_TEST(max_abs_diff(c.got.row(r), backwards.row(r)) <= row_bound(c, x, r, kPositions));
  }
  expect_columns(c, x, kPositions, 0, 0, 16, true);
  for (Eigen::Index r = 1; r < x.rows(); ++r) expect_columns(c, x, kPositions, r, 0, 16, false);
}

// Declared full width; computes GPT-NeoX's quarter: the first 2·⌊d/8⌋ features
// are NeoX's reference, the others come back unrotated.
BOOST_AUTO_TEST_CASE(partial_rotary_declared_full_passes_through_what_it_declares_rotated) {
  const Matrix x = random_matrix(5, 32, 4);
  const auto c = rotate("rope-partial-declared-full", kPositions, x);
  BOOST_TEST(!c.info.rotate.rotary_dim.has_value());
  BOOST_TEST(!c.info.rotate.rotary_fraction.has_value());
  RotateConvention neox = c.info.rotate;
  neox.rotary_fraction = 0.25;
  const Matrix as_computed = reference::rotary(kPositions, x, neox, std::nullopt);
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    BOOST_TEST(max_abs_diff(c.got.row(r), as_computed.row(r)) <= row_bound(c, x, r, kPositions));
  }
  for (Eigen::Index r = 1; r < x.rows(); ++r) expect_columns(c, x, kPositions, r, 8, 32, false);
}

BOOST_AUTO_TEST_CASE(pass_through_zeroed_rotates_right_and_drops_the_tail) {
  const Matrix x = random_matrix(5, 32, 5);
  const auto c = rotate("rope-pass-through-zeroed", kPositions, x);
  const int r = reference::rotary_block(32, c.info.rotate);
  BOOST_TEST(r == 8);
  for (Eigen::Index row = 0; row < x.rows(); ++row) {
    expect_columns(c, x, kPositions, row, 0, r, true);
    expect_columns(c, x, kPositions, row, r, 32, false);
    BOOST_TEST(c.got.row(row).tail(32 - r).norm() == 0.0);
  }
}

// The tail's full r-wide blocks rotate like the first block; a partial block passes.
BOOST_AUTO_TEST_CASE(pass_through_rotated_turns_the_tail_blocks) {
  const Matrix x = random_matrix(5, 36, 6);  // r = 8: blocks [8, 16), [16, 24), [24, 32) rotate, [32, 36) passes
  const auto c = rotate("rope-pass-through-rotated", kPositions, x);
  RotateConvention block = c.info.rotate;
  block.rotary_fraction.reset();
  for (Eigen::Index row = 0; row < x.rows(); ++row) {
    expect_columns(c, x, kPositions, row, 0, 8, true);
    expect_columns(c, x, kPositions, row, 32, 36, true);
    if (row > 0) expect_columns(c, x, kPositions, row, 8, 32, false);
  }
  const Matrix second = reference::rotary(kPositions, x.middleCols(8, 8), block, std::nullopt);
  BOOST_TEST(max_abs_diff(c.got.middleCols(8, 8), second) <= row_bound(c, x, 4, kPositions));
}

// vllm #41236: the base of length L·F = 4096 at every length.
BOOST_AUTO_TEST_CASE(dynamic_ntk_constant_base_is_right_at_one_length_only) {
  const Matrix x = random_matrix(3, 64, 7);
  const Positions positions{0, 100, 1000};
  const auto at_4096 = rotate("rope-dynamic-ntk-constant-base", positions, x, 4096);
  for (Eigen::Index r = 0; r < x.rows(); ++r) expect_columns(at_4096, x, positions, r, 0, 64, true);
  for (Position len : {1001, 2048, 8000}) {
    BOOST_TEST_CONTEXT("seq_len " << len) {
      const auto c = rotate("rope-dynamic-ntk-constant-base", positions, x, len);
      for (Eigen::Index r = 1; r < x.rows(); ++r) expect_columns(c, x, positions, r, 0, 64, false);
    }
  }
}

// transformers 4.31–4.37: correct (bit for bit its twin) up to 2048 tokens;
// past them, positions 256 and 257 rotate alike.
BOOST_AUTO_TEST_CASE(llama_bf16_cache_rebuild_collapses_256_and_257_only_past_2048) {
  Matrix x(2, 64);
  const Matrix v = random_matrix(1, 64, 8);
  x << v, v;
  auto bug = make_subject("mutant:rope-llama-bf16-cache-rebuild");
  auto twin = make_subject("builtin:rope@llama-bf16");
  for (std::optional<Position> short_len : {std::optional<Position>{}, std::optional<Position>{2048}}) {
    const Matrix got = ask::rotate(*bug, {256, 257}, x, short_len);
    BOOST_TEST((got == ask::rotate(*twin, {256, 257}, x, short_len)));
    BOOST_TEST(!rows_equal(got, 0, 1));
  }
  const Matrix long_request = ask::rotate(*bug, {256, 257}, x, 4096);
  BOOST_TEST(rows_equal(long_request, 0, 1), "256 and 257 share a bfloat16 position");
  BOOST_TEST(!rows_equal(ask::rotate(*twin, {256, 257}, x, 4096), 0, 1));
  // Past 2048 the whole table is bfloat16: off the declared float32 angles by
  // far more than their bound (at t = 257 by a whole radian in pair 0).
  const auto c = rotate("rope-llama-bf16-cache-rebuild", {256, 257}, x, 4096);
  expect_columns(c, x, {256, 257}, 1, 0, 64, false);
  // Without seq_len the length is max(position) + 1.
  Matrix three(3, 64);
  three << v, v, random_matrix(1, 64, 9);
  BOOST_TEST(rows_equal(ask::rotate(*bug, {256, 257, 3000}, three, std::nullopt), 0, 1));
  BOOST_TEST(!rows_equal(ask::rotate(*bug, {256, 257, 2000}, three, std::nullopt), 0, 1));
}

BOOST_AUTO_TEST_CASE(llama_bf16_with_float16_angles_breaks_its_declared_float32_angles) {
  const Matrix x = random_matrix(5, 64, 10);
  const auto c = rotate("rope-llama-bf16-angles-float16", kPositions, x);
  BOOST_TEST(name(c.info.angles_dtype()) == "float32");
  expect_columns(c, x, kPositions, 0, 0, 64, true);
  expect_columns(c, x, kPositions, 4, 0, 64, false);  // t = 5000: float16 angles are 2-apart there
  // float16 has no 2049: pair 0 (ω = 1, halves columns 0 and 32) of t = 2048
  // and 2049 turn alike.
  Matrix same(2, 64);
  same << x.row(0), x.row(0);
  const Matrix p = ask::rotate(*make_subject("mutant:rope-llama-bf16-angles-float16"), {2048, 2049}, same, std::nullopt);
  BOOST_TEST(p(0, 0) == p(1, 0));
  BOOST_TEST(p(0, 32) == p(1, 32));
}

// Llama 3.1 at d = 128 (pair i at columns i and 64 + i), from NumPy:
// λ_i = 2π·500000^(i/64) < 2048 for i ≤ 28 (λ_28 = 1956), in [2048, 8192] for
// 29 ≤ i ≤ 34 (λ_29 = 2402, λ_34 = 6695, smoothing s from 0.80 down to 0.075),
// > 8192 from i = 35 (λ_35 = 8219).
BOOST_AUTO_TEST_CASE(llama3_bugs_differ_in_the_bands_they_break) {
  RotateConvention llama3 = make_subject("builtin:rope@llama3")->info().rotate;
  RotateConvention unscaled = llama3;
  unscaled.scaling = {};
  const auto w = reference::rotary_inv_freq(128, unscaled, std::nullopt);
  const double pi2 = 2 * 3.14159265358979323846;
  BOOST_TEST(pi2 / w[28] < 2048);
  BOOST_TEST(pi2 / w[29] >= 2048);
  BOOST_TEST(pi2 / w[34] <= 8192);
  BOOST_TEST(pi2 / w[35] > 8192);

  const Matrix x = random_matrix(1, 128, 11);
  const Positions t{9000};
  auto pair_error = [&](const Compared& c, int i) {
    return std::max(std::fabs(c.got(0, i) - c.want(0, i)), std::fabs(c.got(0, 64 + i) - c.want(0, 64 + i)));
  };
  const auto swapped = rotate("rope-llama3-bands-swapped", t, x);
  const auto reversed = rotate("rope-llama3-smooth-reversed", t, x);
  const double bound = row_bound(swapped, x, 0, t);
  for (int i = 0; i < 64; ++i) {
    const bool high = i <= 28, low = i >= 35, medium = !high && !low;
    BOOST_TEST_CONTEXT("pair " << i) {
      // Swapped bands: the outer bands wrong, the medium band's smoothing as published.
      if (medium) BOOST_TEST(pair_error(swapped, i) <= bound);
      // Reversed smoothing: the outer bands right; the medium band wrong except where s = 1/2.
      if (!medium) BOOST_TEST(pair_error(reversed, i) <= bound);
    }
  }
  // Pair 0 (ω = 1, turned by 9000/8 instead of 9000) and pair 63 (kept, not divided).
  BOOST_TEST(pair_error(swapped, 0) > bound);
  BOOST_TEST(pair_error(swapped, 63) > bound);
  BOOST_TEST(pair_error(reversed, 29) > bound);
  BOOST_TEST(pair_error(reversed, 32) > bound);
}

BOOST_AUTO_TEST_CASE(yarn_without_its_attention_factor_is_short_by_it) {
  const Matrix x = random_matrix(5, 64, 12);
  const auto c = rotate("rope-yarn-no-attention-factor", kPositions, x);
  const double m = reference::rotary_magnitude(c.info.rotate);
  BOOST_TEST(m > 1.13);
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    BOOST_TEST(max_abs_diff(c.got.row(r), c.want.row(r) / m) <= row_bound(c, x, r, kPositions));
    expect_columns(c, x, kPositions, r, 0, 64, false);
  }
}

// Wavelength 1/ω: the bands are placed as if L were 2π·8192 = 51472: the short wavelengths (< 2048) and the
// longest (> 51472) as published, those between wrong.
BOOST_AUTO_TEST_CASE(llama3_wavelength_without_2pi_breaks_the_bands_between) {
  RotateConvention unscaled = make_subject("builtin:rope@llama3")->info().rotate;
  unscaled.scaling = {};
  const auto w = reference::rotary_inv_freq(128, unscaled, std::nullopt);
  const double pi2 = 2 * 3.14159265358979323846;
  const Matrix x = random_matrix(1, 128, 13);
  const Positions t{9000};
  const auto c = rotate("rope-llama3-wavelength-without-2pi", t, x);
  const double bound = row_bound(c, x, 0, t);
  auto pair_error = [&](int i) {
    return std::max(std::fabs(c.got(0, i) - c.want(0, i)), std::fabs(c.got(0, 64 + i) - c.want(0, 64 + i)));
  };
  for (int i = 0; i < 64; ++i) {
    const double wavelength = pi2 / w[static_cast<size_t>(i)];
    BOOST_TEST_CONTEXT("pair " << i << ", wavelength " << wavelength) {
      if (wavelength < 2048 || wavelength > pi2 * 8192 * 1.01) BOOST_TEST(pair_error(i) <= bound);
      if (wavelength > 8192 * 1.01 && wavelength < pi2 * 2048) BOOST_TEST(pair_error(i) > bound);
    }
  }
}

BOOST_AUTO_TEST_CASE(yarn_range_rounded_computes_truncate_true_where_false_is_declared) {
  const Matrix x = random_matrix(5, 64, 14);
  const auto c = rotate("rope-yarn-range-rounded", kPositions, x);
  BOOST_TEST(!c.info.rotate.scaling.truncate);  // it declares GPT-OSS's unrounded range
  RotateConvention rounded = c.info.rotate;
  rounded.scaling.truncate = true;
  const Matrix want_rounded = reference::rotary(kPositions, x, rounded, std::nullopt);
  for (Eigen::Index r = 1; r < x.rows(); ++r) {
    BOOST_TEST(max_abs_diff(c.got.row(r), want_rounded.row(r)) <= row_bound(c, x, r, kPositions));
  }
  expect_columns(c, x, kPositions, 4, 0, 64, false);  // at 5000 the ramp's rounded ends show
}

BOOST_AUTO_TEST_CASE(partial_applied_whole_rotates_every_feature_by_the_full_width_schedule) {
  const Matrix x = random_matrix(5, 64, 15);
  const auto c = rotate("rope-partial-applied-whole", kPositions, x);
  RotateConvention whole = c.info.rotate;
  whole.rotary_fraction.reset();
  const Matrix want_whole = reference::rotary(kPositions, x, whole, std::nullopt);
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    BOOST_TEST(max_abs_diff(c.got.row(r), want_whole.row(r)) <= row_bound(c, x, r, kPositions));
  }
  expect_columns(c, x, kPositions, 3, 16, 64, false);  // the declared pass-through features turn
}

// Encoders ---------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(padding_row_leak_zeroes_position_1_only) {
  auto bug = make_subject("mutant:sinusoidal-padding-row-leak");
  const Positions ts{0, 1, 2, 3, 100};
  const Matrix got = ask::encode(*bug, 8, ts, 101);
  const Matrix want = reference::sinusoidal(8, ts, bug->info().encode);
  for (Eigen::Index r = 0; r < got.rows(); ++r) {
    if (ts[static_cast<size_t>(r)] == 1) {
      BOOST_TEST(got.row(r).norm() == 0.0);
      BOOST_TEST(want.row(r).norm() > 1.0);
    } else {
      BOOST_TEST((got.row(r) == want.row(r)));
    }
  }
}

// ω_0 = 1 under both schedules; every later pair differs.
BOOST_AUTO_TEST_CASE(schedule_misdeclared_computes_the_other_schedule) {
  auto bug = make_subject("mutant:sinusoidal-schedule-misdeclared");
  const EncodeConvention declared = bug->info().encode;
  BOOST_TEST(name(declared.schedule) == "2i/d");
  EncodeConvention actual = declared;
  actual.schedule = Schedule::i_over_h_minus_1;
  const Matrix got = ask::encode(*bug, 8, {37}, 38);
  BOOST_TEST((got == reference::sinusoidal(8, {37}, actual)));
  const Matrix want = reference::sinusoidal(8, {37}, declared);
  BOOST_TEST(got(0, 0) == want(0, 0));  // pair 0's sine (halves: columns 0 and 4)
  BOOST_TEST(got(0, 4) == want(0, 4));
  for (int i = 1; i < 4; ++i) BOOST_TEST(std::fabs(got(0, i) - want(0, i)) > 1e-3, "pair " << i);
}

BOOST_AUTO_TEST_CASE(offset_ignored_encodes_t_instead_of_t_plus_2) {
  auto bug = make_subject("mutant:sinusoidal-offset-ignored");
  const EncodeConvention declared = bug->info().encode;
  BOOST_TEST(declared.position_offset == 2);
  const Positions ts{0, 5, 700};
  const Matrix got = ask::encode(*bug, 16, ts, 701);
  EncodeConvention no_offset = declared;
  no_offset.position_offset = 0;
  BOOST_TEST((got == reference::sinusoidal(16, ts, no_offset)));
  const Matrix want = reference::sinusoidal(16, ts, declared);
  for (Eigen::Index r = 0; r < got.rows(); ++r) BOOST_TEST(max_abs_diff(got.row(r), want.row(r)) > 0.1);
}

// Attention ----------------------------------------------------------------------

// tril(ones, diagonal=1): row i also sees key i + 1, so every row but the last
// differs from causal attention; other masks are unaffected.
BOOST_AUTO_TEST_CASE(causal_lookahead_sees_one_future_key) {
  auto bug = make_subject("mutant:attention-causal-lookahead");
  const Matrix q = random_matrix(5, 4, 13), k = random_matrix(5, 4, 14), v = random_matrix(5, 3, 15);
  const Matrix got = ask::attention(*bug, q, k, v, AttentionMask::causal(), 1);
  const Matrix want = reference::attention(q, k, v, AttentionMask::causal(), 1);
  const double bound = testing::bound_in(Dtype::float64, 4 + 5 + 5, 4);
  for (Eigen::Index i = 0; i + 1 < got.rows(); ++i) BOOST_TEST(max_abs_diff(got.row(i), want.row(i)) > bound);
  BOOST_TEST(max_abs_diff(got.row(4), want.row(4)) <= bound);
  BoolMatrix band(5, 5);
  for (Eigen::Index i = 0; i < 5; ++i)
    for (Eigen::Index j = 0; j < 5; ++j) band(i, j) = j <= i + 1;
  BOOST_TEST(max_abs_diff(got, reference::attention(q, k, v, AttentionMask::boolean(band), 1)) <= bound);
  BOOST_TEST(max_abs_diff(ask::attention(*bug, q, k, v, AttentionMask::none(), 1),
                          reference::attention(q, k, v, AttentionMask::none(), 1)) <= bound);
}

BOOST_AUTO_TEST_SUITE_END()  // test_reference_mutants
