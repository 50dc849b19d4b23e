// The combine family (properties/combine/split.cpp, subjects/builtin/combine.cpp):
// every property meets its expectation on the built-in, add_injective finds
// and shrinks a collision under several seeds, and each property fails on a
// planted bug of a kind real implementations have.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/typed_subject.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_combine)

using namespace pecheck;
using pecheck::testing::QuickRun;
using pecheck::testing::run_property;

namespace {

const std::vector<std::string> kProperties = {"combine.add_subsumes_concat", "combine.concat_linear_split",
                                              "combine.orthogonal_recovery", "combine.add_injective",
                                              "combine.concat_injective"};

// Every entry of a JSON matrix, flattened.
std::vector<double> entries(const json& rows) {
  std::vector<double> out;
  for (const auto& row : rows) {
    for (const auto& v : row) out.push_back(v.get<double>());
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_property_meets_its_expectation_on_the_builtin) {
  for (const auto& property : kProperties) {
    BOOST_TEST_CONTEXT(property) {
      const auto r = run_property(property, "builtin:combine");
      BOOST_TEST(name(r.status()) == "passed");
      BOOST_TEST(name(r.outcome) == (property == "combine.add_injective" ? "violated" : "holds"));
      BOOST_TEST(r.discards == 0);
    }
  }
}

// add ⊇ concat: the add itself is judged exactly (x + 0 = x); the projection
// and the attention over the sum are each judged on their own, against the
// same map computed here on the concatenation, so a bug in either op fails
// its own sub-check even when add and concat agree.
BOOST_AUTO_TEST_CASE(add_subsumes_concat_judges_each_op_on_its_own) {
  const auto exact = run_property("combine.add_subsumes_concat", "mutant:combine-add-float32");
  BOOST_REQUIRE(exact.counterexample() != nullptr);
  BOOST_TEST(exact.counterexample()->check == "add equals concat");
  BOOST_TEST(exact.counterexample()->tolerance.bound == 0.0);
  BOOST_TEST(exact.counterexample()->tolerance.formula.find("exact") != std::string::npos);
  const auto projected = run_property("combine.add_subsumes_concat", "mutant:combine-project-column-major");
  BOOST_REQUIRE(projected.counterexample() != nullptr);
  BOOST_TEST(projected.counterexample()->check == "through a projection");
  const auto attended = run_property("combine.add_subsumes_concat", "mutant:combine-attention-unscaled");
  BOOST_REQUIRE(attended.counterexample() != nullptr);
  BOOST_TEST(attended.counterexample()->check == "through attention");
}

// The collision x_i + p_i = x_j + p_j is found for every seed tried and
// shrinks to one dimension and small integers.
BOOST_AUTO_TEST_CASE(add_injective_witness_shrinks_to_one_dimension) {
  for (std::uint64_t seed : {1, 2, 3, 7, 42, 1234}) {
    BOOST_TEST_CONTEXT("seed " << seed) {
      const auto r = run_property("combine.add_injective", "builtin:combine", {.seed = seed});
      BOOST_TEST(name(r.status()) == "passed");
      BOOST_REQUIRE(r.counterexample() != nullptr);
      const auto& in = r.counterexample()->inputs;
      BOOST_TEST(in["token_dim"].get<int>() == 1);
      BOOST_TEST(in["tokens"].size() <= 4u);
      for (double v : entries(in["tokens"])) BOOST_TEST(std::fabs(v) <= 2.0);
      for (double v : entries(in["positions"])) BOOST_TEST(std::fabs(v) <= 2.0);
    }
  }
}

// Which property catches which bug (each mutant declares float64, scheme combine).
BOOST_AUTO_TEST_CASE(planted_bugs_fail_the_properties_they_break) {
  const std::map<std::string, std::vector<std::string>> failed = {
      {"combine-concat-position-first", {"combine.add_subsumes_concat", "combine.concat_linear_split"}},
      {"combine-concat-offset-by-one",
       {"combine.add_subsumes_concat", "combine.concat_linear_split", "combine.concat_injective"}},
      {"combine-add-float32", {"combine.add_subsumes_concat", "combine.orthogonal_recovery"}},
      {"combine-add-position-relayout", {"combine.add_subsumes_concat", "combine.orthogonal_recovery"}},
      // No longer x + p, and injective on small integers: the expected
      // collision is not found, so add_injective fails too. A scaled p stays
      // in its subspace, so orthogonal recovery still holds.
      {"combine-add-scaled-position", {"combine.add_subsumes_concat", "combine.add_injective"}},
      {"combine-project-column-major", {"combine.add_subsumes_concat", "combine.concat_linear_split"}},
      {"combine-attention-unscaled", {"combine.add_subsumes_concat"}},
  };
  for (const auto& [bug, caught_by] : failed) {
    for (const auto& property : kProperties) {
      const bool caught = std::find(caught_by.begin(), caught_by.end(), property) != caught_by.end();
      BOOST_TEST_CONTEXT(property << " on mutant:" << bug) {
        const auto r = run_property(property, "mutant:" + bug);
        BOOST_TEST(name(r.status()) == (caught ? "failed" : "passed"));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(witnesses_are_small) {
  // The storage-order misread needs two output rows and two input columns.
  const auto project = run_property("combine.concat_linear_split", "mutant:combine-project-column-major");
  BOOST_REQUIRE(project.counterexample() != nullptr);
  BOOST_TEST(project.counterexample()->inputs["out_dim"].get<int>() == 2);
  BOOST_TEST(project.counterexample()->inputs["token_dim"].get<int>() == 1);
  BOOST_TEST(project.counterexample()->inputs["position_dim"].get<int>() == 1);

  // One token coordinate is overwritten: two pairs differing only there collide.
  const auto offset = run_property("combine.concat_injective", "mutant:combine-concat-offset-by-one");
  BOOST_REQUIRE(offset.counterexample() != nullptr);
  BOOST_TEST(offset.counterexample()->inputs["token_dim"].get<int>() == 1);
  BOOST_TEST(offset.counterexample()->inputs["position_dim"].get<int>() == 1);

  // A float32 add rounds a token entry that concat keeps.
  const auto rounding = run_property("combine.add_subsumes_concat", "mutant:combine-add-float32");
  BOOST_REQUIRE(rounding.counterexample() != nullptr);
  BOOST_TEST(rounding.counterexample()->inputs["token_dim"].get<int>() == 1);
  BOOST_TEST(rounding.counterexample()->check == "add equals concat");
}

// The attention the combination is carried through: uniform weights for zero
// queries, the single visible value under a one-key mask, per head.
BOOST_AUTO_TEST_CASE(builtin_attention_matches_hand_computed_cases) {
  auto s = make_subject("builtin:combine");
  Matrix k(3, 4), v(3, 4);
  k << 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1;
  v << 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14;
  const Matrix uniform = ask::attention(*s, Matrix::Zero(2, 4), k, v, AttentionMask::none(), 2);
  for (Eigen::Index r = 0; r < 2; ++r) {
    for (Eigen::Index c = 0; c < 4; ++c) BOOST_TEST(uniform(r, c) == v.col(c).mean(), boost::test_tools::tolerance(1e-12));
  }
  BoolMatrix only(2, 3);
  only << false, true, false, false, false, true;
  const Matrix picked = ask::attention(*s, Matrix::Ones(2, 4), k, v, AttentionMask::boolean(only), 2);
  for (Eigen::Index c = 0; c < 4; ++c) {
    BOOST_TEST(picked(0, c) == v(1, c));
    BOOST_TEST(picked(1, c) == v(2, c));
  }
  BOOST_CHECK_THROW(ask::attention(*s, Matrix::Zero(2, 4), k, v, AttentionMask::causal()), Refusal);  // n != m
}

BOOST_AUTO_TEST_SUITE_END()  // test_combine
