// The backward op and its claims (CLAIMS.md §11): the float64 VJP references
// against central finite differences, the op over the protocol (a process
// subject talking to serve, JSON and b64le, head tensors), the correct
// built-ins holding every grad claim at every dtype, and replay of a
// counterexample's recorded input.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <functional>

#include "pecheck/planted/mutants.h"
#include "pecheck/replay/replay.h"
#include "pecheck/report/json_writer.h"
#include "pecheck/subjects/builtin/attention.h"
#include "pecheck/property/registry.h"
#include "pecheck/reference/attention.h"
#include "pecheck/reference/rotary.h"
#include "pecheck/reference/vjp.h"
#include "pecheck/protocol/calls.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/typed_subject.h"
#include "support/finite_differences.h"
#include "support/planted.h"
#include "support/served_in_thread.h"

BOOST_AUTO_TEST_SUITE(test_grad)

using namespace pecheck;
using pecheck::testing::filled;
using pecheck::testing::gap;
using pecheck::testing::numeric_vjp;

BOOST_AUTO_TEST_CASE(rotary_vjp_matches_finite_differences_in_every_layout_and_a_scaled_scheme) {
  const Positions ts{0, 3, 17, 250};
  for (Layout layout : {Layout::interleaved, Layout::halves, Layout::interleave_then_halves}) {
    for (bool yarn : {false, true}) {
      RotateConvention c;
      c.layout = layout;
      if (yarn) {
        c.scaling.type = ScalingType::yarn;
        c.scaling.factor = 4;
        c.scaling.original_max_position = 64;
      }
      BOOST_TEST_CONTEXT("layout " << name(layout) << (yarn ? ", yarn" : "")) {
        const Matrix x = filled(4, 8, 0.3), g = filled(4, 8, 1.1);
        const auto f = [&](const Matrix& in) { return reference::rotary(ts, in, c, 300); };
        const Matrix analytic = reference::rotary_vjp(ts, g, c, 300);
        BOOST_TEST(gap(analytic, numeric_vjp(f, x, g)) < 1e-7);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(attention_vjp_matches_finite_differences_under_every_convention) {
  struct Setting {
    const char* what;
    AttentionConvention c;
    AttentionMask mask;
    int heads, kv_heads;
  };
  std::vector<Setting> settings;
  settings.push_back({"plain", {}, AttentionMask::none(), 1, 1});
  settings.push_back({"causal", {}, AttentionMask::causal(), 1, 1});
  AttentionConvention gqa;
  gqa.heads = 4;
  gqa.kv_heads = 2;
  settings.push_back({"GQA repeat_interleave", gqa, AttentionMask::causal(), 4, 2});
  gqa.grouping = Grouping::tile;
  settings.push_back({"GQA tile", gqa, AttentionMask::none(), 4, 2});
  AttentionConvention capped;
  capped.softcap = 0.7;
  capped.scale = 0.9;
  settings.push_back({"softcap and scale", capped, AttentionMask::none(), 1, 1});
  AttentionConvention sinks;
  sinks.heads = 2;
  sinks.sinks = true;
  sinks.sink_logits = {0.5, -1.0};
  settings.push_back({"sinks", sinks, AttentionMask::none(), 2, 2});
  AttentionConvention window;
  window.window = 2;
  settings.push_back({"window", window, AttentionMask::causal(), 1, 1});
  AttentionConvention chunk;
  chunk.chunk = 3;
  settings.push_back({"chunk", chunk, AttentionMask::causal(), 1, 1});
  for (const auto& s : settings) {
    BOOST_TEST_CONTEXT(s.what) {
      const Eigen::Index n = 5, d = 3;
      const Matrix q = filled(n, s.heads * d, 0.1), k = filled(n, s.kv_heads * d, 0.7), v = filled(n, s.kv_heads * d, 2.3);
      const Matrix g = filled(n, s.heads * d, 3.9);
      const auto y = [&](const Matrix& qq, const Matrix& kk, const Matrix& vv) {
        return reference::attention(qq, kk, vv, s.mask, s.heads, Dtype::float64, s.c);
      };
      const auto vjp = reference::attention_vjp(q, k, v, s.mask, s.heads, s.c, g);
      BOOST_TEST(gap(vjp.dq, numeric_vjp([&](const Matrix& x) { return y(x, k, v); }, q, g)) < 1e-7);
      BOOST_TEST(gap(vjp.dk, numeric_vjp([&](const Matrix& x) { return y(q, x, v); }, k, g)) < 1e-7);
      BOOST_TEST(gap(vjp.dv, numeric_vjp([&](const Matrix& x) { return y(q, k, x); }, v, g)) < 1e-7);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_fully_masked_row_under_zeros_has_no_gradient) {
  AttentionConvention zeros;
  zeros.fully_masked = FullyMasked::zeros;
  BoolMatrix allowed = BoolMatrix::Constant(3, 3, true);
  allowed.row(1).setConstant(false);
  const auto vjp = reference::attention_vjp(filled(3, 2, 0), filled(3, 2, 1), filled(3, 2, 2),
                                            AttentionMask::boolean(allowed), 1, zeros, filled(3, 2, 3));
  BOOST_TEST(vjp.dq.row(1).isZero(0.0));
  BOOST_TEST(vjp.dq.allFinite());
  BOOST_CHECK_THROW(reference::attention_vjp(filled(3, 2, 0), filled(3, 2, 1), filled(3, 2, 2),
                                             AttentionMask::boolean(allowed), 1, AttentionConvention{}, filled(3, 2, 3)),
                    Refusal);
}

BOOST_AUTO_TEST_CASE(backward_travels_the_protocol_and_serve_answers_it) {
  for (const char* name : {"builtin:rope-halves", "builtin:attention-llama4"}) {
    BOOST_TEST_CONTEXT(name) {
      const auto builtin = make_subject(name);
      testing::ServedInThread served(*builtin);
      const auto s = make_subject(served.spec());
      BOOST_TEST(s->info().supports(Op::backward));
      BOOST_TEST(s->info().backward_of == builtin->info().backward_of);
      if (s->info().supports(Op::rotate)) {
        const RotateCall call{{0, 5, 9}, filled(3, 8, 0.2), 10};
        const Matrix g = filled(3, 8, 0.9);
        const Batch direct = ask::rotate_backward(*builtin, call, g);
        const Batch remote = ask::rotate_backward(*s, call, g);
        BOOST_TEST(remote.size() == 1u);
        BOOST_TEST(gap(remote[0], direct[0]) == 0.0);
        BOOST_CHECK_THROW(ask::attention_backward(*s, AttentionCall{filled(2, 2, 0), filled(2, 2, 0), filled(2, 2, 0),
                                                                    AttentionMask::none()},
                                                  filled(2, 2, 0)),
                          Refusal);
      } else {
        // Llama 4's heads travel as head tensors, the gradients come back so.
        const AttentionCall call{filled(6, 8, 0.1), filled(6, 4, 0.4), filled(6, 4, 0.8), AttentionMask::causal(), 4};
        const Matrix g = filled(6, 8, 1.7);
        const Batch direct = ask::attention_backward(*builtin, call, g);
        const Batch remote = ask::attention_backward(*s, call, g);
        BOOST_TEST(remote.size() == 3u);
        for (std::size_t i = 0; i < 3 && i < remote.size(); ++i) BOOST_TEST(gap(remote[i], direct[i]) == 0.0);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_backward_request_reads_back_from_its_report_form) {
  const BackwardCall call{RotateCall{{1, 2}, filled(2, 4, 0), 3}, filled(2, 4, 1)};
  const json j = call_to_json(call);
  BOOST_TEST(j.at("op") == "backward");
  BOOST_TEST(j.at("of") == "rotate");
  const Call back = call_from_json(j);
  const auto* read = std::get_if<BackwardCall>(&back);
  BOOST_REQUIRE(read != nullptr);
  BOOST_TEST((read->of_op() == Op::rotate));
  BOOST_TEST(gap(read->grad, call.grad) == 0.0);
  BOOST_TEST(describe_call(call).find("backward of rotate") == 0u);
}

BOOST_AUTO_TEST_CASE(correct_backwards_hold_every_grad_claim_at_every_dtype) {
  const char* rotary[] = {"rope", "rope-halves", "rope@float32", "rope@float16", "rope@bfloat16"};
  const char* attention[] = {"attention", "attention-llama4", "attention@float32", "attention@float16",
                             "attention@bfloat16"};
  for (const char* id : {"grad.reference_values", "grad.rotary_inverse"}) {
    for (const char* b : rotary) {
      BOOST_TEST_CONTEXT(id << " on builtin:" << b) {
        const PropertyResult r = testing::run_property(id, std::string("builtin:") + b);
        BOOST_TEST((r.status() == Status::passed), name(r.outcome) << ": " << r.message());
      }
    }
  }
  for (const char* id : {"grad.reference_values", "grad.causality", "grad.finite", "grad.permutation_equivariance"}) {
    for (const char* b : attention) {
      BOOST_TEST_CONTEXT(id << " on builtin:" << b) {
        const PropertyResult r = testing::run_property(id, std::string("builtin:") + b);
        BOOST_TEST((r.status() == Status::passed), name(r.outcome) << ": " << r.message());
      }
    }
  }
}

// The counterexample file `pecheck run` writes for `r`, read back as replay reads it.
RecordedCase recorded_for(const PropertyResult& r) {
  RunReport report;
  report.pecheck_version = PECHECK_VERSION;
  report.seed = 1;
  report.cases = 100;
  report.max_position = 10000;
  report.tolerance_factor = 8;
  report.properties = {find_property(r.property)->info};
  report.subjects = {{r.subject, r.subject, "float64", "unspecified", "attention", {"attention", "backward"}}};
  report.results = {r};
  return parse_recorded_case(counterexample_json(report, r));
}

PropertyResult replay_on(const RecordedCase& recorded, Subject& subject) {
  const PropertyDef& property = *find_property(recorded.property);
  return replay_case(property, subject, recorded.inputs, recorded.error_model,
                     recorded.expectation.value_or(property.info.expectation(subject.info().scheme, subject.info())));
}

BOOST_AUTO_TEST_CASE(a_leaking_causal_backward_and_a_wrong_gqa_reduction_fail_with_witnesses_that_replay) {
  install_planted_subjects();
  // A correct GQA twin of the planted bug: 4 query heads over 2 kv heads, repeat_interleave.
  SubjectInfo gqa = with_backward(attention_info("gqa", builtin_spec("attention"), Dtype::float64));
  gqa.attention.heads = 4;
  gqa.attention.kv_heads = 2;
  AttentionSubject gqa_fixed(gqa);
  const auto attention_fixed = make_subject("builtin:attention");
  struct Row {
    const char* property;
    const char* mutant;
    const char* check;
    Subject* fixed;
  };
  for (const Row& row : {Row{"grad.causality", "mutant:attention-backward-causal-leak-dk", "dk", attention_fixed.get()},
                         Row{"grad.reference_values", "mutant:attention-backward-gqa-dk-wrong-kv-head", "dk", &gqa_fixed}}) {
    BOOST_TEST_CONTEXT(row.property << " × " << row.mutant) {
      const PropertyResult found = testing::run_property(row.property, row.mutant);
      BOOST_REQUIRE(found.counterexample() != nullptr);
      BOOST_TEST(found.counterexample()->check == row.check);
      const RecordedCase recorded = recorded_for(found);
      const auto mutant = make_subject(row.mutant);
      const PropertyResult again = replay_on(recorded, *mutant);
      BOOST_TEST(replay_verdict(again) == "still fails");
      BOOST_REQUIRE(again.counterexample() != nullptr);
      BOOST_TEST(again.counterexample()->error == found.counterexample()->error);
      const PropertyResult fixed = replay_on(recorded, *row.fixed);
      BOOST_TEST(replay_verdict(fixed) == "now holds (fixed)");
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()  // test_grad
