// The planted-bug catalog of the declared-convention claims (CLAIMS.md §5,
// src/planted/catches_conventions.cpp): every row's mutant fails its property
// with that sub-check deciding, shrunk, with a diagnosis where the property
// diagnoses; and every declared sub-check of the §5 properties is failed by
// some planted bug (a check no bug can fail would be a check that cannot fail).
#include <boost/test/unit_test.hpp>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "pecheck/planted/mutants.h"
#include "pecheck/property/registry.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_convention_catalog)

using namespace pecheck;
using pecheck::testing::run_property;

namespace {

const std::set<std::string> kDiagnosed = {"rope.reference_values", "pe.reference_values"};
const std::set<std::string> kSection5 = {"rope.reference_values", "rope.pass_through", "rope.distinct_positions",
                                         "attention.causal_no_lookahead"};

}  // namespace

BOOST_AUTO_TEST_CASE(every_row_fails_its_property_with_its_check) {
  for (const auto& row : convention_catches()) {
    BOOST_TEST_CONTEXT(row.mutant << " on " << row.property) {
      const auto r = run_property(row.property, std::string("mutant:") + row.mutant);
      BOOST_TEST(name(r.outcome) == "violated", r.message());
      const auto* ce = r.counterexample();
      BOOST_REQUIRE(ce != nullptr);
      BOOST_TEST(ce->check == row.check);
      if (kDiagnosed.count(row.property) != 0) BOOST_TEST(!ce->diagnosis.empty());
    }
  }
}

BOOST_AUTO_TEST_CASE(every_section5_sub_check_is_caught_by_a_planted_bug) {
  std::set<std::pair<std::string, std::string>> caught;
  for (const auto& row : planted_catches()) caught.emplace(row.property, row.check);
  for (const auto& id : kSection5) {
    const auto* def = find_property(id);
    BOOST_REQUIRE_MESSAGE(def != nullptr, id);
    for (const auto& check : def->impl.checks) {
      BOOST_TEST(caught.count({id, check}) == 1, id << " / " << check << " has no planted bug that fails it");
    }
  }
}

// Issue 8's examples: each fails with a diagnosis that names the cause.
// The bfloat16 inv_freq cast is named with the margin where it shows most, not the shrunk witness's edge.
BOOST_AUTO_TEST_CASE(frequencies_rounded_to_bfloat16_fail_by_a_clear_margin_where_it_shows_most) {
  const auto r = run_property("rope.reference_values", "mutant:rope-llama-bf16-inv-freq");
  BOOST_REQUIRE(r.counterexample() != nullptr);
  const std::string& d = r.counterexample()->diagnosis;
  const auto at = d.find("× its bound");
  BOOST_REQUIRE_MESSAGE(at != std::string::npos, d);
  const auto from = d.rfind(", ", at);
  BOOST_TEST(std::stod(d.substr(from + 2, at - from - 2)) > 10, d);
}

BOOST_AUTO_TEST_CASE(the_diagnosis_names_the_usual_suspect) {
  struct Expected {
    const char* property;
    const char* mutant;
    const char* words;
  };
  const std::vector<Expected> expected = {
      {"rope.reference_values", "rope-identity", "identity map"},
      {"rope.reference_values", "rope-base-1000", "matches base 1000, not 10000"},
      {"rope.reference_values", "rope-inverse-rotation", "inverse rotation"},
      {"rope.reference_values", "rope-partial-declared-full", "rotates only the first 32 of 128 features"},
      {"rope.reference_values", "rope-llama-bf16-cache-rebuild", "angles computed in bfloat16, declared float32"},
      {"rope.reference_values", "rope-exponent-i-over-d", "matches the exponent i/d"},
      // Issue 23: positions ignored, sine and cosine at different frequencies, frequencies rounded first.
      {"rope.reference_values", "rope-positions-ignored", "ignores the positions it is given"},
      {"rope.reference_values", "rope-sin-cos-mismatch", "sine and cosine turn at different frequencies"},
      {"rope.reference_values", "rope-llama-bf16-inv-freq",
       "its frequencies are rounded to bfloat16 before the product t·ω_i"},
      {"pe.reference_values", "sinusoidal-cos-odd-exponent", "sine and cosine turn at different frequencies"},
      {"pe.reference_values", "sinusoidal-offset-ignored", "matches positions offset by 0 (position_offset 0), declared 2"},
      {"pe.reference_values", "sinusoidal-padding-row-leak", "position 1 encodes as all zeros"},
      {"pe.reference_values", "sinusoidal-schedule-misdeclared", "matches schedule i/(h-1)"},
      // Causal masks: which keys each query sees, probed on more tokens than the two-token witness.
      {"attention.causal_no_lookahead", "attention-causal-lookahead",
       "a causal mask shifted by 1 (tril(ones(n, n), diagonal=1)"},
      {"attention.causal_no_lookahead", "attention-causal-ignored", "every query sees every key"},
      {"attention.causal_no_lookahead", "attention-causal-path-unscaled", "each query sees exactly keys 0..i, as it should"},
  };
  for (const auto& [property, mutant, words] : expected) {
    BOOST_TEST_CONTEXT(property << " on mutant:" << mutant) {
      const auto r = run_property(property, std::string("mutant:") + mutant);
      BOOST_REQUIRE(r.counterexample() != nullptr);
      BOOST_TEST(r.counterexample()->diagnosis.find(words) != std::string::npos, r.counterexample()->diagnosis);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()  // test_convention_catalog
