// The backward op from a C plugin (adapters/c/pecheck_plugin.h:
// PECHECK_OP_BACKWARD, pecheck_rotate_backward) and from the in-process C++
// adapter (include/pecheck/cpp/implementation.h: .backward,
// rotate_row_backward): a correct rotary backward holds the gradient claims,
// one turning by +θ fails grad.rotary_inverse, and a plugin built before the
// feature bit loads as before, without a backward.
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "pecheck/cpp/implementation.h"
#include "pecheck/property/registry.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/typed_subject.h"
#include "support/cli.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_grad_plugins)

using namespace pecheck;

namespace {

std::string lib(const std::string& name) {
  return pecheck::testing::ctest_env("PECHECK_PLUGIN_DIR") + "/lib" + name + ".so";
}

// Interleaved RoPE, one row: turned by sign·t·ω_i.
void turn(Position t, std::span<const double> in, std::span<double> out, double sign) {
  const auto d = static_cast<double>(in.size());
  for (size_t i = 0; i + 1 < in.size(); i += 2) {
    const double angle = static_cast<double>(t) * std::pow(10000.0, -static_cast<double>(i) / d);
    const double c = std::cos(angle), s = sign * std::sin(angle);
    out[i] = c * in[i] - s * in[i + 1];
    out[i + 1] = s * in[i] + c * in[i + 1];
  }
}

struct CppRope : cpp::Rotary {
  explicit CppRope(double backward_sign)
      : Rotary({.name = backward_sign < 0 ? "cpp-rope" : "cpp-rope-plus-theta", .layout = Layout::interleaved,
                .backward = true}),
        sign(backward_sign) {}
  void rotate_row(Position t, std::span<const double> x, std::span<double> out) override { turn(t, x, out, 1.0); }
  void rotate_row_backward(Position t, std::span<const double> g, std::span<double> dx) override { turn(t, g, dx, sign); }
  double sign;
};

void holds(const char* id, Subject& s) {
  const PropertyResult r = testing::run_property(id, s);
  BOOST_TEST((r.status() == Status::passed), id << " on " << s.info().name << ": " << name(r.outcome) << ": " << r.message());
}

void fails_rotary_inverse(Subject& s) {
  const PropertyResult r = testing::run_property("grad.rotary_inverse", s);
  BOOST_REQUIRE_MESSAGE(r.counterexample() != nullptr, s.info().name << ": " << r.message());
  BOOST_TEST(r.counterexample()->check == "R(θ)·dx = m²·g");
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_plugin_declaring_the_backward_bit_answers_it_in_process_and_through_serve) {
  for (const std::string& spec : {"plugin-inproc:" + lib("rope_backward_plugin"), "plugin:" + lib("rope_backward_plugin")}) {
    BOOST_TEST_CONTEXT(spec) {
      const auto s = make_subject(spec);
      BOOST_TEST(s->info().supports(Op::backward));
      BOOST_TEST((s->info().backward_of == static_cast<unsigned>(Op::rotate)));
      // dx = R(−θ)·g: turning dx forward gives g back.
      Matrix g(2, 4);
      g << 1, 0, 0.5, -1, 0.25, 2, -3, 1;
      const Batch dx = ask::rotate_backward(*s, RotateCall{{7, 3}, Matrix::Zero(2, 4), std::nullopt}, g);
      BOOST_REQUIRE(dx.size() == 1u);
      const Matrix back = ask::rotate(*s, {7, 3}, dx[0], std::nullopt);
      BOOST_TEST((back - g).cwiseAbs().maxCoeff() < 1e-14);
      for (const char* id : {"grad.reference_values", "grad.rotary_inverse"}) holds(id, *s);
    }
  }
  const auto plus = make_subject("plugin-inproc:" + lib("rope_backward_plus_theta_plugin"));
  holds("rope.reference_values", *plus);  // its forward is exact
  fails_rotary_inverse(*plus);
}

BOOST_AUTO_TEST_CASE(a_plugin_built_before_the_backward_bit_loads_without_one) {
  const auto old = make_subject("plugin-inproc:" + lib("rope_attention_plugin"));
  BOOST_TEST(!old->info().supports(Op::backward));
  BOOST_TEST(old->info().backward_of == 0u);
  BOOST_TEST(!find_property("grad.rotary_inverse")->info.applies_to(old->info()));
  BOOST_CHECK_THROW(ask::rotate_backward(*old, RotateCall{{1}, Matrix::Zero(1, 2), std::nullopt}, Matrix::Zero(1, 2)),
                    Refusal);
}

BOOST_AUTO_TEST_CASE(a_cpp_rotary_with_its_backward_is_judged_by_the_gradient_claims) {
  CppRope right(-1.0), wrong(+1.0);
  BOOST_TEST((right.info().backward_of == static_cast<unsigned>(Op::rotate)));
  for (const char* id : {"grad.reference_values", "grad.rotary_inverse"}) holds(id, right);
  holds("rope.reference_values", wrong);
  fails_rotary_inverse(wrong);
}

BOOST_AUTO_TEST_SUITE_END()  // test_grad_plugins
