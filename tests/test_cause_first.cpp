// The first failure a person reads names the cause (issue 40): when several
// claims of one subject fail, the claim built for the convention leads and
// the structural claims that fail beside it are marked its consequences —
// in report.json, the console's closing list, summary.md and the rerun
// lines — and the diagnoses of the cases the issue found mis-named name the
// cause that fits the answers.
#include <boost/test/unit_test.hpp>

#include <fnmatch.h>

#include <fstream>
#include <sstream>

#include "pecheck/property/causes.h"
#include "pecheck/property/registry.h"
#include "support/planted.h"
#include "test_process_cli.h"

BOOST_AUTO_TEST_SUITE(test_cause_first)

using namespace pecheck;
using namespace pecheck::testing::process_cli;

BOOST_AUTO_TEST_CASE(every_row_of_the_cause_table_names_real_claims) {
  for (const auto& row : cause_table()) {
    BOOST_TEST((find_property(row.cause) != nullptr || find_pending_claim(row.cause) != nullptr), row.cause);
    std::istringstream globs(row.consequences);
    for (std::string glob; globs >> glob;) {
      bool matches = false;
      for (const auto& p : all_properties()) matches = matches || fnmatch(glob.c_str(), p.info.id.c_str(), 0) == 0;
      BOOST_TEST(matches, row.cause << ": '" << glob << "' matches no claim");
    }
  }
}

