// Core value types: dtype rounding, the error model, generators and shrinking.
#define BOOST_TEST_MODULE core
#include <boost/test/unit_test.hpp>
#include <rapidcheck.h>

#include <cmath>
#include <functional>

#include "pecheck/core/dtype.h"
#include "pecheck/core/json.h"
#include "pecheck/core/tolerance.h"
#include "pecheck/gen/matrix.h"
#include "pecheck/gen/permutation.h"

using namespace pecheck;

namespace {
// Walks RapidCheck's shrink tree greedily, as its shrinker does, keeping the
// first candidate that still satisfies `fails`: the minimal failing value.
template <class T>
T shrink_fully(rc::Shrinkable<T> s, const std::function<bool(const T&)>& fails) {
  bool progressed = true;
  while (progressed) {
    progressed = false;
    auto seq = s.shrinks();
    while (auto next = seq.next()) {
      if (fails(next->value())) {
        s = *next;
        progressed = true;
        break;
      }
    }
  }
  return s.value();
}
}  // namespace

BOOST_AUTO_TEST_CASE(round_to_matches_ieee_formats) {
  BOOST_TEST(round_to(Dtype::float16, 2049.0) == 2048.0);  // ties to even
  BOOST_TEST(round_to(Dtype::float16, 2051.0) == 2052.0);
  BOOST_TEST(round_to(Dtype::float16, 2047.0) == 2047.0);  // integers exact below 2048
  BOOST_TEST(round_to(Dtype::float16, 65504.0) == 65504.0);
  BOOST_TEST(std::isinf(round_to(Dtype::float16, 70000.0)));
  BOOST_TEST(round_to(Dtype::float16, 1.0 / 3) == 0.333251953125);
  BOOST_TEST(round_to(Dtype::bfloat16, 257.0) == 256.0);
  BOOST_TEST(round_to(Dtype::bfloat16, 1.0 / 3) == 0.333984375);
  BOOST_TEST(round_to(Dtype::float32, 0.1) == static_cast<double>(0.1f));
  BOOST_TEST(round_to(Dtype::float16, 1e-8) == 0.0);  // below the smallest subnormal / 2
  BOOST_TEST(round_to(Dtype::float16, 6e-8) == std::ldexp(1.0, -24));  // smallest subnormal
  BOOST_TEST(exact_integer_limit(Dtype::float16) == 2048.0);
}

BOOST_AUTO_TEST_CASE(unit_roundoff_per_dtype) {
  BOOST_TEST(unit_roundoff(Dtype::float64) == std::ldexp(1.0, -53));
  BOOST_TEST(unit_roundoff(Dtype::float32) == std::ldexp(1.0, -24));
  BOOST_TEST(unit_roundoff(Dtype::float16) == std::ldexp(1.0, -11));
  BOOST_TEST(unit_roundoff(Dtype::bfloat16) == std::ldexp(1.0, -8));
  BOOST_TEST(name(parse_dtype("bfloat16").value()) == "bfloat16");
  BOOST_TEST(!parse_dtype("float8").has_value());
}

BOOST_AUTO_TEST_CASE(error_model_scales_with_dtype_work_and_overrides) {
  ErrorModel m;
  m.dtype = Dtype::float32;
  const Tolerance t = m.bound("x.y", 10, 2, "10 terms · scale 2");
  BOOST_TEST(t.bound == 8 * std::ldexp(1.0, -24) * 10 * 2);
  BOOST_TEST(t.formula.find("float32") != std::string::npos);
  m.overrides["x.y"] = 16;
  BOOST_TEST(m.bound("x.y", 10, 2, "w").bound == 2 * t.bound);
  m.absolute["x.y"] = 1e-3;
  BOOST_TEST(m.bound("x.y", 10, 2, "w").bound == 1e-3);
  BOOST_TEST(m.exact("z.w", "x + 0 = x").bound == 0.0);
  m.dtype = Dtype::float16;
  BOOST_TEST(m.bound("a.b", 1, 1, "w").bound == 8 * std::ldexp(1.0, -11));
}

BOOST_AUTO_TEST_CASE(json_round_trips_non_finite_numbers) {
  Matrix m(1, 3);
  m << 1.5, NAN, -INFINITY;
  const json j = matrix_to_json(m);
  BOOST_TEST(j.dump() == R"([[1.5,"NaN","-Infinity"]])");
  const Matrix back = matrix_from_json(j);
  BOOST_TEST(back(0, 0) == 1.5);
  BOOST_TEST(std::isnan(back(0, 1)));
  BOOST_TEST(back(0, 2) == -INFINITY);
  BOOST_CHECK_THROW(matrix_from_json(json::parse("[[1,2],[3]]")), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(matrix_generator_is_bounded_and_shrinks_to_readable_values) {
  const auto gen = gen::matrix(3, 4, -4, 4);
  const auto s = gen(rc::Random(42), 50);
  const Matrix m = s.value();
  BOOST_TEST(m.rows() == 3);
  BOOST_TEST(m.cols() == 4);
  BOOST_TEST(m.cwiseAbs().maxCoeff() <= 4.0);
  // Same seed, same values: generation is reproducible.
  BOOST_TEST(gen(rc::Random(42), 50).value().isApprox(m, 0));
  // A failure that needs entry (1,2) >= 1 shrinks to a matrix of zeros but that one entry, 1.
  Matrix big = m;
  big(1, 2) = 3.7;
  const Matrix minimal = shrink_fully<Matrix>(
      rc::shrinkable::shrinkRecur(big, &gen::shrink_matrix), [](const Matrix& x) { return x(1, 2) >= 1; });
  Matrix expected = Matrix::Zero(3, 4);
  expected(1, 2) = 1;
  BOOST_TEST(minimal.isApprox(expected, 0), "shrunk to\n" << minimal);
}

BOOST_AUTO_TEST_CASE(permutation_shrinks_toward_a_single_swap) {
  const auto gen = gen::permutation(6);
  for (int seed = 0; seed < 20; ++seed) {
    const auto s = gen(rc::Random(static_cast<std::uint64_t>(seed)), 100);
    BOOST_TEST(!s.value().is_identity());
    // "Any non-identity permutation fails": the minimal one moves exactly two items.
    const Permutation p = shrink_fully<Permutation>(s, [](const Permutation& x) { return !x.is_identity(); });
    int moved = 0;
    for (int i = 0; i < p.size(); ++i) moved += p.image[static_cast<size_t>(i)] != i;
    BOOST_TEST(moved == 2);
  }
}

BOOST_AUTO_TEST_CASE(permutation_applies_rows_columns_and_both) {
  Permutation p{{1, 0, 2}};
  Matrix x(3, 3);
  x << 1, 2, 3, 4, 5, 6, 7, 8, 9;
  Matrix rows(3, 3);
  rows << 4, 5, 6, 1, 2, 3, 7, 8, 9;
  BOOST_TEST(p.apply_rows(x).isApprox(rows, 0));
  Matrix both(3, 3);
  both << 5, 4, 6, 2, 1, 3, 8, 7, 9;
  BOOST_TEST(p.apply_both(x).isApprox(both, 0));
}
