// grad.finite draws ties (CLAIMS.md §11; Liger-Kernel #1373: a gradient wrong
// only at a tie, which random inputs never draw): a backward that assumes a
// unique maximum logit is NaN only where logits tie — every other gradient
// claim, drawing no ties, holds on it — and grad.finite finds it, with a
// witness whose keys are equal or whose queries are zero.
#include <boost/test/unit_test.hpp>

#include "pecheck/planted/mutants.h"
#include "pecheck/property/registry.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_grad_ties)

using namespace pecheck;

BOOST_AUTO_TEST_CASE(a_backward_nan_only_at_tied_logits_fails_grad_finite_alone) {
  install_planted_subjects();
  const std::string mutant = "mutant:attention-backward-tied-logits-nan";
  // Untied inputs: its gradients are the reference's.
  for (const char* id : {"grad.reference_values", "grad.causality", "grad.permutation_equivariance"}) {
    BOOST_TEST_CONTEXT(id) {
      const PropertyResult r = testing::run_property(id, mutant);
      BOOST_TEST((r.status() == Status::passed), name(r.outcome) << ": " << r.message());
    }
  }
  const PropertyResult found = testing::run_property("grad.finite", mutant);
  BOOST_REQUIRE(found.counterexample() != nullptr);
  BOOST_TEST(found.counterexample()->check == "dq");
  // The witness is a tie: every key equal, or every query zero.
  const json& input = found.counterexample()->inputs;
  const Matrix q = input.at("q").get<Matrix>(), k = input.at("k").get<Matrix>();
  const bool keys_tie = k.rows() > 1 && (k.rowwise() - k.row(0)).cwiseAbs().maxCoeff() == 0;
  const bool queries_zero = q.cwiseAbs().maxCoeff() == 0;
  BOOST_TEST((keys_tie || queries_zero), input.dump());
  // The correct attention holds it on the same draws.
  BOOST_TEST((testing::run_property("grad.finite", "builtin:attention").status() == Status::passed));
}

BOOST_AUTO_TEST_SUITE_END()  // test_grad_ties
