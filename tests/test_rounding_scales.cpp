// Issue 36 (stop 48): the sizes the tight bounds take a rounding relative to
// (BoundTerm::typical_scale). A sum's errors follow its partial sums
// (sum_rounding.h), a layer's its rows (module::Magnitude), each output its
// own (compare_entries_each); the worst case keeps its scale.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <vector>

#include "module/support.h"
#include "pecheck/core/dtype.h"
#include "pecheck/gen/fast_random.h"
#include "pecheck/property/compare.h"
#include "pecheck/result/judge.h"
#include "pecheck/result/tight_bound.h"
#include "sum_rounding.h"

BOOST_AUTO_TEST_SUITE(test_rounding_scales)

using namespace pecheck;

BOOST_AUTO_TEST_CASE(a_typical_scale_moves_the_tight_bound_alone) {
  SubjectInfo info;
  info.dtype = Dtype::float32;
  const BoundModel model(ErrorModel{}, "combine.add_subsumes_concat", info);
  Bound b = Bound::upper(64, 100, "64 roundings · Σ|t|");
  b.probabilistic(1, "apart");
  const double u = unit_roundoff(Dtype::float32);
  BOOST_TEST(tight_value(model, b)->bound == model.factor() * u * 8 * 100, boost::test_tools::tolerance(1e-12));
  b.terms.front().typical_scale = 5;
  BOOST_TEST(tight_value(model, b)->bound == model.factor() * u * 8 * 5, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(b.terms.front().scale == 100);  // the worst case's
  // A 16-bit sum stagnates (its errors share a sign once the partial sums reach Σ|t|): worst case whole.
  info.dtype = Dtype::float16;
  const BoundModel half(ErrorModel{}, "combine.add_subsumes_concat", info);
  BOOST_TEST(tight_value(half, b)->bound == half.factor() * unit_roundoff(Dtype::float16) * 64 * 100,
             boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(a_sums_rounding_scale_is_its_partial_sums) {
  // Terms of one sign: the partial sums grow to Σ|t|. Alternating signs: they stay at one term.
  const Vector ones = Vector::Ones(100);
  Vector signs(100);
  for (Eigen::Index k = 0; k < 100; ++k) signs(k) = k % 2 == 0 ? 1 : -1;
  double sum = 0;
  const double same = rounding::product_squares(ones, ones, sum);
  BOOST_TEST(sum == 100);
  double alternating_sum = 0;
  const double alternating = rounding::product_squares(signs, ones, alternating_sum);
  BOOST_TEST(alternating_sum == 0);
  BOOST_TEST(same == 338450);        // Σ (1 + k²), k = 1..100
  BOOST_TEST(alternating == 150);    // Σ (1 + (1 or 0))
}

BOOST_AUTO_TEST_CASE(float32_sums_err_as_their_partial_sums_say) {
  // The model u·√Σ(t² + s²) against real float32 recursive sums of random-signed products, n = 16 to 4,096:
  // over 2,000 sums the largest error is within a small multiple of it (the factor 8 judges) and not far
  // under it (a model 100 times too loose would fail the second test).
  gen::FastRandom random(36);
  double largest = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const Eigen::Index n = Eigen::Index{16} << (trial % 9);
    Vector a(n), b(n);
    for (Eigen::Index k = 0; k < n; ++k) {
      a(k) = static_cast<float>(random.uniform(-4, 4));
      b(k) = static_cast<float>(random.uniform(-4, 4));
    }
    float single = 0;
    long double exact = 0;
    for (Eigen::Index k = 0; k < n; ++k) {
      single += static_cast<float>(a(k)) * static_cast<float>(b(k));
      exact += static_cast<long double>(a(k)) * b(k);
    }
    double sum = 0;
    const double model = unit_roundoff(Dtype::float32) * std::sqrt(rounding::product_squares(a, b, sum));
    largest = std::max(largest, static_cast<double>(std::fabs(single - exact)) / model);
  }
  BOOST_TEST_MESSAGE("largest float32 error over u·√Σ(t² + s²): " << largest);
  BOOST_TEST(largest < 4.0);
  BOOST_TEST(largest > 0.5);
}

BOOST_AUTO_TEST_CASE(each_entry_is_judged_against_its_own_size) {
  Matrix expected(2, 2), observed(2, 2), sizes(2, 2);
  expected << 100, 1, 1, 1;
  observed << 100.5, 1, 1, 1.01;
  sizes << 100, 1, 1, 0.01;
  // The largest error is at (0, 0), the largest against its size at (1, 1).
  Check plain = compare_entries("c", observed, expected, Bound::upper(1, 100, "w"));
  BOOST_TEST(*plain.where.row == 0);
  Check each = compare_entries_each("c", observed, expected, sizes, Bound::upper(1, 100, "w"));
  BOOST_TEST(*each.where.row == 1);
  BOOST_TEST(*each.where.column == 1);
  BOOST_TEST(each.error == 0.01, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(each.bound.terms.front().typical_scale == 0.01);
  BOOST_TEST(each.bound.terms.front().scale == 100);
}

BOOST_AUTO_TEST_CASE(a_layers_rounding_follows_its_largest_row) {
  // One entry of 40 in a row of 64 ones: the worst case takes 40, the tight bounds that row's
  // root mean square, √((63 + 1600)/64) ≈ 5.1.
  Matrix x = Matrix::Ones(3, 64);
  x(1, 7) = 40;
  const Batch batch{x};
  const module::Magnitude m = module::scale_of(batch, {});
  BOOST_TEST(m.largest == 40);
  BOOST_TEST(m.row_rms == std::sqrt((63.0 + 1600.0) / 64.0), boost::test_tools::tolerance(1e-12));
  SubjectInfo info;
  const Bound b = module::comparison_bound(info, 64, 3, 0, m, 0, 8, 0);
  BOOST_TEST(b.terms.front().scale == 40);
  BOOST_TEST(b.terms.front().typical_scale == m.row_rms);
}

BOOST_AUTO_TEST_SUITE_END()
