// CLAIMS.md §6–7 and history_independence through the cell runner:
//   every planted bug of the module catalog (planted/catches_modules.cpp)
//   fails its property on the sub-check the catalog names, and every
//   declared sub-check of these claims has such a bug;
//   every correct built-in passes every claim that applies to it (or shows
//   the violation its scheme expects);
//   applicability follows the declared conventions (applies_when);
//   witnesses are shrunk to the situation the bug needs.
#include <boost/test/unit_test.hpp>

#include <set>
#include <string>

#include "pecheck/planted/mutants.h"
#include "pecheck/property/applicability.h"
#include "pecheck/property/registry.h"
#include "pecheck/replay/replay.h"
#include "pecheck/subjects/factory.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_claims_modules)

using namespace pecheck;
using namespace pecheck::testing;

namespace {

bool ours(std::string_view id) {
  return id.starts_with("bias.") || id.starts_with("module.") || id == "history_independence";
}

QuickRun quick(int cases = 60) {
  QuickRun options;
  options.cases = cases;
  return options;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_sub_check_of_these_claims_has_a_planted_bug) {
  std::set<std::pair<std::string, std::string>> caught;
  // The module claims of issues 20 and 21 keep their planted bugs in their own
  // catalogs (catches_modern.cpp, catches_schemes.cpp): look in every catalog.
  for (const auto& row : planted_catches()) caught.insert({row.property, row.check});
  int claims = 0;
  for (const auto& def : all_properties()) {
    if (!ours(def.info.id)) continue;
    ++claims;
    for (const auto& check : def.impl.checks) {
      BOOST_TEST(caught.count({def.info.id, check}) == 1u, def.info.id << " / " << check << " has no planted bug");
    }
  }
  // §6–7's eleven, with module.layer_schedule (issue 21), module.multi_token_decode,
  // module.packed_sequences and module.cache_capacity (issue 20), and §10's
  // module.window_no_lookback, module.config_conformance, module.chunk_isolation and
  // module.context_shift (issues 34, 35).
  BOOST_TEST(claims == 19);
}

BOOST_AUTO_TEST_CASE(every_planted_bug_fails_on_its_catalogued_check) {
  for (const auto& row : module_catches()) {
    BOOST_TEST_CONTEXT(row.mutant << " × " << row.property) {
      const PropertyResult r = run_property(row.property, std::string("mutant:") + row.mutant, quick(100));
      BOOST_TEST((r.status() == Status::failed), r.message());
      if (r.expectation == Expect::violated) {
        // Expected violated, and it held: the positions were not used.
        BOOST_TEST(r.held());
      } else {
        BOOST_REQUIRE(r.counterexample() != nullptr);
        BOOST_TEST(r.counterexample()->check == row.check);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(correct_builtins_meet_their_expectations) {
  for (const char* name : {"alibi", "alibi-12", "t5", "t5-causal", "encoder-layer", "encoder-layer-pre-norm",
                           "learned-encoder", "llama-block"}) {
    auto subject = make_subject(std::string("builtin:") + name);
    int applied = 0;
    for (const auto& def : all_properties()) {
      if (!ours(def.info.id) || !def.info.applies_to(subject->info())) continue;
      ++applied;
      BOOST_TEST_CONTEXT(name << " × " << def.info.id) {
        const PropertyResult r = run_property(def.info.id, std::string("builtin:") + name, quick());
        BOOST_TEST((r.status() == Status::passed), r.message());
        BOOST_TEST(r.discards < r.cases);
      }
    }
    BOOST_TEST(applied >= 3, name << " has " << applied << " applicable claims");
  }
}

BOOST_AUTO_TEST_CASE(applicability_follows_the_declared_conventions) {
  auto applies = [](const char* id, const char* spec) {
    return find_property(id)->info.applies_to(make_subject(spec)->info());
  };
  BOOST_TEST(applies("bias.monotone_decay", "builtin:alibi"));
  BOOST_TEST(!applies("bias.monotone_decay", "builtin:t5"));
  BOOST_TEST(applies("bias.reference_values", "builtin:t5"));
  BOOST_TEST(applies("module.permutation_equivariance", "builtin:encoder-layer"));
  BOOST_TEST(!applies("module.permutation_equivariance", "builtin:llama-block"));
  BOOST_TEST(!applies("module.permutation_equivariance", "builtin:learned-encoder"));
  BOOST_TEST(applies("module.causality", "builtin:llama-block"));
  BOOST_TEST(!applies("module.causality", "builtin:encoder-layer"));
  BOOST_TEST(applies("module.shift_invariance", "builtin:llama-block"));
  BOOST_TEST(!applies("module.shift_invariance", "builtin:learned-encoder"));
  BOOST_TEST(applies("module.absolute_position_sensitivity", "builtin:learned-encoder"));
  BOOST_TEST(!applies("module.absolute_position_sensitivity", "builtin:encoder-layer"));
  BOOST_TEST(applies("module.incremental_decoding", "builtin:llama-block"));
  BOOST_TEST(!applies("module.incremental_decoding", "builtin:encoder-layer"));
  BOOST_TEST(applies("history_independence", "builtin:sinusoidal"));
  BOOST_TEST(applies("history_independence", "builtin:alibi"));
  BOOST_TEST(!applies("module.causality", "builtin:sinusoidal"));
  // A typo in the claims table is a defect caught when the registry is built.
  BOOST_CHECK_THROW(applicability(Op::forward, "forward.casual"), std::logic_error);
  BOOST_CHECK_THROW(applicability(Op::bias, "bias.scheme=alibi|rope"), std::logic_error);
  BOOST_CHECK_THROW(applicability(Op::forward, "forward.causal and "), std::logic_error);
}

BOOST_AUTO_TEST_CASE(witnesses_are_shrunk_to_what_the_bug_needs) {
  // Causality: the changed token is one, right after the row that sees it.
  {
    const PropertyResult r = run_property("module.causality", "mutant:llama-causal-mask-leak", quick());
    BOOST_REQUIRE(r.counterexample() != nullptr);
    const json& in = r.counterexample()->inputs;
    BOOST_TEST(in.at("x").at(0).size() == 2u, in.dump());
    BOOST_TEST(in.at("changed").get<int>() == 1);
  }
  // Padding: one pad token, never only on the side the bug spares.
  for (auto [mutant, spared] : {std::pair{"learned-encoder-position-ids-from-row-start", "right"},
                                std::pair{"learned-encoder-assumes-left-padding", "left"}}) {
    const PropertyResult r = run_property("module.padding_invariance", std::string("mutant:") + mutant, quick());
    BOOST_REQUIRE(r.counterexample() != nullptr);
    const json& in = r.counterexample()->inputs;
    BOOST_TEST(in.at("pads").size() == 1u, in.dump());
    BOOST_TEST(in.at("side").get<std::string>() != spared);
  }
  // Batch mixing: two sequences, the observed one and one companion.
  {
    const PropertyResult r = run_property("module.batch_invariance", "mutant:encoder-layer-batch-statistics", quick());
    BOOST_REQUIRE(r.counterexample() != nullptr);
    BOOST_TEST(r.counterexample()->inputs.at("companions").size() == 1u);
  }
  // Cache bugs: the shortest request sequence, two or three requests.
  for (const char* mutant : {"llama-ntk-cache-never-shrinks", "llama-rotary-cache-by-length", "llama-reset-keeps-cache"}) {
    BOOST_TEST_CONTEXT(mutant) {
      const PropertyResult r = run_property("history_independence", std::string("mutant:") + mutant, quick());
      BOOST_TEST((r.status() == Status::failed), r.message());
      BOOST_REQUIRE(r.counterexample() != nullptr);
      const json& script = r.counterexample()->inputs;
      BOOST_TEST(script.is_array());
      BOOST_TEST(script.size() >= 2u);
      BOOST_TEST(script.size() <= 4u, script.dump());
    }
  }
}

BOOST_AUTO_TEST_CASE(a_history_witness_replays_as_a_script) {
  // The counterexample of history_independence is the request script itself:
  // replay runs it again on a fresh copy of the subject it is given.
  const PropertyResult found = run_property("history_independence", "mutant:llama-ntk-cache-never-shrinks", quick());
  BOOST_REQUIRE(found.counterexample() != nullptr);
  const json script = found.counterexample()->inputs;
  const PropertyDef& def = *find_property("history_independence");
  auto buggy = make_subject("mutant:llama-ntk-cache-never-shrinks");
  const PropertyResult again = replay_case(def, *buggy, script, QuickRun{}.error_model, Expect::holds);
  BOOST_TEST(replay_verdict(again) == "still fails");
  BOOST_REQUIRE(again.counterexample() != nullptr);
  BOOST_TEST(again.counterexample()->error == found.counterexample()->error);
  auto fixed = make_subject("builtin:llama-block-dynamic-ntk");
  const PropertyResult after_fix = replay_case(def, *fixed, script, QuickRun{}.error_model, Expect::holds);
  BOOST_TEST(replay_verdict(after_fix) == "now holds (fixed)");
  // A script that is not one is a usage error, not a crash.
  const BoundModel bounds(QuickRun{}.error_model, def.info.id, fixed->info());
  BOOST_CHECK_THROW(def.impl.remeasure(*fixed, json{{"op", "forward"}}, bounds), InvalidInput);
}

BOOST_AUTO_TEST_SUITE_END()  // test_claims_modules
