// The backward of `forward` (CLAIMS.md §11, modules): the reference block's
// reverse pass against central differences of the built-in block's forward
// (plain, and under GQA, a window, sinks and a soft-cap), the op over the
// protocol (B × N × d tensors both ways), the reference module holding
// grad.causality and grad.reference_values, and a block whose backward leaks
// to later tokens failing both with a witness that replays.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <functional>

#include "pecheck/planted/mutants.h"
#include "pecheck/property/registry.h"
#include "pecheck/reference/modules.h"
#include "pecheck/reference/vjp.h"
#include "pecheck/replay/replay.h"
#include "pecheck/report/json_writer.h"
#include "pecheck/subjects/builtin/modules_llama.h"
#include "pecheck/protocol/calls.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/typed_subject.h"
#include "support/finite_differences.h"
#include "support/planted.h"
#include "support/served_in_thread.h"

BOOST_AUTO_TEST_SUITE(test_grad_modules)

using namespace pecheck;
using pecheck::testing::filled;
using pecheck::testing::gap;
using pecheck::testing::numeric_vjp;

BOOST_AUTO_TEST_CASE(the_piece_vjps_match_finite_differences) {
  const Matrix x = filled(3, 6, 0.4), g = filled(3, 6, 1.3);
  const Vector w = filled(6, 1, 2.1).col(0).array() + 1.0;
  BOOST_TEST(gap(reference::rms_norm_vjp(x, w, g), numeric_vjp([&](const Matrix& in) { return reference::rms_norm(in, w); }, x, g)) < 1e-7);
  BOOST_TEST(gap(reference::silu_vjp(x, g), numeric_vjp([](const Matrix& in) { return reference::silu(in); }, x, g)) < 1e-7);
  const Positions ts{0, 4, 11};
  const auto omega = reference::rope_frequencies(6, 10000);
  BOOST_TEST(gap(reference::rotate_halves_vjp(g, ts, omega),
                 numeric_vjp([&](const Matrix& in) { return reference::rotate_halves(in, ts, omega); }, x, g)) < 1e-7);
}

BOOST_AUTO_TEST_CASE(the_block_vjp_matches_finite_differences_of_the_builtin_forward) {
  struct Setting {
    const char* what;
    LlamaBlockOptions options;
  };
  LlamaBlockOptions plain, gpt_oss = gpt_oss_block_options(), gemma = gemma2_block_options(), nope;
  nope.rope = false;
  for (Setting s : {Setting{"llama", plain}, Setting{"gpt-oss (GQA, window, sinks)", gpt_oss},
                    Setting{"gemma2 (softcap, scale)", gemma}, Setting{"NoPE", nope}}) {
    BOOST_TEST_CONTEXT(s.what) {
      s.options.answers_backward = true;
      LlamaBlockSubject block(llama_block_info("b", builtin_spec("llama-block"), s.options, "llama-block"), s.options);
      const Matrix x = filled(6, 32, 0.7), g = filled(6, 32, 2.9);
      const Positions at{3, 4, 5, 6, 7, 8};
      const auto f = [&](const Matrix& in) { return block.forward({in}, {at}, {}).front(); };
      const Batch analytic = block.forward_backward(ForwardCall{{x}, {at}, {}, std::nullopt, {}}, {g});
      BOOST_REQUIRE(analytic.size() == 1u);
      const Matrix numeric = numeric_vjp(f, x, g);
      BOOST_TEST(gap(analytic[0], numeric) < 1e-6 * std::max(1.0, numeric.cwiseAbs().maxCoeff()));
    }
  }
}

BOOST_AUTO_TEST_CASE(the_backward_of_forward_travels_the_protocol_as_tensors) {
  const auto builtin = make_subject("builtin:llama-block");
  BOOST_TEST((builtin->info().backward_of == static_cast<unsigned>(Op::forward)));
  testing::ServedInThread served(*builtin);
  const auto s = make_subject(served.spec());
  BOOST_TEST((s->info().backward_of == static_cast<unsigned>(Op::forward)));
  const ForwardCall call{{filled(5, 32, 0.1), filled(5, 32, 0.6)}, {}, {}, std::nullopt, {}};
  const Batch g{filled(5, 32, 1.1), filled(5, 32, 1.9)};
  const Batch direct = ask::forward_backward(*builtin, call, g);
  const Batch remote = ask::forward_backward(*s, call, g);
  BOOST_REQUIRE(remote.size() == 2u);
  for (std::size_t b = 0; b < 2; ++b) BOOST_TEST(gap(remote[b], direct[b]) == 0.0);
  // Each sequence's dx is its own: the second sequence's gradient does not move the first's dx.
  const Batch alone = ask::forward_backward(*builtin, ForwardCall{{call.x[0]}, {}, {}, std::nullopt, {}}, {g[0]});
  BOOST_TEST(gap(alone[0], direct[0]) == 0.0);
  // Its report form reads back.
  const BackwardCall wrapped{call, heads_to_columns(g)};
  const Call back = call_from_json(call_to_json(wrapped));
  BOOST_TEST((std::get<BackwardCall>(back).of_op() == Op::forward));
  BOOST_TEST(describe_call(wrapped).find("backward of forward") == 0u);
}

BOOST_AUTO_TEST_CASE(the_reference_module_holds_the_module_gradient_claims) {
  for (const char* id : {"grad.causality", "grad.reference_values"}) {
    BOOST_TEST_CONTEXT(id) {
      const PropertyResult r = testing::run_property(id, "builtin:llama-block");
      BOOST_TEST((r.status() == Status::passed), name(r.outcome) << ": " << r.message());
    }
  }
  // A module that is not a reference module has no reference for its dx: reference_values does not apply.
  SubjectInfo user = make_subject("builtin:llama-block")->info();
  user.scheme = "user-block";
  BOOST_TEST(!find_property("grad.reference_values")->info.applies_to(user));
  BOOST_TEST(find_property("grad.causality")->info.applies_to(user));
  user.forward->causal = false;
  BOOST_TEST(!find_property("grad.causality")->info.applies_to(user));
}

BOOST_AUTO_TEST_CASE(a_block_whose_backward_leaks_to_later_tokens_fails_with_a_witness_that_replays) {
  install_planted_subjects();
  const auto fixed = make_subject("builtin:llama-block");
  for (const char* id : {"grad.causality", "grad.reference_values"}) {
    BOOST_TEST_CONTEXT(id) {
      const PropertyResult found = testing::run_property(id, "mutant:llama-block-backward-causal-leak");
      BOOST_REQUIRE(found.counterexample() != nullptr);
      BOOST_TEST(found.counterexample()->check == "dx");
      const PropertyDef& property = *find_property(id);
      const json inputs = found.counterexample()->inputs;
      const auto mutant = make_subject("mutant:llama-block-backward-causal-leak");
      const auto expectation = property.info.expectation("llama-block", mutant->info());
      const PropertyResult again = replay_case(property, *mutant, inputs, ErrorModel{}, expectation);
      BOOST_TEST(replay_verdict(again) == "still fails");
      const PropertyResult now = replay_case(property, *fixed, inputs, ErrorModel{}, expectation);
      BOOST_TEST(replay_verdict(now) == "now holds (fixed)");
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()  // test_grad_modules
