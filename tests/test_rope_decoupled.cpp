// Issue 35 — rope.decoupled (DeepSeek-V2/V3 MLA): the hello's
// qk_rope_head_dim / qk_nope_head_dim, the reference of the slice, the
// built-in that passes, the planted bugs that fail each sub-check with a
// diagnosis, and the other rotary claims left to it.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>

#include "pecheck/config/config_file.h"
#include "pecheck/property/registry.h"
#include "pecheck/reference/rotary.h"
#include "pecheck/subjects/declare.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/typed_subject.h"
#include "protocol/hello.h"
#include "support/hello_refusal.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_rope_decoupled)

using namespace pecheck;
using pecheck::testing::hello_refusal;
using pecheck::testing::run_property;

namespace {

json hello(json rotate) {
  return json{{"protocol", 2}, {"name", "mla"}, {"ops", json::array({"rotate"})}, {"dtype", "float32"},
              {"params", {{"rotate", std::move(rotate)}}}};
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_hello_declares_the_two_widths_together) {
  const auto info = process::read_hello(hello({{"base", 10000}, {"qk_rope_head_dim", 64}, {"qk_nope_head_dim", 128}})).info;
  BOOST_TEST(info.rotate.decoupled());
  BOOST_TEST(*info.rotate.qk_rope_head_dim == 64);
  BOOST_TEST(*info.rotate.qk_nope_head_dim == 128);
  BOOST_TEST(hello_refusal(hello({{"qk_rope_head_dim", 64}})).find("together") != std::string::npos);
  BOOST_TEST(hello_refusal(hello({{"qk_rope_head_dim", 63}, {"qk_nope_head_dim", 1}})).find("even") != std::string::npos);
  BOOST_TEST(hello_refusal(hello({{"qk_rope_head_dim", 64}, {"qk_nope_head_dim", 128}, {"rotary_dim", 64}}))
                 .find("do not stand beside") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(pecheck_toml_declares_them_as_a_hello_does) {
  std::vector<std::string> ids;
  for (const auto& p : all_properties()) ids.push_back(p.info.id);
  const auto c = parse_config(R"(
[subject."plugin:./libmla.so"]
params.rotate = { base = 10000, qk_rope_head_dim = 64, qk_nope_head_dim = 128 }
)", "pecheck.toml", ids);
  SubjectInfo info = make_subject("builtin:rope")->info();
  apply_declarations(c.subject_declarations.at("plugin:./libmla.so").declared, info);
  BOOST_TEST(info.rotate.decoupled());
  BOOST_TEST(info.rotate.qk_nope_head_dim.value_or(0) == 128);
  BOOST_TEST(find_property("rope.decoupled")->info.applies_to(info));
}

BOOST_AUTO_TEST_CASE(the_reference_turns_the_last_features_interleaved) {
  RotateConvention c;
  c.qk_rope_head_dim = 4;
  c.qk_nope_head_dim = 2;
  Matrix x(1, 6);
  x << 1, 2, 3, 4, 5, 6;
  const Matrix y = reference::rotary_decoupled({3}, x, c, std::nullopt);
  BOOST_TEST(y(0, 0) == 1.0);
  BOOST_TEST(y(0, 1) == 2.0);
  // Pair 0 of the slice is (3, 4), interleaved, turned by 3·ω_0 = 3 radians.
  BOOST_TEST(std::abs(y(0, 2) - (3 * std::cos(3.0) - 4 * std::sin(3.0))) < 1e-12);
  BOOST_TEST(std::abs(y(0, 3) - (3 * std::sin(3.0) + 4 * std::cos(3.0))) < 1e-12);
  BOOST_CHECK_THROW(reference::rotary_decoupled({3}, Matrix::Ones(1, 5), c, std::nullopt), Refusal);
}

BOOST_AUTO_TEST_CASE(the_mla_builtin_passes_and_other_rotary_claims_leave_it_alone) {
  const PropertyResult r = run_property("rope.decoupled", "builtin:rope@mla");
  BOOST_TEST((r.status() == Status::passed), r.message());
  const auto info = make_subject("builtin:rope@mla")->info();
  for (const char* other : {"rope.reference_values", "rope.pass_through", "rope.relative_dot", "rope.norm_preservation"}) {
    const auto* p = find_property(other);
    if (p != nullptr) BOOST_TEST(!p->info.applies_to(info), other);
  }
}

BOOST_AUTO_TEST_CASE(rope_on_the_nope_slice_and_rotate_half_fail_with_their_cause) {
  const PropertyResult nope = run_property("rope.decoupled", "mutant:rope-mla-nope-slice");
  BOOST_TEST((nope.status() == Status::failed));
  BOOST_REQUIRE(nope.counterexample() != nullptr);
  BOOST_TEST(nope.counterexample()->check == "rope features against the reference");
  BOOST_TEST(nope.counterexample()->diagnosis.find("nope slice") != std::string::npos, nope.counterexample()->diagnosis);
  const PropertyResult zeroed = run_property("rope.decoupled", "mutant:rope-mla-nope-zeroed");
  BOOST_REQUIRE(zeroed.counterexample() != nullptr);
  BOOST_TEST(zeroed.counterexample()->check == "nope features pass through");
  // The rotary diagnosis (identify's suspects) names it, over answers re-queried around the witness.
  const std::string why = zeroed.counterexample()->diagnosis;
  BOOST_TEST(why.find("returns the nope features as zeros") == 0, why);
  BOOST_TEST(why.find("it explains every re-queried answer") != std::string::npos, why);
  const PropertyResult half = run_property("rope.decoupled", "mutant:rope-mla-rotate-half");
  BOOST_TEST((half.status() == Status::failed));
  BOOST_REQUIRE(half.counterexample() != nullptr);
  BOOST_TEST(half.counterexample()->check == "rope features against the reference");
  BOOST_TEST(half.counterexample()->diagnosis.find("halves layout") != std::string::npos,
             half.counterexample()->diagnosis);
}

BOOST_AUTO_TEST_SUITE_END()  // test_rope_decoupled
