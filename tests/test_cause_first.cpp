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

BOOST_AUTO_TEST_SUITE_END()  // test_cause_first
