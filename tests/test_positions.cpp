// The edge-position generator (include/pecheck/gen/positions.h): boundary
// values are mixed into draws with a modest share, clamped to the range, and
// every draw shrinks toward the low end.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <set>

#include "pecheck/gen/positions.h"

BOOST_AUTO_TEST_SUITE(test_positions)

using namespace pecheck;

BOOST_AUTO_TEST_CASE(edges_hold_the_ends_powers_of_two_and_the_precision_limits) {
  const auto e = gen::edge_positions(0, 10000, Dtype::float32);
  const std::set<Position> got(e.begin(), e.end());
  for (Position t : {0, 1, 2, 9999, 10000, 255, 256, 257, 2047, 2048, 2049, 4095, 4096, 4097}) {
    BOOST_TEST(got.count(t) == 1u, t);
  }
  BOOST_TEST(std::is_sorted(e.begin(), e.end()));
  // float32's integer limit 2^24 lies outside; bfloat16's 256 is an edge anyway.
  BOOST_TEST(got.count(Position{1} << 24) == 0u);
  const auto wide = gen::edge_positions(0, Position{1} << 25, Dtype::float32);
  BOOST_TEST(std::count(wide.begin(), wide.end(), (Position{1} << 24) + 1) == 1);
}

BOOST_AUTO_TEST_CASE(edges_are_clamped_to_the_range) {
  const auto e = gen::edge_positions(100, 300, Dtype::bfloat16);
  BOOST_REQUIRE(!e.empty());
  BOOST_TEST(e.front() == 100);
  BOOST_TEST(e.back() == 300);
  BOOST_TEST(std::count(e.begin(), e.end(), 256) == 1);
  BOOST_TEST(std::count(e.begin(), e.end(), 2048) == 0);
  BOOST_TEST(gen::edge_positions(5, 4, Dtype::float64).empty());
}

BOOST_AUTO_TEST_CASE(draws_mix_in_edges_and_stay_in_range) {
  const auto edges = gen::edge_positions(0, 100000, Dtype::float16);
  const std::set<Position> edge_set(edges.begin(), edges.end());
  const auto g = gen::position(0, 100000, Dtype::float16);
  int on_edge = 0;
  constexpr int kDraws = 2000;
  for (int i = 0; i < kDraws; ++i) {
    const auto s = g(rc::Random(static_cast<std::uint64_t>(i) + 1), 100);
    const Position t = s.value();
    BOOST_TEST((t >= 0 && t <= 100000));
    on_edge += edge_set.count(t) != 0;
    // Shrinking starts at the low end.
    const auto first = s.shrinks().next();
    if (t > 0) BOOST_TEST((first && first->value() == 0));
  }
  // About a quarter of the draws (uniform draws land on an edge rarely).
  BOOST_TEST(on_edge > kDraws / 8);
  BOOST_TEST(on_edge < kDraws / 2);
}

BOOST_AUTO_TEST_SUITE_END()  // test_positions
