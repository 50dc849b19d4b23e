// The pe family (properties/pe/structure.cpp, pe/dot.cpp, pe/linear_shift.cpp,
// pe/distinct.cpp, pe/step_size.cpp, pe/reference_values.cpp, pe/common.cpp):
// every property holds on the reference, fails on a planted bug of a kind real
// implementations have (subjects/mutants/encoder_mutants.cpp) with a small
// shrunk witness, and the six built-in encoders (subjects/builtin/encoders.cpp)
// meet the claims matrix of CLAIMS.md §2. Fairness across dtypes: test_pe_dtype.cpp.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "pecheck/property/registry.h"
#include "pecheck/subjects/factory.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_pe)

using namespace pecheck;
using pecheck::testing::QuickRun;
using pecheck::testing::run_property;

namespace {

const std::vector<std::string> kProperties = {
    "pe.bounded",          "pe.constant_norm",       "pe.offset_only_dot",    "pe.dot_symmetry",    "pe.linear_shift",
    "pe.length_independence", "pe.distinct_positions", "pe.step_size",       "pe.reference_values"};

// A violation, shrunk, with its witness; returns the witness's inputs.
json violated(const std::string& property, const std::string& spec, QuickRun options = {}) {
  const auto r = run_property(property, spec, options);
  BOOST_TEST(name(r.outcome) == "violated", property << " on " << spec << ": " << r.message());
  if (!r.counterexample()) {
    BOOST_ERROR(property << " on " << spec << " has no counterexample");
    return json::object();
  }
  const Counterexample& c = *r.counterexample();
  // Past an upper bound, or short of a lower one (a distance that must exceed rounding).
  BOOST_TEST((c.bound_kind == Bound::Kind::lower ? c.error < c.tolerance.bound : c.error > c.tolerance.bound));
  return r.counterexample()->inputs;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_registry_lists_the_family_in_catalog_order) {
  std::vector<std::string> ids;
  for (const auto& p : all_properties()) {
    if (p.info.family == "pe") ids.push_back(p.info.id);
  }
  BOOST_TEST(ids == kProperties, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(every_property_holds_on_the_reference) {
  for (const auto& property : kProperties) {
    BOOST_TEST_CONTEXT(property) {
      const auto r = run_property(property, "builtin:sinusoidal");
      BOOST_TEST(name(r.outcome) == "holds");
      BOOST_TEST(r.cases == 100);
      BOOST_TEST(r.discards == 0);
      BOOST_TEST(r.tolerance().formula.find("float64") != std::string::npos, r.tolerance().formula);
    }
  }
}

// CLAIMS.md §2, written out here independently of the registry: which claims
// each counter-scheme breaks. Every violated cell finds and shrinks a witness
// with the default seed and with seeds 2..5.
BOOST_AUTO_TEST_CASE(the_builtin_encoders_meet_the_claims_matrix) {
  const std::set<std::string> structural_breaks = {"pe.constant_norm", "pe.offset_only_dot", "pe.dot_symmetry",
                                                   "pe.linear_shift", "pe.step_size", "pe.reference_values"};
  auto with = [](std::set<std::string> s, std::initializer_list<std::string> more) {
    s.insert(more);
    return s;
  };
  const std::map<std::string, std::set<std::string>> violated_by = {
      {"sinusoidal", {}},
      {"sinusoidal-halves", {"pe.reference_values"}},
      {"sinusoidal-scaled", {"pe.reference_values"}},
      {"learned", structural_breaks},
      {"normalized", with(structural_breaks, {"pe.length_independence"})},
      {"integer", with(structural_breaks, {"pe.bounded"})},
  };
  for (const auto& [scheme, violated_set] : violated_by) {
    for (const auto& property : kProperties) {
      const bool expect_violation = violated_set.count(property) > 0;
      BOOST_TEST_CONTEXT(property << " on builtin:" << scheme) {
        BOOST_TEST(name(find_property(property)->info.expectation(scheme)) ==
                   (expect_violation ? "violated" : "holds"));
        for (std::uint64_t seed : {1, 2, 3, 4, 5}) {
          const auto r = run_property(property, "builtin:" + scheme, {.seed = seed});
          BOOST_TEST(name(r.outcome) == (expect_violation ? "violated" : "holds"), "seed " << seed);
          BOOST_TEST(name(r.status()) == "passed", "seed " << seed << ": " << r.message());
          if (expect_violation) BOOST_TEST(r.counterexample() != nullptr, "seed " << seed);
        }
      }
    }
  }
}

// pe.bounded ------------------------------------------------------------------
BOOST_AUTO_TEST_CASE(bounded_fails_on_integer_positions_and_a_sqrt_d_scaling) {
  // Shrunk to the smallest position above the bound: t = 2 at the smallest dim.
  const json integer = violated("pe.bounded", "builtin:integer");
  BOOST_TEST(integer["position"].get<int>() == 2);
  BOOST_TEST(integer["dim"].get<int>() == 2);
  // √d·p_t (the token-embedding scaling applied to the position) leaves [-1, 1] at once.
  const json scaled = violated("pe.bounded", "mutant:sinusoidal-times-sqrt-d");
  BOOST_TEST(scaled["dim"].get<int>() == 2);
  BOOST_TEST(scaled["position"].get<int>() == 0);
}

// pe.constant_norm ----------------------------------------------------------------
BOOST_AUTO_TEST_CASE(constant_norm_fails_when_cosines_use_the_next_frequency) {
  // sin²(t·ω_0) + cos²(t·ω_1) ≠ 1 from the first position where t ≠ 0.
  const json w = violated("pe.constant_norm", "mutant:sinusoidal-cos-next-frequency");
  BOOST_TEST(w["dim"].get<int>() == 2);
  BOOST_TEST(w["position"].get<int>() == 1);
}

// pe.offset_only_dot (pe/dot.cpp) ------------------------------------------------
BOOST_AUTO_TEST_CASE(offset_only_dot_fails_on_a_frequency_mismatch) {
  const json w = violated("pe.offset_only_dot", "mutant:sinusoidal-cos-next-frequency");
  BOOST_TEST(w["dim"].get<int>() == 2);
  BOOST_TEST(w["offset"].get<int>() == 1);
  BOOST_TEST(w["t"].get<int>() + w["s"].get<int>() <= 2);
}

BOOST_AUTO_TEST_CASE(offset_only_dot_fails_across_lengths_for_the_normalized_scheme) {
  // The normalized scheme shrinks to the same positions in two sequence
  // lengths: its dot products change with N alone.
  const json w = violated("pe.offset_only_dot", "builtin:normalized");
  // Position 0 is 0 at every length, so the witness is t, s ∈ {0, 1} (or t = s).
  BOOST_TEST(std::abs(w["t"].get<int>() - w["s"].get<int>()) <= 1);
  BOOST_TEST(w["seq_len_t"].get<int>() != w["seq_len_s"].get<int>());
  BOOST_TEST(w["dim"].get<int>() == 2);
}

// pe.dot_symmetry (pe/dot.cpp) -----------------------------------------------------
BOOST_AUTO_TEST_CASE(dot_symmetry_fails_on_a_frequency_mismatch) {
  const json w = violated("pe.dot_symmetry", "mutant:sinusoidal-cos-next-frequency");
  BOOST_TEST(w["dim"].get<int>() == 2);
  BOOST_TEST(w["t"].get<int>() == 1);
  BOOST_TEST(w["offset"].get<int>() == 1);
}

// pe.linear_shift (pe/linear_shift.cpp) ----------------------------------------------
BOOST_AUTO_TEST_CASE(linear_shift_fits_more_positions_than_dimensions_and_rejects_a_table) {
  for (const std::string spec : {"builtin:learned", "mutant:sinusoidal-cos-next-frequency"}) {
    BOOST_TEST_CONTEXT(spec) {
      const json w = violated("pe.linear_shift", spec);
      BOOST_TEST(w["dim"].get<int>() == 2);
      // A d×d map fits any d positions exactly: the witness fits twice as many.
      BOOST_TEST(w["fit"].size() == 2 * w["dim"].get<size_t>());
      BOOST_TEST(w["held"].size() > 0u);
    }
  }
}

BOOST_AUTO_TEST_CASE(linear_shift_composition_sees_a_cache_that_wraps) {
  // Fitted below the wrap, the shift maps predict held-out positions past it wrongly.
  const auto r = run_property("pe.linear_shift", "mutant:sinusoidal-cache-wraps");
  BOOST_TEST(name(r.outcome) == "violated");
  BOOST_REQUIRE(r.counterexample() != nullptr);
  BOOST_TEST(r.counterexample()->inputs["seq_len"].get<int>() > 512);
}

// pe.length_independence ---------------------------------------------------------------
BOOST_AUTO_TEST_CASE(length_independence_fails_when_positions_count_from_the_end) {
  const json w = violated("pe.length_independence", "mutant:sinusoidal-from-end");
  BOOST_TEST(w["dim"].get<int>() == 2);
  BOOST_TEST(w["position"].get<int>() == 0);
  BOOST_TEST(w["seq_len_a"].get<int>() != w["seq_len_b"].get<int>());
  BOOST_TEST(std::max(w["seq_len_a"].get<int>(), w["seq_len_b"].get<int>()) == 2);
}

// pe.distinct_positions (pe/distinct.cpp) -------------------------------------------------
BOOST_AUTO_TEST_CASE(distinct_positions_fails_on_a_cache_that_wraps) {
  for (std::uint64_t seed : {1, 2, 3, 4, 5}) {
    BOOST_TEST_CONTEXT("seed " << seed) {
      const json w = violated("pe.distinct_positions", "mutant:sinusoidal-cache-wraps", {.seed = seed});
      const auto ts = w["positions"].get<std::vector<Position>>();
      // Shrunk to two positions a whole number of cache lengths apart.
      BOOST_REQUIRE(ts.size() == 2u);
      BOOST_TEST(ts[0] != ts[1]);
      BOOST_TEST((ts[1] - ts[0]) % 512 == 0);
      BOOST_TEST(std::min(ts[0], ts[1]) == 0);
      BOOST_TEST(w["dim"].get<int>() == 2);
    }
  }
}

// pe.step_size (pe/step_size.cpp) ---------------------------------------------------------------
BOOST_AUTO_TEST_CASE(a_wrong_frequency_schedule_or_layout_fails_only_reference_values) {
  // One cause, one property (issue 8): a schedule, base or layout other than
  // the declared one is pe.reference_values' to name, with a diagnosis; the
  // structural claims, step_size among them, hold for any such sinusoid.
  for (const std::string bug : {"sinusoidal-exponent-i-over-d", "sinusoidal-base-1000",
                                "sinusoidal-halves-claims-interleaved"}) {
    BOOST_TEST_CONTEXT(bug) {
      const auto r = run_property("pe.reference_values", "mutant:" + bug);
      BOOST_TEST(name(r.outcome) == "violated");
      BOOST_REQUIRE(r.counterexample() != nullptr);
      BOOST_TEST(r.counterexample()->diagnosis.find("matches") != std::string::npos, r.counterexample()->diagnosis);
      for (const std::string holds : {"pe.step_size", "pe.offset_only_dot", "pe.linear_shift", "pe.constant_norm"}) {
        BOOST_TEST(name(run_property(holds, "mutant:" + bug).outcome) == "holds", holds);
      }
    }
  }
  // A step that is not A·2·sin(ω_i/2) still fails step_size: √d scaling.
  violated("pe.step_size", "mutant:sinusoidal-times-sqrt-d");
}

BOOST_AUTO_TEST_CASE(step_size_pairs_an_undeclared_layout_by_the_better_fitting_convention) {
  // CLAIMS.md: the halves scheme passes every structural property.
  const auto r = run_property("pe.step_size", "builtin:sinusoidal-halves");
  BOOST_TEST(name(r.outcome) == "holds");
  BOOST_TEST(r.note().find("halves layout") != std::string::npos, r.note());
  BOOST_TEST(run_property("pe.step_size", "builtin:sinusoidal").note().find("interleaved layout (as declared)") !=
             std::string::npos);
}

// pe.reference_values (pe/reference_values.cpp) ---------------------------------------------------------
BOOST_AUTO_TEST_CASE(reference_values_prints_the_published_numbers) {
  const auto r = run_property("pe.reference_values", "builtin:sinusoidal");
  BOOST_TEST(name(r.outcome) == "holds");
  BOOST_TEST(r.note().find("published (003, d=16): p5·p6 = 7.4852, p105·p106 = 7.4852, p5·p10 = 6.1370; "
                         "observed 7.4852, 7.4852, 6.1370") != std::string::npos,
             r.note());
  // The halves layout has the same dot products: only its entries differ,
  // and its witness is an entry (shrinking dropped the published check).
  const auto halves = run_property("pe.reference_values", "builtin:sinusoidal-halves");
  BOOST_REQUIRE(halves.counterexample() != nullptr);
  BOOST_TEST(halves.counterexample()->inputs["published"].get<bool>() == false);
  auto published_note = [](const std::string& spec) {
    const json with_published = {{"published", true}, {"dim", 2}, {"positions", {0}}, {"seq_len", 1}};
    const PropertyDef& p = *find_property("pe.reference_values");
    const auto subject = make_subject(spec);
    return p.impl.remeasure(*subject, with_published, BoundModel(ErrorModel{}, p.info.id, subject->info())).note;
  };
  BOOST_TEST(published_note("builtin:sinusoidal-halves").find("observed 7.4852, 7.4852, 6.1370") != std::string::npos);
  // A scaled encoding's dot products are scaled by A² = 0.01.
  BOOST_TEST(published_note("builtin:sinusoidal-scaled").find("observed 0.0749, 0.0749, 0.0614") != std::string::npos,
             published_note("builtin:sinusoidal-scaled"));
}

BOOST_AUTO_TEST_CASE(reference_values_fails_on_bugs_no_structural_claim_sees) {
  // Each of these is still a sinusoidal encoding up to a relabelling, so it
  // keeps every structural property; only the values give it away.
  for (const std::string bug : {"sinusoidal-off-by-one", "sinusoidal-sin-cos-swapped"}) {
    BOOST_TEST_CONTEXT(bug) {
      const json w = violated("pe.reference_values", "mutant:" + bug);
      BOOST_TEST(w["dim"].get<int>() == 2);
      BOOST_TEST(w["positions"] == json::array({0}));
      for (const auto& property : kProperties) {
        if (property == "pe.reference_values") continue;
        BOOST_TEST(name(run_property(property, "mutant:" + bug).outcome) == "holds", property);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(reference_values_shrinks_a_frequency_schedule_bug_from_the_published_numbers) {
  // The first failing case fails only 003's numbers (t = 0 is right whatever
  // the frequencies); shrinking tries the published positions as cases and
  // reaches the smallest wrong entry: t = 1 in pair 1.
  const json w = violated("pe.reference_values", "mutant:sinusoidal-exponent-i-over-d");
  BOOST_TEST(w["published"].get<bool>() == false);
  BOOST_TEST(w["dim"].get<int>() == 4);
  BOOST_TEST(w["positions"] == json::array({1}));
}

// Which bug breaks what, for all planted encoder bugs (each row is checked in full).
BOOST_AUTO_TEST_CASE(planted_bugs_fail_exactly_the_properties_they_break) {
  const std::map<std::string, std::set<std::string>> caught_by = {
      {"sinusoidal-cos-next-frequency",
       {"pe.constant_norm", "pe.offset_only_dot", "pe.dot_symmetry", "pe.linear_shift", "pe.step_size",
        "pe.reference_values"}},
      {"sinusoidal-sin-cos-swapped", {"pe.reference_values"}},
      {"sinusoidal-exponent-i-over-d", {"pe.reference_values"}},
      {"sinusoidal-base-1000", {"pe.reference_values"}},
      {"sinusoidal-off-by-one", {"pe.reference_values"}},
      {"sinusoidal-halves-claims-interleaved", {"pe.reference_values"}},
      {"sinusoidal-from-end", {"pe.length_independence", "pe.reference_values"}},
      {"sinusoidal-times-sqrt-d", {"pe.bounded", "pe.constant_norm", "pe.step_size", "pe.reference_values"}},
  };
  for (const auto& [bug, caught] : caught_by) {
    for (const auto& property : kProperties) {
      BOOST_TEST_CONTEXT(property << " on mutant:" << bug) {
        const auto r = run_property(property, "mutant:" + bug);
        BOOST_TEST(name(r.outcome) == (caught.count(property) ? "violated" : "holds"));
        // Judged as the scheme it imitates: a caught bug is a failed expectation.
        BOOST_TEST(name(r.status()) == (caught.count(property) ? "failed" : "passed"));
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()  // test_pe
