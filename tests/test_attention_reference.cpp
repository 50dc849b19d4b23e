// The attention reference (src/reference/attention.h) and builtin:attention:
// values worked by hand, the masks, heads, and the inputs it refuses.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>

#include "pecheck/reference/attention.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/typed_subject.h"

BOOST_AUTO_TEST_SUITE(test_attention_reference)

using namespace pecheck;

namespace {
Matrix rows_of(std::initializer_list<std::initializer_list<double>> r) {
  Matrix m(static_cast<Eigen::Index>(r.size()), static_cast<Eigen::Index>(r.begin()->size()));
  Eigen::Index i = 0;
  for (const auto& row : r) {
    Eigen::Index j = 0;
    for (double x : row) m(i, j++) = x;
    ++i;
  }
  return m;
}
}  // namespace

BOOST_AUTO_TEST_CASE(one_query_two_keys_by_hand) {
  auto s = make_subject("builtin:attention");
  const Matrix q = rows_of({{1, 0}}), k = rows_of({{1, 0}, {0, 1}}), v = rows_of({{1}, {3}});
  // Logits 1/√2 and 0; weight of key 0 is σ(1/√2).
  const double w0 = 1 / (1 + std::exp(-1 / std::sqrt(2.0)));
  const Matrix y = ask::attention(*s, q, k, v, AttentionMask::none(), 1);
  BOOST_TEST(y(0, 0) == w0 * 1 + (1 - w0) * 3, boost::test_tools::tolerance(1e-15));
  const Matrix h = ask::logits(*s, q, k, AttentionMask::none());
  BOOST_TEST(h(0, 0) == 1 / std::sqrt(2.0), boost::test_tools::tolerance(1e-15));
  BOOST_TEST(h(0, 1) == 0.0);
}

BOOST_AUTO_TEST_CASE(causal_and_boolean_masks) {
  auto s = make_subject("builtin:attention");
  const Matrix x = rows_of({{1}, {2}, {3}});
  // Query 0 sees only key 0: its output is v_0 exactly.
  const Matrix y = ask::attention(*s, x, x, x, AttentionMask::causal(), 1);
  BOOST_TEST(y(0, 0) == 1.0);
  BOOST_TEST(y(1, 0) > 1.0);
  BoolMatrix only_last(3, 3);
  only_last.setConstant(false);
  only_last.col(2).setConstant(true);
  const Matrix z = ask::attention(*s, x, x, x, AttentionMask::boolean(only_last), 1);
  for (Eigen::Index i = 0; i < 3; ++i) BOOST_TEST(z(i, 0) == 3.0);
  const Matrix h = ask::logits(*s, x, x, AttentionMask::causal());
  BOOST_TEST(h(0, 1) == -std::numeric_limits<double>::infinity());
  BOOST_TEST(h(1, 0) == 2.0);
}

BOOST_AUTO_TEST_CASE(heads_split_features_and_concatenate) {
  auto s = make_subject("builtin:attention");
  const Matrix q = rows_of({{1, -2, 0.5, 3}, {0, 1, -1, 2}});
  const Matrix k = rows_of({{2, 1, -1, 0}, {-1, 0.5, 2, 1}, {0, 0, 1, -3}});
  const Matrix v = rows_of({{1, 2}, {3, -4}, {5, 6}});
  const Matrix y = ask::attention(*s, q, k, v, AttentionMask::none(), 2);
  for (int head = 0; head < 2; ++head) {
    const Matrix one = reference::attention(q.middleCols(2 * head, 2), k.middleCols(2 * head, 2), v.col(head),
                                            AttentionMask::none(), 1);
    BOOST_TEST(y(0, head) == one(0, 0));
    BOOST_TEST(y(1, head) == one(1, 0));
  }
}

BOOST_AUTO_TEST_CASE(huge_logits_stay_finite) {
  auto s = make_subject("builtin:attention");
  const Matrix q = rows_of({{1e6}}), k = rows_of({{1e6}, {-1e6}}), v = rows_of({{1}, {2}});
  const Matrix y = ask::attention(*s, q, k, v, AttentionMask::none(), 1);
  BOOST_TEST(y(0, 0) == 1.0);
}

BOOST_AUTO_TEST_CASE(refuses_what_has_no_answer) {
  auto s = make_subject("builtin:attention");
  const Matrix x = rows_of({{1, 2}, {3, 4}});
  BoolMatrix none_allowed(2, 2);
  none_allowed << true, true, false, false;
  BOOST_CHECK_THROW(ask::attention(*s, x, x, x, AttentionMask::boolean(none_allowed), 1), Refusal);
  BOOST_CHECK_THROW(ask::attention(*s, x, x, x, AttentionMask::none(), 3), Refusal);
  BOOST_CHECK_THROW(ask::attention(*s, x, x.topRows(1), x, AttentionMask::none(), 1), Refusal);
  BOOST_CHECK_THROW(ask::attention(*s, x, x.topRows(1), x.topRows(1), AttentionMask::causal(), 1), Refusal);
}

BOOST_AUTO_TEST_CASE(a_narrow_dtype_variant_answers_in_its_dtype) {
  for (Dtype dtype : {Dtype::float16, Dtype::bfloat16, Dtype::float32}) {
    auto s = make_subject(std::string("builtin:attention@") + std::string(name(dtype)));
    const Matrix q = rows_of({{0.1, 0.7}, {1.3, -0.2}}), k = rows_of({{0.3, 0.9}, {-1.1, 0.4}});
    const Matrix y = ask::attention(*s, q, k, k, AttentionMask::none(), 1);
    const Matrix exact = reference::attention(q, k, k, AttentionMask::none(), 1);
    for (Eigen::Index i = 0; i < y.size(); ++i) {
      BOOST_TEST(round_to(dtype, y.data()[i]) == y.data()[i]);
      // A few dozen roundings of quantities below 2, far from a different answer.
      BOOST_TEST(std::fabs(y.data()[i] - exact.data()[i]) < 64 * unit_roundoff(dtype));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()  // test_attention_reference
