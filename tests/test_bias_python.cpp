// The NumPy ALiBi subject (examples/python/numpy_alibi.py) and its
// naive-slopes twin (tests/subjects/alibi_naive_slopes.py), driven over
// stdin/stdout with a hand-written hello and bias requests, against
// reference/bias.h: the example is the reference at 8 and 12 heads; the twin
// is the reference at 8 heads (a power of two) and wrong at every head of 12.
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "pecheck/core/dtype.h"
#include "pecheck/reference/bias.h"
#include "support/python_subject.h"

BOOST_AUTO_TEST_SUITE(test_bias_python)

using namespace pecheck;
using namespace pecheck::testing;

namespace {

constexpr int kRows = 6, kCols = 9;

// Every head's n×m bias, asked of the subject at `path` declaring `heads`.
std::vector<Matrix> biases(const std::string& path, int heads) {
  std::vector<json> requests;
  for (int head = 0; head < heads; ++head) requests.push_back({{"op", "bias"}, {"n", kRows}, {"m", kCols}, {"head", head}});
  requests.push_back({{"op", "bias"}, {"n", 2}, {"m", 2}, {"head", heads}});  // no such head
  const auto answers = run_python_subject({path, std::to_string(heads)}, requests);
  BOOST_TEST_MESSAGE(path << " answered in " << answers.seconds << " s");
  BOOST_TEST(answers.exit_status == 0, answers.log);
  BOOST_TEST(answers.hello["params"]["bias"]["scheme"] == "alibi");
  BOOST_TEST(answers.hello["params"]["bias"]["heads"] == heads);
  BOOST_TEST(answers.errors.count(heads + 1) == 1u);
  std::vector<Matrix> out;
  for (int head = 0; head < heads; ++head) out.push_back(matrix_from(answers.result(head + 1)));
  return out;
}

// The published slopes multiply start·ratio^h: h + 1 roundings, so a
// correct answer is within 8·u·(h + 2) of the reference, relative to the
// largest bias (slope × largest distance).
double bound(const Matrix& expected, int head) {
  return 8 * unit_roundoff(Dtype::float64) * (head + 2) * expected.cwiseAbs().maxCoeff();
}

}  // namespace

BOOST_AUTO_TEST_CASE(numpy_alibi_is_the_reference) {
  for (int heads : {8, 12}) {
    const auto answered = biases("examples/python/numpy_alibi.py", heads);
    for (int head = 0; head < heads; ++head) {
      const Matrix expected = reference::alibi_bias(kRows, kCols, head, heads);
      const double error = (answered[static_cast<size_t>(head)] - expected).cwiseAbs().maxCoeff();
      BOOST_TEST(error <= bound(expected, head), heads << " heads, head " << head << ": error " << error);
    }
  }
}

BOOST_AUTO_TEST_CASE(naive_slopes_twin_is_right_for_a_power_of_two_only) {
  const auto eight = biases("tests/subjects/alibi_naive_slopes.py", 8);
  for (int head = 0; head < 8; ++head) {
    const Matrix expected = reference::alibi_bias(kRows, kCols, head, 8);
    BOOST_TEST((eight[static_cast<size_t>(head)] - expected).cwiseAbs().maxCoeff() <= bound(expected, head));
  }
  const auto twelve = biases("tests/subjects/alibi_naive_slopes.py", 12);
  for (int head = 0; head < 12; ++head) {
    const Matrix expected = reference::alibi_bias(kRows, kCols, head, 12);
    const Matrix& b = twelve[static_cast<size_t>(head)];
    BOOST_TEST((b - expected).cwiseAbs().maxCoeff() > 1e6 * bound(expected, head), "head " << head);
    // Still −slope·|i − j|, with the naive slope.
    BOOST_TEST(std::abs(b(0, 1) + std::exp2(-8.0 * (head + 1) / 12)) <= bound(expected, head));
  }
}

BOOST_AUTO_TEST_SUITE_END()  // test_bias_python
