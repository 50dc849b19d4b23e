// Issues 34 and 35 — module.context_shift (llama.cpp's context shift, PR
// #12373): the declaration (params.rotate or params.forward, and the
// request's "shift" on the wire), the float64 reference R(p + Δ)·R(p)⁻¹, the
// built-in stacks that pass layer by layer, the planted bugs of the published
// kinds each failing its sub-check with a diagnosis naming the layer and the
// field, and a subject that does not declare it never sent a shift.
#include <boost/test/unit_test.hpp>

#include <string>

#include "pecheck/property/registry.h"
#include "pecheck/reference/rotary.h"
#include "pecheck/protocol/calls.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/typed_subject.h"
#include "protocol/codec.h"
#include "protocol/hello.h"
#include "support/hello_refusal.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_context_shift)

using namespace pecheck;
using pecheck::testing::hello_refusal;
using pecheck::testing::run_property;

namespace {

constexpr const char* kClaim = "module.context_shift";

json hello(const char* op, json params) {
  return json{{"protocol", 2}, {"name", "shifting"}, {"ops", json::array({op})}, {"dtype", "float32"},
              {"params", {{op, std::move(params)}}}};
}

}  // namespace

BOOST_AUTO_TEST_CASE(params_rotate_or_forward_declares_it_and_only_then_the_claim_applies) {
  const auto rotary = process::read_hello(hello("rotate", {{"base", 10000}, {"context_shift", true}})).info;
  BOOST_TEST(rotary.context_shift);
  BOOST_TEST(rotary.rotate.base == 10000);
  BOOST_TEST(find_property(kClaim)->info.applies_to(rotary));
  const auto plain = process::read_hello(hello("rotate", {{"base", 10000}})).info;
  BOOST_TEST(!plain.context_shift);
  BOOST_TEST(!find_property(kClaim)->info.applies_to(plain));
  json module = hello("forward", {{"causal", true}, {"positional", "relative"}, {"context_shift", true}});
  module["ops"] = json::array({"forward", "rotate"});
  BOOST_TEST(process::read_hello(module).info.context_shift);
  BOOST_TEST(hello_refusal(hello("rotate", {{"context_shift", "yes"}})).find("true or false") != std::string::npos);
  // A layer's rotary is a convention, not the op: the field is refused there.
  json layered = hello("forward", {{"causal", true},
                                   {"positional", "relative"},
                                   {"layers", json::array({{{"rotate", {{"context_shift", true}}}}})}});
  BOOST_TEST(hello_refusal(layered).find("context_shift") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_shift_travels_in_the_request_and_is_refused_undeclared) {
  RotateCall call{{3, 5}, Matrix::Ones(2, 4), std::nullopt, {}, 2, -3};
  const json j = RotateCall::codec().to_json(call);
  BOOST_TEST(j.at("shift") == -3);
  const RotateCall back = std::get<RotateCall>(RotateCall::codec().from_json(j));
  BOOST_REQUIRE(back.shift.has_value());
  BOOST_TEST(*back.shift == -3);
  BOOST_TEST(RotateCall::codec().describe(call).find("shifted by -3") != std::string::npos);
  SubjectInfo undeclared;
  undeclared.name = "plain";
  call.layer.reset();
  BOOST_CHECK_THROW(RotateCall::codec().check(call, undeclared, false), Refusal);
}

BOOST_AUTO_TEST_CASE(the_reference_lands_keys_rotated_at_p_at_p_plus_delta) {
  RotateConvention local;
  local.base = 1e4;
  local.layout = Layout::halves;
  RotateConvention global = local;
  global.base = 1e6;
  global.scaling.type = ScalingType::linear;
  global.scaling.factor = 8;
  const Matrix keys = Matrix::Random(3, 16);
  for (const RotateConvention& c : {local, global}) {
    for (Position shift : {Position{-5}, Position{0}, Position{7}, Position{40000}}) {
      const Positions at = {5, 12, 900};
      Positions to = at;
      for (Position& p : to) p += shift;
      const Matrix shifted = reference::rotary_shift(at, shift, reference::rotary(at, keys, c, std::nullopt), c);
      const Matrix direct = reference::rotary(to, keys, c, std::nullopt);
      BOOST_TEST((shifted - direct).cwiseAbs().maxCoeff() < 1e-9, "shift " << shift);
    }
  }
  // Below 0 is refused, as is a length-dependent base.
  BOOST_CHECK_THROW(reference::rotary_shift({2}, -3, keys.topRows(1), local), Refusal);
  RotateConvention dynamic = local;
  dynamic.scaling.type = ScalingType::dynamic_ntk;
  dynamic.scaling.factor = 2;
  dynamic.scaling.original_max_position = 64;
  BOOST_CHECK_THROW(reference::rotary_shift({2}, 3, keys.topRows(1), dynamic), Refusal);
}

BOOST_AUTO_TEST_CASE(the_builtin_stacks_pass_layer_by_layer) {
  for (const char* spec : {"builtin:gemma3-config-block", "builtin:gemma3-block", "builtin:gpt-oss-config-block",
                           "builtin:llama4-block@tuned"}) {
    const PropertyResult r = run_property(kClaim, spec);
    BOOST_TEST((r.status() == Status::passed), spec << ": " << r.message());
  }
  // llama4-config-block offers no rotate: nothing to shift, and the claim does not apply.
  BOOST_TEST(!find_property(kClaim)->info.applies_to(make_subject("builtin:llama4-config-block")->info()));
  BOOST_TEST(!find_property(kClaim)->info.applies_to(make_subject("builtin:rope")->info()));
}

BOOST_AUTO_TEST_CASE(each_planted_shift_bug_fails_its_sub_check_naming_the_layer_and_the_field) {
  struct Expected {
    const char* mutant;
    const char* check;
    const char* cause;
  };
  for (const Expected& e :
       {Expected{"gemma3-config-shift-global-base", "keys re-rotated to p + Δ", "the field 'base and scaling'"},
        Expected{"gemma3-config-shift-sign-reversed", "keys re-rotated to p + Δ", "sign reversed"},
        Expected{"gemma3-config-shift-twice", "keys re-rotated to p + Δ", "applied twice"},
        Expected{"gemma3-config-shift-absolute", "shift by 0 leaves the keys", "absolute position"}}) {
    const PropertyResult r = run_property(kClaim, std::string("mutant:") + e.mutant);
    BOOST_TEST_CONTEXT(e.mutant) {
      BOOST_TEST((r.status() == Status::failed), r.message());
      BOOST_REQUIRE(r.counterexample() != nullptr);
      const auto& c = *r.counterexample();
      BOOST_TEST(c.check == e.check, c.check << ": " << c.diagnosis);
      BOOST_TEST(c.diagnosis.find(e.cause) != std::string::npos, c.diagnosis);
      BOOST_TEST(c.diagnosis.find("layer ") != std::string::npos, c.diagnosis);
      BOOST_TEST(c.tolerance.formula.find("two rotations") != std::string::npos, c.tolerance.formula);
    }
  }
  // The global base fails on a local layer (0–4), never on the global layer 5 whose settings it borrows.
  const PropertyResult global = run_property(kClaim, "mutant:gemma3-config-shift-global-base");
  BOOST_REQUIRE(global.counterexample() != nullptr);
  BOOST_TEST(global.counterexample()->inputs.at("layer").get<int>() < 5, global.counterexample()->inputs.dump());
  BOOST_TEST(global.counterexample()->diagnosis.find("PR #12373") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()  // test_context_shift
