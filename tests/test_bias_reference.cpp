// reference/bias.h against the published code's own numbers: ALiBi slopes as
// get_slopes (ofirpress/attention_with_linear_biases,
// fairseq/models/transformer.py) returns them, and T5 buckets as
// huggingface/transformers modeling_t5.py _relative_position_bucket returns
// them (both run with /usr/bin/python3 and torch while writing this test,
// pasted as constants).
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "pecheck/core/dtype.h"
#include "pecheck/reference/bias.h"

BOOST_AUTO_TEST_SUITE(test_bias_reference)

using namespace pecheck;

namespace {

// get_slopes multiplies start·ratio^h, h+1 roundings away from the exact power
// 2^(−8(h+1)/H) the reference computes in one exp2: the published value is
// within (h + 2)·u relative of it.
void check_slopes(int heads, const std::vector<double>& published) {
  const auto slopes = reference::alibi_slopes(heads);
  BOOST_TEST_REQUIRE(slopes.size() == published.size());
  for (size_t h = 0; h < slopes.size(); ++h) {
    const double bound = (static_cast<double>(h) + 2) * unit_roundoff(Dtype::float64) * published[h];
    BOOST_TEST_CONTEXT("head " << h << " of " << heads) {
      BOOST_TEST(std::abs(slopes[h] - published[h]) <= bound, slopes[h] << " vs " << published[h]);
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(alibi_slopes_of_a_power_of_two_are_geometric) {
  check_slopes(8, {0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625});
  check_slopes(16, {0.7071067811865476, 0.5000000000000001, 0.35355339059327384, 0.25000000000000006,
                    0.17677669529663692, 0.12500000000000006, 0.08838834764831849, 0.06250000000000004,
                    0.044194173824159244, 0.03125000000000002, 0.022097086912079626, 0.01562500000000001,
                    0.011048543456039816, 0.007812500000000007, 0.005524271728019908, 0.003906250000000004});
  check_slopes(1, {0.00390625});
}

BOOST_AUTO_TEST_CASE(alibi_slopes_of_other_head_counts_interleave_the_next_power) {
  // 12 heads: the 8-head slopes, then the 16-head slopes at indices 0, 2, 4, 6.
  check_slopes(12, {0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625, 0.7071067811865476,
                    0.35355339059327384, 0.17677669529663692, 0.08838834764831849});
  check_slopes(3, {0.0625, 0.00390625, 0.25});
  check_slopes(6, {0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125});
  check_slopes(20, {0.7071067811865476, 0.5000000000000001, 0.35355339059327384, 0.25000000000000006,
                    0.17677669529663692, 0.12500000000000006, 0.08838834764831849, 0.06250000000000004,
                    0.044194173824159244, 0.03125000000000002, 0.022097086912079626, 0.01562500000000001,
                    0.011048543456039816, 0.007812500000000007, 0.005524271728019908, 0.003906250000000004,
                    0.8408964152537145, 0.5946035575013604, 0.42044820762685714, 0.2973017787506802});
  BOOST_CHECK_THROW(reference::alibi_slopes(0), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(alibi_bias_is_minus_slope_times_distance) {
  const Matrix b = reference::alibi_bias(4, 6, 2, 8);  // slope 1/8
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 6; ++j) BOOST_TEST(b(i, j) == -0.125 * std::abs(i - j));
  }
  // For j ≤ i it is the causal form slope·(j − i) BLOOM and MPT add.
  BOOST_TEST(b(3, 1) == 0.125 * (1 - 3));
  BOOST_CHECK_THROW(reference::alibi_bias(2, 2, 8, 8), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(t5_buckets_match_hugging_face) {
  const std::vector<Position> relative = {-1000, -200, -129, -128, -127, -100, -64, -63, -33, -32, -31, -17, -16,
                                          -15,   -12,  -11,  -9,   -8,   -7,   -1,  0,   1,   7,   8,   9,   11,
                                          12,    15,   16,   17,   31,   32,   64,  100, 127, 128, 129, 1000};
  // _relative_position_bucket(relative, bidirectional, num_buckets=32, max_distance=128)
  const std::vector<int> bidirectional = {15, 15, 15, 15, 15, 15, 14, 13, 12, 12, 11, 10, 10, 9,  9,  8,  8,  8,  7,
                                          1,  0,  17, 23, 24, 24, 24, 25, 25, 26, 26, 27, 28, 30, 31, 31, 31, 31, 31};
  const std::vector<int> causal = {31, 31, 31, 31, 31, 30, 26, 26, 21, 21, 21, 16, 16, 15, 12, 11, 9, 8, 7,
                                   1,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0, 0, 0};
  for (size_t k = 0; k < relative.size(); ++k) {
    BOOST_TEST_CONTEXT("j − i = " << relative[k]) {
      BOOST_TEST(reference::t5_bucket(relative[k], 32, 128, true) == bidirectional[k]);
      BOOST_TEST(reference::t5_bucket(relative[k], 32, 128, false) == causal[k]);
    }
  }
}

BOOST_AUTO_TEST_CASE(t5_buckets_partition_each_direction_in_order) {
  // Distances up to max_distance fill every bucket of a direction, in order
  // and without gaps; beyond it everything shares the last one.
  for (bool bidirectional : {true, false}) {
    int previous = -1;
    for (Position distance = 0; distance <= 300; ++distance) {
      const int bucket = reference::t5_bucket(-distance, 32, 128, bidirectional);
      BOOST_TEST((bucket == previous || bucket == previous + 1), "distance " << distance);
      previous = bucket;
    }
    BOOST_TEST(previous == (bidirectional ? 15 : 31));
  }
  BOOST_CHECK_THROW(reference::t5_bucket(1, 2, 128, true), std::invalid_argument);
  BOOST_CHECK_THROW(reference::t5_bucket(1, 32, 8, true), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()  // test_bias_reference
