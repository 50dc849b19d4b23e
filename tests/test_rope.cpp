// The rope family (properties/rope/structure.cpp, subjects/builtin/rope.cpp): every
// property holds on both layouts and on the reduced-precision variants at
// their declared dtype, and fails on planted bugs of kinds real
// implementations have, with a small shrunk witness.
#include <boost/test/unit_test.hpp>

#include <map>
#include <string>
#include <vector>

#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/typed_subject.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_rope)

using namespace pecheck;
using pecheck::testing::QuickRun;
using pecheck::testing::run_property;

namespace {

const std::vector<std::string> kProperties = {"rope.relative_dot", "rope.norm_preservation",
                                              "rope.identity_at_zero", "rope.composition"};

std::string outcome(const std::string& property, const std::string& spec, QuickRun options = {}) {
  return std::string(name(run_property(property, spec, options).outcome));
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_property_holds_on_both_layouts) {
  for (const std::string spec : {"builtin:rope", "builtin:rope-halves"}) {
    for (const auto& property : kProperties) {
      BOOST_TEST_CONTEXT(property << " on " << spec) {
        const auto r = run_property(property, spec);
        BOOST_TEST(name(r.outcome) == "holds");
        BOOST_TEST(name(r.status()) == "passed");
        BOOST_TEST(r.cases == 100);
        BOOST_TEST(r.discards == 0);
      }
    }
  }
}

// Fairness: a subject that computes in a reduced precision is judged with
// that precision's unit roundoff, and passes — over the positions that
// precision can resolve. Angles computed in 16 bits carry an error of about
// (3 + ln base)·u·t radians: the bound reaches the largest difference two
// rotations of x can have (2‖x‖, the dot products' 2‖q‖‖k‖) near t = 64 in
// float16 and t = 8 in bfloat16, past which a case is not checkable (the
// cell would give up, not pass). So all-16-bit variants are checked up to
// there; rope@llama-bf16 (float32 angles) is checked up to 10000 elsewhere.
BOOST_AUTO_TEST_CASE(reduced_precision_variants_pass_at_their_declared_dtype) {
  const std::map<std::string, Position> max_position = {
      {"builtin:rope@float32", 10000}, {"builtin:rope@float16", 64}, {"builtin:rope@bfloat16", 4}};
  for (const auto& [spec, largest] : max_position) {
    for (const auto& property : kProperties) {
      BOOST_TEST_CONTEXT(property << " on " << spec) {
        const auto r = run_property(property, spec, {.max_position = largest});
        BOOST_TEST(name(r.outcome) == "holds");
        BOOST_TEST(r.tolerance().formula.find(std::string(spec.substr(spec.find('@') + 1))) != std::string::npos);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(odd_dims_are_refused_not_crashed) {
  auto rope = make_subject("builtin:rope");
  BOOST_CHECK_THROW(ask::rotate(*rope, {0}, Matrix::Ones(1, 3), std::nullopt), Refusal);
}

// Which property catches which bug. A rotation by a wrongly rounded angle is
// still a rotation (norm kept); a constant position shift cancels in n − m;
// no structural claim sees a different frequency schedule.
BOOST_AUTO_TEST_CASE(planted_bugs_fail_the_properties_they_break) {
  const std::map<std::string, std::vector<std::string>> violated = {
      {"rope-angle-float16", {"rope.relative_dot", "rope.composition"}},
      {"rope-position-off-by-one", {"rope.identity_at_zero", "rope.composition"}},
      {"rope-rotate-half-sign", {"rope.relative_dot", "rope.norm_preservation", "rope.composition"}},
      {"rope-layout-mismatch", {"rope.relative_dot", "rope.norm_preservation", "rope.composition"}},
      {"rope-cache-wrap", {"rope.relative_dot", "rope.composition"}},
      {"rope-cache-clamp", {"rope.relative_dot", "rope.composition"}},
      {"rope-exponent-i-over-d", {}},
  };
  for (const auto& [bug, caught_by] : violated) {
    for (const auto& property : kProperties) {
      const bool caught = std::find(caught_by.begin(), caught_by.end(), property) != caught_by.end();
      BOOST_TEST_CONTEXT(property << " on mutant:" << bug) {
        const auto r = run_property(property, "mutant:" + bug);
        BOOST_TEST(name(r.outcome) == (caught ? "violated" : "holds"));
        BOOST_TEST(name(r.status()) == (caught ? "failed" : "passed"));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(every_property_is_failed_by_some_planted_bug) {
  for (const auto& [property, bug] : std::map<std::string, std::string>{
           {"rope.relative_dot", "rope-angle-float16"},
           {"rope.norm_preservation", "rope-rotate-half-sign"},
           {"rope.identity_at_zero", "rope-position-off-by-one"},
           {"rope.composition", "rope-cache-wrap"}}) {
    BOOST_TEST_CONTEXT(property) {
      BOOST_TEST(outcome(property, "builtin:rope") == "holds");
      BOOST_TEST(outcome(property, "mutant:" + bug) == "violated");
    }
  }
}

// Below 2048 every integer position is exact in float16, so a witness there
// shows the loss is in the angle t·ω itself. (Up to 2047: the edge
// generator would otherwise draw 2048/2049, where the positions themselves
// collapse in float16 — also a failure, but not the one this test is about.)
BOOST_AUTO_TEST_CASE(float16_angles_are_caught_at_small_positions) {
  for (std::uint64_t seed : {1, 2, 3, 42}) {
    BOOST_TEST_CONTEXT("seed " << seed) {
      const auto r =
          run_property("rope.relative_dot", "mutant:rope-angle-float16", {.seed = seed, .max_position = 2047});
      BOOST_REQUIRE(r.counterexample() != nullptr);
      const auto& in = r.counterexample()->inputs;
      for (const char* key : {"query_position", "key_position", "shifted_query_position", "shifted_key_position"}) {
        BOOST_TEST(in[key].get<Position>() < 2048);
      }
      BOOST_TEST(in["dim"].get<int>() <= 16);
    }
  }
}

BOOST_AUTO_TEST_CASE(witnesses_shrink_to_the_smallest_dims_and_positions) {
  const auto off = run_property("rope.identity_at_zero", "mutant:rope-position-off-by-one");
  BOOST_REQUIRE(off.counterexample() != nullptr);
  BOOST_TEST(off.counterexample()->inputs["dim"].get<int>() == 2);

  const auto sign = run_property("rope.norm_preservation", "mutant:rope-rotate-half-sign");
  BOOST_REQUIRE(sign.counterexample() != nullptr);
  BOOST_TEST(sign.counterexample()->inputs["dim"].get<int>() == 2);
  BOOST_TEST(sign.counterexample()->inputs["position"].get<Position>() == 1);

  // With d = 2 both entries of the one pair read the same table row: the
  // smallest mismatch needs d = 4.
  const auto layout = run_property("rope.norm_preservation", "mutant:rope-layout-mismatch");
  BOOST_REQUIRE(layout.counterexample() != nullptr);
  BOOST_TEST(layout.counterexample()->inputs["dim"].get<int>() == 4);
  BOOST_TEST(layout.counterexample()->inputs["position"].get<Position>() == 1);

  // The cache wraps at 2048: the witness straddles a wrap: a mod 2048 +
  // b mod 2048 reaches 2048. Shrinking one position alone cannot
  // always leave such a pair (halving b may put both back in step), so the
  // positions need not both end below 2048.
  const auto wrap = run_property("rope.composition", "mutant:rope-cache-wrap");
  BOOST_REQUIRE(wrap.counterexample() != nullptr);
  const auto& in = wrap.counterexample()->inputs;
  BOOST_TEST(in["dim"].get<int>() == 2);
  const Position a = in["first"].get<Position>(), b = in["second"].get<Position>();
  BOOST_TEST(a % 2048 + b % 2048 >= 2048);  // R_(a mod 2048) R_(b mod 2048) ≠ R_((a + b) mod 2048)
}

BOOST_AUTO_TEST_SUITE_END()  // test_rope