BOOST_AUTO_TEST_CASE(a_window_one_too_wide_leads_with_the_window_claim_and_groups_what_it_breaks) {
  const Run run = run_pecheck({"--subject", "mutant:attention-window-plus-one", "--properties", "attention.*",
                               "--cases", "40"},
                              120);
  BOOST_TEST(run.exit_code == 1, run.console);
  BOOST_TEST(run.outcome("attention.window_no_lookback") == "violated", run.console);
  int consequences = 0;
  for (const auto& r : run.report["results"]) {
    if (r["status"] != "failed" || r["property"] == "attention.window_no_lookback") continue;
    BOOST_TEST(r.value("consequence_of", "") == "attention.window_no_lookback", r["property"]);
    ++consequences;
  }
  BOOST_REQUIRE_MESSAGE(consequences > 0, "the window bug breaks other claims too: " << run.console);
  // The console's closing list and the rerun lines lead with the cause.
  const auto list = run.console.find("What failed, cause first:\n  attention.window_no_lookback [");
  BOOST_REQUIRE_MESSAGE(list != std::string::npos, run.console);
  BOOST_TEST(run.console.find("likely consequences of it, failing beside it:", list) != std::string::npos);
  BOOST_TEST(run.console.find("Rerun what failed:\n  attention.window_no_lookback [") != std::string::npos, run.console);
  // summary.md lists the cause's section first and marks the others.
  std::ifstream in(run.report_dir + "/summary.md");
  const std::string summary((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto failures = summary.find("## Failures");
  BOOST_REQUIRE(failures != std::string::npos);
  BOOST_TEST(summary.find("#### `attention.window_no_lookback`", failures) == summary.find("#### ", failures));
  BOOST_TEST(summary.find("| likely a consequence of | `attention.window_no_lookback`") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_correct_subject_has_no_cause_list) {
  const Run run = run_pecheck({"--subject", "builtin:attention", "--properties", "attention.convex_combination",
                               "--cases", "20"});
  BOOST_TEST(run.exit_code == 0, run.console);
  BOOST_TEST(run.console.find("What failed") == std::string::npos, run.console);
}

// --- the diagnoses the issue found naming the wrong cause ---------------------------------------
//
// Issue 40's fourteen mis-named cases, and where each is planted and its cause asserted
// (tests/python/test_newcomer_models.py plants them again as a newcomer's own Python code):
//   1 YaRN without its mscale            rope-yarn-no-attention-factor, rope-deepseek-yarn-mscale-ignored:
//                                        yarn_without_its_attention_factor_is_named_by_the_norm
//   2 mrope sections swapped             rope-mrope-sections-swapped: the_axis_diagnosis_says_which_axis_...
//   3 rope.axis_independence (t only)    rope-mrope-text-positions: the_axis_diagnosis_says_which_axis_...
//   4 rope.axis_independence (local ω)   rope-mrope-section-local-frequencies: the_axis_diagnosis_says_...
//   5 a sink carrying key 0's value      attention-sink-carries-key0-value: a_sink_carrying_key_0s_value_...
//                                        and a_sink_carrying_key_0s_value_leads_over_the_window_it_seems_to_break
//   6 Gemma's 1/√d scale                 gemma2-attention-scale-inverse-sqrt-d: the_softcap_diagnosis_names_...
//   7 Llama 3 scaling, wrong boundary    rope-llama3-wavelength-without-2pi (and bands swapped, smooth
//                                        reversed): llama3_slips_are_named_not_no_usual_suspect
//   8 FA4's (s/c)·tanh(s/c)              attention-softcap-scaled-tanh: the_softcap_diagnosis_names_...
//   9 YaRN range rounded (truncate: false) rope-yarn-range-rounded: a_yarn_range_rounded_under_truncate_false_...
//  10 partial rotary on the whole head   rope-partial-applied-whole: a_partial_rotary_applied_to_the_whole_head_...
//  11 tiled kv heads first as convex_combination   tests/python/test_checks.py::test_tiled_kv_heads_lead_...
//  12 a window one too wide first as causal_no_lookahead   attention-window-plus-one: a_window_one_too_wide_...
//  13 sinks first as permutation_equivariance      attention-sink-carries-key0-value, attention-sinks-ignored:
//                                        sinks_lead_over_the_structural_claims_they_break
//  14 "query 9 sees keys 1..9" beside a counterexample at query 8   the_window_diagnosis_speaks_of_...

std::string diagnosis_of(const std::string& property, const std::string& spec) {
  const PropertyResult r = pecheck::testing::run_property(property, spec);
  BOOST_TEST((r.status() == Status::failed), property << " on " << spec << ": " << r.message());
  return r.counterexample() ? r.counterexample()->diagnosis : std::string();
}

BOOST_AUTO_TEST_CASE(a_sink_carrying_key_0s_value_is_named_not_called_missing) {
  const std::string d = diagnosis_of("attention.sink_mass", "mutant:attention-sink-carries-key0-value");
  BOOST_TEST(d.find("carries key 0's value") != std::string::npos, d);
  BOOST_TEST(d.find("not in the softmax") == std::string::npos, d);
  // The sinks truly left out are still named so.
  const std::string ignored = diagnosis_of("attention.sink_mass", "mutant:attention-sinks-ignored");
  BOOST_TEST(ignored.find("not in the softmax") != std::string::npos, ignored);
}

BOOST_AUTO_TEST_CASE(the_softcap_diagnosis_names_the_form_or_the_scale_that_fits) {
  const std::string fa4 = diagnosis_of("attention.softcap_bound", "mutant:attention-softcap-scaled-tanh");
  BOOST_TEST(fa4.find("(s/c)·tanh(s/c)") != std::string::npos, fa4);
  BOOST_TEST(fa4.find("the answers are those of") != std::string::npos, fa4);
  const std::string no_division = diagnosis_of("attention.softcap_bound", "mutant:attention-softcap-no-division");
  BOOST_TEST(no_division.find("the answers are those of c·tanh(s)") != std::string::npos, no_division);
  const std::string scale = diagnosis_of("attention.softcap_bound", "mutant:gemma2-attention-scale-inverse-sqrt-d");
  BOOST_TEST(scale.find("the cap is right, the scale is not") != std::string::npos, scale);
}

BOOST_AUTO_TEST_CASE(the_axis_diagnosis_says_which_axis_turns_which_pair) {
  const std::string text = diagnosis_of("rope.axis_independence", "mutant:rope-mrope-text-positions");
  BOOST_TEST(text.find("every pair turns by the t position") != std::string::npos, text);
  const std::string local = diagnosis_of("rope.axis_independence", "mutant:rope-mrope-section-local-frequencies");
  BOOST_TEST(local.find("the pairs are assigned right") != std::string::npos, local);
  BOOST_TEST(local.find("float16") == std::string::npos, local);
  const std::string swapped = diagnosis_of("rope.axis_independence", "mutant:rope-mrope-sections-swapped");
  BOOST_TEST(swapped.find("stacked as (t, w, h)") != std::string::npos, swapped);
}

BOOST_AUTO_TEST_CASE(the_window_diagnosis_speaks_of_the_counterexamples_own_row) {
  // It probed the last query of its own W + 2 tokens ("query 9 sees keys 1..9" beside a counterexample at query 8).
  for (const char* spec : {"mutant:attention-window-plus-one", "mutant:attention-window-minus-one"}) {
    const PropertyResult r = pecheck::testing::run_property("attention.window_no_lookback", spec);
    BOOST_REQUIRE(r.counterexample() != nullptr);
    const std::string where = r.counterexample()->where(), diagnosis = r.counterexample()->diagnosis;
    const auto at = where.find("query ");
    BOOST_REQUIRE_MESSAGE(at != std::string::npos, where);
    const std::string row = where.substr(at, where.find(',', at) - at);  // "query 4"
    BOOST_TEST(diagnosis.rfind(row + " sees keys", 0) == 0, spec << ": " << where << " / " << diagnosis);
  }
}

BOOST_AUTO_TEST_CASE(llama3_slips_are_named_not_no_usual_suspect) {
  struct Expected {
    const char* mutant;
    const char* words;
  };
  for (const auto& [mutant, words] : std::vector<Expected>{
           {"rope-llama3-bands-swapped", "has Llama 3's bands swapped"},
           {"rope-llama3-smooth-reversed", "weighs Llama 3's medium band the wrong way round"},
           {"rope-llama3-wavelength-without-2pi", "takes a wavelength as 1/ω, not 2π/ω"},
       }) {
    const std::string d = diagnosis_of("rope.reference_values", std::string("mutant:") + mutant);
    BOOST_TEST(d.rfind(words, 0) == 0, mutant << ": " << d);
    BOOST_TEST(d.find("it explains every re-queried answer") != std::string::npos, d);
  }
  // A correct Llama 3 scaling is not mistaken for a slip: the declared convention fits it.
  const PropertyResult correct = pecheck::testing::run_property("rope.reference_values", "builtin:rope@llama3");
  BOOST_TEST((correct.status() == Status::passed), correct.message());
}

BOOST_AUTO_TEST_CASE(a_cos_sin_cache_too_short_is_named_not_no_usual_suspect) {
  // A cos/sin table of 2048 rows indexed past its end: the declared convention is closest but off at 2048, and
  // a hypothesis of its own fits (no "did not repeat", no "no usual suspect"). A subject nothing fits:
  // tests/python/test_newcomer_models.py::test_no_usual_suspect_only_when_none_fits.
  const std::string clamp = diagnosis_of("rope.reference_values", "mutant:rope-cache-clamp");
  BOOST_TEST(clamp.rfind("reads a cos/sin cache of 2048 rows and clamps every later position", 0) == 0, clamp);
  const std::string wrap = diagnosis_of("rope.reference_values", "mutant:rope-cache-wrap");
  BOOST_TEST(wrap.rfind("reads a cos/sin cache of 2048 rows modulo its length", 0) == 0, wrap);
}

BOOST_AUTO_TEST_CASE(yarn_without_its_attention_factor_is_named_by_the_norm) {
  const std::string plain = diagnosis_of("rope.reference_values", "mutant:rope-yarn-no-attention-factor");
  BOOST_TEST(plain.rfind("leaves YaRN's attention factor off the cos/sin tables", 0) == 0, plain);
  const std::string deepseek = diagnosis_of("rope.reference_values", "mutant:rope-deepseek-yarn-mscale-ignored");
  BOOST_TEST(deepseek.rfind("ignores mscale/mscale_all_dim", 0) == 0, deepseek);
}

BOOST_AUTO_TEST_CASE(a_yarn_range_rounded_under_truncate_false_is_named) {
  const std::string d = diagnosis_of("rope.reference_values", "mutant:rope-yarn-range-rounded");
  BOOST_TEST(d.rfind("rounds YaRN's correction range (floor/ceil, truncate: true) where truncate: false", 0) == 0, d);
  BOOST_TEST(d.find("beta 32/1, truncate: false)") != std::string::npos, d);  // the declaration as declared
}

BOOST_AUTO_TEST_CASE(a_partial_rotary_applied_to_the_whole_head_leads_with_pass_through_naming_it) {
  const Run run = run_pecheck({"--subject", "mutant:rope-partial-applied-whole", "--properties", "rope.*",
                               "--cases", "40"});
  BOOST_TEST(run.exit_code == 1, run.console);
  const auto list = run.console.find("What failed, cause first:\n  rope.pass_through [");
  BOOST_REQUIRE_MESSAGE(list != std::string::npos, run.console);
  const std::string d = diagnosis_of("rope.pass_through", "mutant:rope-partial-applied-whole");
  BOOST_TEST(d.rfind("rotates all the features, declared rotary_fraction 0.25", 0) == 0, d);
  BOOST_TEST(d.find("float16") == std::string::npos, d);
  // A tail of zeros is told apart from a tail that rotates.
  const std::string zeroed = diagnosis_of("rope.pass_through", "mutant:rope-pass-through-zeroed");
  BOOST_TEST(zeroed.find("come back 0") != std::string::npos, zeroed);
}

BOOST_AUTO_TEST_CASE(sinks_lead_over_the_structural_claims_they_break) {
  for (const char* mutant : {"attention-sink-carries-key0-value", "attention-sinks-ignored"}) {
    const Run run = run_pecheck({"--subject", std::string("mutant:") + mutant, "--properties", "attention.*",
                                 "--cases", "40"}, 120);
    BOOST_TEST(run.exit_code == 1, run.console);
    BOOST_TEST(run.console.find("What failed, cause first:\n  attention.sink_mass [") != std::string::npos,
               mutant << ": " << run.console);
    for (const auto& r : run.report["results"]) {
      if (r["status"] == "failed" && r["property"] != "attention.sink_mass") {
        BOOST_TEST(r.value("consequence_of", "") == "attention.sink_mass", mutant << ": " << r["property"]);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_sink_carrying_key_0s_value_leads_over_the_window_it_seems_to_break) {
  // GPT-OSS declares a window beside its sinks: key 0's value carried by the sink reaches every row, which
  // the window claim sees first; its diagnosis probes a later row and names the sink, not a wider window.
  const std::string d = diagnosis_of("attention.window_no_lookback", "mutant:attention-sink-carries-key0-value");
  BOOST_TEST(d.find("key 0 reaches every row whatever the window") != std::string::npos, d);
  BOOST_TEST(d.find("W + 1") == std::string::npos, d);
}

BOOST_AUTO_TEST_SUITE_END()  // test_cause_first
