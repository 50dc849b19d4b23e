// Core value types: dtype rounding, the error model, generators and shrinking.
#include <boost/test/unit_test.hpp>
#include <rapidcheck.h>

#include <cmath>
#include <functional>

#include "pecheck/core/dtype.h"
#include "pecheck/core/json.h"
#include "pecheck/core/tolerance.h"
#include "pecheck/result/judge.h"
#include "pecheck/gen/matrix.h"
#include "pecheck/gen/permutation.h"

BOOST_AUTO_TEST_SUITE(test_core)

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
  SubjectInfo float32;
  float32.dtype = Dtype::float32;
  const Bound ten_terms = Bound::upper(10, 2, "10 terms · scale 2");
  const Tolerance t = BoundModel(m, "x.y", float32).evaluate(ten_terms);
  BOOST_TEST(t.bound == 8 * std::ldexp(1.0, -24) * 10 * 2);
  BOOST_TEST(t.formula.find("float32") != std::string::npos);
  m.overrides["x.y"] = 16;
  BOOST_TEST(BoundModel(m, "x.y", float32).value(ten_terms) == 2 * t.bound);
  BOOST_TEST(BoundModel(m, "other.id", float32).value(ten_terms) == t.bound);  // the override is the id's alone
  m.absolute["x.y"] = 1e-3;
  BOOST_TEST(BoundModel(m, "x.y", float32).value(ten_terms) == 1e-3);
  BOOST_TEST(BoundModel(m, "z.w", float32).value(Bound::exact("x + 0 = x")) == 0.0);
  SubjectInfo float16;
  float16.dtype = Dtype::float16;
  BOOST_TEST(BoundModel(m, "a.b", float16).value(Bound::upper(1, 1, "w")) == 8 * std::ldexp(1.0, -11));
}

// Mixed precision (SUBJECT-PROTOCOL v2 `compute`): each term is rounded in its stage's dtype.
BOOST_AUTO_TEST_CASE(bounds_take_each_stage_in_its_declared_precision) {
  SubjectInfo mixed;
  mixed.dtype = Dtype::bfloat16;
  mixed.compute.angles = Dtype::float32;
  const BoundModel model(ErrorModel{}, "rope.x", mixed);
  Bound b = Bound::upper(5, 1, "values", Stage::values);
  b.plus(Stage::angles, 300, 1, "angles");
  const Tolerance t = model.evaluate(b);
  BOOST_TEST(t.bound == 8 * (5 * std::ldexp(1.0, -8) + 300 * std::ldexp(1.0, -24)));
  BOOST_TEST(t.formula.find("u(bfloat16) + u(float32)") != std::string::npos, t.formula);
  BOOST_TEST(name(model.dtype(Stage::accumulate)) == "bfloat16");  // undeclared stages follow dtype
}

// The judge: every check judged, the deciding one named, a lower bound read as a floor,
// a bound past what is physically possible reported as not checkable.
BOOST_AUTO_TEST_CASE(the_judge_decides_by_the_check_furthest_past_its_bound) {
  SubjectInfo f64;
  const BoundModel model(ErrorModel{}, "p.q", f64);
  Check small{"small", 1e-20, Bound::upper(1, 1, "1"), {}, {}, {}, {}};
  Check big{"big", 1.0, Bound::upper(1, 1, "1"), {}, {}, {}, {}};
  CaseJudgement j = judge({{small, big}, "case"}, model, {"small", "big"});
  BOOST_TEST(name(j.verdict) == "fail");
  BOOST_TEST(j.deciding().check.name == "big");
  BOOST_TEST(name(j.checks[0].verdict) == "pass");

  Check apart{"apart", 0.5, Bound::lower(1, 1, "1"), {}, {}, {}, {}};
  BOOST_TEST(name(judge({{apart}, ""}, model, {"apart"}).verdict) == "pass");
  apart.error = 1e-30;  // closer than one rounding: a collision
  BOOST_TEST(name(judge({{apart}, ""}, model, {"apart"}).verdict) == "fail");

  Check hopeless{"hopeless", 1.0, Bound::upper(1e30, 1, "huge"), {}, {}, {}, {}};
  hopeless.bound.at_most(2.0);
  BOOST_TEST(name(judge({{hopeless}, ""}, model, {"hopeless"}).verdict) == "not checkable");

  Check nan{"nan", std::nan(""), Bound::upper(1e30, 1, "huge"), {}, {}, {}, {}};
  BOOST_TEST(name(judge({{nan}, ""}, model, {"nan"}).verdict) == "fail");

  // A measurement that measures nothing, or names a check it did not declare, is a defect.
  BOOST_CHECK_THROW(judge({{}, ""}, model, {"x"}), std::logic_error);
  BOOST_CHECK_THROW(judge({{small}, ""}, model, {"other"}), std::logic_error);
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

BOOST_AUTO_TEST_SUITE_END()  // test_core
