// Fairness of the pe family's tolerances (properties/pe/common.h: the work
// behind each bound): a correct sinusoidal encoder computing in float32,
// float16 or bfloat16 — every operation rounded — passes every claim at its
// declared dtype with the default factor 8, while one that declares float32
// but forms its angles in float16 fails, shrunk to its smallest wrong position.
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "pecheck/subjects/builtin/encoders.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/typed_subject.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_pe_dtype)

using namespace pecheck;
using pecheck::testing::QuickRun;
using pecheck::testing::run_property;

namespace {

const std::vector<std::string> kProperties = {
    "pe.bounded",          "pe.constant_norm",       "pe.offset_only_dot",    "pe.dot_symmetry",    "pe.linear_shift",
    "pe.length_independence", "pe.distinct_positions", "pe.step_size",       "pe.reference_values"};

}  // namespace

BOOST_AUTO_TEST_CASE(reduced_precision_encoders_pass_every_claim_at_their_declared_dtype) {
  for (const std::string dtype : {"float32", "float16", "bfloat16"}) {
    const std::string spec = "builtin:sinusoidal@" + dtype;
    BOOST_TEST(make_subject(spec)->info().scheme == "sinusoidal");
    for (const auto& property : kProperties) {
      for (std::uint64_t seed : {1, 2, 3}) {
        BOOST_TEST_CONTEXT(property << " on " << spec << ", seed " << seed) {
          const auto r = run_property(property, spec, {.seed = seed});
          BOOST_TEST(name(r.outcome) == "holds", r.message());
          BOOST_TEST(r.discards == 0);
          if (property != "pe.distinct_positions") {
            BOOST_TEST(r.tolerance().formula.find("u(" + dtype + ")") != std::string::npos, r.tolerance().formula);
          }
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(reduced_precision_encoders_stay_out_of_the_default_matrix) {
  for (const auto& entry : encoder_builtins()) {
    const bool variant = entry.name.find('@') != std::string::npos;
    BOOST_TEST(entry.in_default_matrix == !variant, entry.name);
  }
}

BOOST_AUTO_TEST_CASE(the_emulation_rounds_what_it_declares) {
  // float16 has no 2049: positions past 2048 share an encoding, as a real
  // half-precision encoder's do; float32 keeps them apart.
  auto half = make_subject("builtin:sinusoidal@float16");
  const Matrix p = ask::encode(*half, 4, {2048, 2049}, 2050);
  BOOST_TEST((p.row(0) - p.row(1)).norm() == 0.0);
  auto single = make_subject("builtin:sinusoidal@float32");
  const Matrix q = ask::encode(*single, 4, {2048, 2049}, 2050);
  BOOST_TEST((q.row(0) - q.row(1)).norm() > 0.5);
  // Every entry is a float16 value.
  for (Eigen::Index j = 0; j < p.cols(); ++j) BOOST_TEST(round_to(Dtype::float16, p(0, j)) == p(0, j));
}

BOOST_AUTO_TEST_CASE(float16_angles_declared_as_float32_fail_at_the_smallest_wrong_position) {
  for (std::uint64_t seed : {1, 2, 3, 4, 5}) {
    BOOST_TEST_CONTEXT("seed " << seed) {
      const auto r = run_property("pe.reference_values", "mutant:sinusoidal-fp16-angles", {.seed = seed});
      BOOST_TEST(name(r.outcome) == "violated");
      BOOST_REQUIRE(r.counterexample() != nullptr);
      const json& w = r.counterexample()->inputs;
      // t = 0 has exact angles; at t = 1 the float16 ω_1 is already off by
      // more than float32 allows. Pair 0 (ω_0 = 1) is exact, so d = 4.
      BOOST_TEST(w["positions"] == json::array({1}));
      BOOST_TEST(w["dim"].get<int>() == 4);
      BOOST_TEST(r.counterexample()->tolerance.formula.find("u(float32)") != std::string::npos);
    }
  }
  // Positions past 2048 collide in float16: the encodings are not distinct.
  const auto distinct = run_property("pe.distinct_positions", "mutant:sinusoidal-fp16-angles");
  BOOST_TEST(name(distinct.outcome) == "violated");
  BOOST_REQUIRE(distinct.counterexample() != nullptr);
  const auto ts = distinct.counterexample()->inputs["positions"].get<std::vector<Position>>();
  BOOST_REQUIRE(ts.size() == 2u);
  BOOST_TEST(std::min(ts[0], ts[1]) > 2048);
  BOOST_TEST(std::max(ts[0], ts[1]) - std::min(ts[0], ts[1]) <= 2);
}

BOOST_AUTO_TEST_CASE(the_same_float16_computation_passes_when_declared_float16) {
  // The bound is the declared dtype's: what fails as float32 is fair as float16.
  SubjectInfo info = make_subject("mutant:sinusoidal-fp16-angles")->info();
  info.dtype = Dtype::float16;
  EncoderSubject honest(info, sinusoidal_row(Layout::interleaved, 1.0, Dtype::float16));
  for (const auto& property : kProperties) {
    BOOST_TEST_CONTEXT(property) { BOOST_TEST(name(run_property(property, honest).outcome) == "holds"); }
  }
  // …and the float16 encoder judged as float32 is caught.
  info.dtype = Dtype::float32;
  EncoderSubject misdeclared(info, sinusoidal_row(Layout::interleaved, 1.0, Dtype::float16));
  BOOST_TEST(name(run_property("pe.reference_values", misdeclared).outcome) == "violated");
}

BOOST_AUTO_TEST_CASE(reduced_precision_holds_over_long_contexts) {
  // Where angles are meaningless (float16 past ~2048) the bounds say so by their
  // size; the verdicts still hold with no special case, up to float16's range.
  for (const std::string spec : {"builtin:sinusoidal@float16", "builtin:sinusoidal@bfloat16"}) {
    for (const auto& property : kProperties) {
      BOOST_TEST_CONTEXT(property << " on " << spec) {
        BOOST_TEST(name(run_property(property, spec, {.max_position = 60000}).outcome) == "holds");
      }
    }
  }
  // Past 65504 a float16 position is infinite and its encoding NaN: no bound
  // excuses that, and the harness says so.
  const auto r = run_property("pe.bounded", "builtin:sinusoidal@float16", {.max_position = 100000});
  BOOST_TEST(name(r.outcome) == "violated");
  BOOST_REQUIRE(r.counterexample() != nullptr);
  BOOST_TEST(r.counterexample()->inputs["position"].get<Position>() > 65504);
}

BOOST_AUTO_TEST_SUITE_END()  // test_pe_dtype
