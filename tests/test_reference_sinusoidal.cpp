// The sinusoidal reference (reference/sinusoidal.h) under each declared
// convention, against published numbers (003's d = 16 dot products) and
// values computed independently while writing this test with /usr/bin/python3
// and NumPy (float64) from tensor2tensor's and fairseq's formulas (the
// derivation is in each comment).
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "support/bounds.h"
#include "pecheck//core/tolerance.h"
#include "pecheck/reference/sinusoidal.h"

BOOST_AUTO_TEST_SUITE(test_reference_sinusoidal)

using namespace pecheck;

namespace {

// Two float64 evaluations of the same closed form: each entry's angle t·ω
// carries a relative u from ω and one from the product (an absolute
// u·(1 + |t|)), the sine or cosine one more.
double entry_bound(Position t) {
  return testing::bound_in(Dtype::float64, 2 + 2 * std::fabs(static_cast<double>(t)), 1);
}

EncodeConvention timing_signal() {
  EncodeConvention c;
  c.schedule = Schedule::i_over_h_minus_1;
  c.layout = Layout::halves;
  return c;
}

void check_row(const Matrix& got, std::initializer_list<double> want, Position t) {
  BOOST_REQUIRE(got.cols() == static_cast<Eigen::Index>(want.size()));
  Eigen::Index j = 0;
  for (double w : want) {
    BOOST_TEST_CONTEXT("column " << j) { BOOST_TEST(std::fabs(got(0, j) - w) <= entry_bound(t)); }
    ++j;
  }
}

}  // namespace

// 003 prints, for d = 16: p_5·p_6 = p_105·p_106 = 7.4852 and p_5·p_10 = 6.1370
// (4 decimals, so within half a unit of the last one).
BOOST_AUTO_TEST_CASE(the_papers_form_reproduces_the_published_dot_products) {
  constexpr double kHalfLastDecimal = 0.5e-4;
  const Matrix p = reference::sinusoidal(16, {5, 6, 10, 105, 106}, EncodeConvention{});
  BOOST_TEST(std::fabs(p.row(0).dot(p.row(1)) - 7.4852) <= kHalfLastDecimal);
  BOOST_TEST(std::fabs(p.row(3).dot(p.row(4)) - 7.4852) <= kHalfLastDecimal);
  BOOST_TEST(std::fabs(p.row(0).dot(p.row(2)) - 6.1370) <= kHalfLastDecimal);
}

// tensor2tensor get_timing_signal_1d in NumPy, channels 8 (h = 4):
//   inv = exp(arange(4)·−log(1e4)/3); t = 5: concat(sin(5·inv), cos(5·inv)).
BOOST_AUTO_TEST_CASE(tensor2tensor_timing_signal) {
  check_row(reference::sinusoidal(8, {5}, timing_signal()),
            {-0.9589242746631386, 0.23000171166476746, 0.010771965118034833, 0.0004999999791666669,
             0.2836621854632263, 0.9731902242785208, 0.9999419807006285, 0.9999998750000025},
            5);
  // ω_0 = 1 and ω_{h−1} = 1/base: the schedule spans the whole range.
  BOOST_TEST(reference::frequency(0, 8, timing_signal()) == 1.0);
  BOOST_TEST(std::fabs(reference::frequency(3, 8, timing_signal()) - 1e-4) <= entry_bound(0) * 1e-4);
}

// fairseq: the same table, position t read at row t + padding_idx + 1 = t + 2.
BOOST_AUTO_TEST_CASE(fairseq_offsets_positions_by_two) {
  EncodeConvention fairseq = timing_signal();
  fairseq.position_offset = 2;
  check_row(reference::sinusoidal(8, {7}, fairseq),
            {0.4121184852417566, 0.4056985699484859, 0.019388697233126858, 0.0008999998785000049,
             -0.9111302618846768, 0.9140069312328836, 0.9998120215418509, 0.9999995950000274},
            9);
  // The offset is a shift in position, exactly.
  BOOST_TEST((reference::sinusoidal(8, {0, 7, 5000}, fairseq) ==
              reference::sinusoidal(8, {2, 9, 5002}, timing_signal())));
}

BOOST_AUTO_TEST_CASE(base_amplitude_and_layout_are_honoured) {
  EncodeConvention c;
  c.base = 500;
  BOOST_TEST(std::fabs(reference::frequency(1, 4, c) - std::pow(500.0, -0.5)) <= entry_bound(0));
  c.amplitude = 0.1;
  const Matrix scaled = reference::sinusoidal(6, {3, 40}, c);
  c.amplitude = 1;
  BOOST_TEST(((scaled - 0.1 * reference::sinusoidal(6, {3, 40}, c)).cwiseAbs().maxCoeff() <= entry_bound(40)));
  // Halves holds the interleaved entries, pair i moved from (2i, 2i+1) to (i, h + i).
  c.layout = Layout::halves;
  const Matrix halves = reference::sinusoidal(6, {3, 40}, c);
  c.layout = Layout::interleaved;
  const Matrix interleaved = reference::sinusoidal(6, {3, 40}, c);
  for (int i = 0; i < 3; ++i) {
    BOOST_TEST((halves.col(i) == interleaved.col(2 * i)));
    BOOST_TEST((halves.col(3 + i) == interleaved.col(2 * i + 1)));
  }
}

// Version 1's functions are the defaults of the new ones, bit for bit.
BOOST_AUTO_TEST_CASE(version_one_api_is_the_papers_defaults) {
  const Positions ts{0, 1, 17, 9999};
  for (int dim : {1, 2, 5, 16}) {
    BOOST_TEST((reference::sinusoidal(dim, ts) == reference::sinusoidal(dim, ts, EncodeConvention{})));
  }
  BOOST_TEST(reference::frequency(3, 16) == std::pow(10000.0, -6.0 / 16));
  EncodeConvention halves;
  halves.layout = Layout::halves;
  halves.amplitude = 0.5;
  BOOST_TEST((reference::sinusoidal(8, ts, Layout::halves, 0.5) == reference::sinusoidal(8, ts, halves)));
  // An odd interleaved width ends with a lone sine, as in version 1.
  const Matrix odd = reference::sinusoidal(3, {2});
  BOOST_TEST(odd(0, 2) == std::sin(2 * reference::frequency(1, 3)));
}

BOOST_AUTO_TEST_CASE(undefined_widths_are_refused) {
  BOOST_CHECK_THROW(reference::sinusoidal(2, {1}, timing_signal()), Refusal);  // h = 1: 1/(h−1)
  EncodeConvention interleaved_timing = timing_signal();
  interleaved_timing.layout = Layout::interleaved;
  BOOST_CHECK_THROW(reference::sinusoidal(7, {1}, interleaved_timing), Refusal);  // h is not d/2
  BOOST_CHECK_THROW(reference::frequency(0, 2, timing_signal()), Refusal);
  EncodeConvention halves;
  halves.layout = Layout::halves;
  BOOST_CHECK_THROW(reference::sinusoidal(5, {1}, halves), Refusal);
  EncodeConvention no_base;
  no_base.base = 0;
  BOOST_CHECK_THROW(reference::sinusoidal(4, {1}, no_base), Refusal);
  BOOST_CHECK_THROW(reference::sinusoidal(0, {1}, EncodeConvention{}), Refusal);
  BOOST_CHECK_NO_THROW(reference::sinusoidal(4, {1}, timing_signal()));
}

BOOST_AUTO_TEST_SUITE_END()  // test_reference_sinusoidal
