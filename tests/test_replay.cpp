// Replay (src/replay/replay.cpp, src/cli/replay_command.cpp): a counterexample
// file carries everything needed to measure its input again; a planted bug's
// counterexample still fails on replay and passes once the fixed subject is
// swapped in; an expected violation's witness reproduces as expected.
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "pecheck/property/registry.h"
#include "pecheck/replay/replay.h"
#include "pecheck/report/json_writer.h"
#include "pecheck/subjects/factory.h"
#include "support/cli.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_replay)

using namespace pecheck;
using namespace pecheck::testing;
namespace fs = std::filesystem;

namespace {

// The counterexample file `pecheck run` would write for `r`.
json file_for(const PropertyResult& r) {
  RunReport report;
  report.pecheck_version = PECHECK_VERSION;
  report.seed = 1;
  report.cases = 100;
  report.max_position = 10000;
  report.tolerance_factor = 8;
  report.tolerance_overrides = {{"pe.step_size", 16}};
  report.properties = {find_property(r.property)->info};
  report.subjects = {{r.subject, r.subject, "float64", "interleaved", "sinusoidal", {"encode"}}};
  report.results = {r};
  return counterexample_json(report, r);
}

PropertyResult replay_against(const json& file, const std::string& spec) {
  const RecordedCase recorded = parse_recorded_case(file);
  auto subject = make_subject(spec);
  const PropertyDef& property = *find_property(recorded.property);
  return replay_case(property, *subject, recorded.inputs, recorded.error_model,
                     recorded.expectation.value_or(property.info.expectation(subject->info().scheme, subject->info())));
}

}  // namespace

BOOST_AUTO_TEST_CASE(counterexample_file_is_self_contained) {
  const auto found = run_property("pe.reference_values", "mutant:sinusoidal-off-by-one");
  BOOST_REQUIRE(found.counterexample() != nullptr);
  const json file = file_for(found);
  for (const char* key : {"property", "subject", "seed", "reproduce", "pecheck_version", "claim", "expectation",
                          "error_model", "rerun", "replay", "format"}) {
    BOOST_TEST(file.contains(key), key);
  }
  for (const char* key : {"inputs", "observed", "expected", "where", "error", "tolerance"}) {
    BOOST_TEST(file["counterexample"].contains(key), key);
  }
  BOOST_TEST(file["error_model"]["factor"] == 8);
  BOOST_TEST(file["error_model"]["overrides"]["pe.step_size"] == 16);
  BOOST_TEST(file["error_model"]["dtype"] == "float64");
  // Parsing keeps what replay needs, the error model included.
  const RecordedCase recorded = parse_recorded_case(file);
  BOOST_TEST(recorded.property == "pe.reference_values");
  BOOST_TEST(recorded.subject == "mutant:sinusoidal-off-by-one");
  BOOST_TEST(recorded.inputs == found.counterexample()->inputs);
  BOOST_TEST(recorded.error_model.overrides.at("pe.step_size") == 16);
  BOOST_TEST(!recorded.reproduce.empty());
  BOOST_REQUIRE(recorded.recorded.has_value());
  BOOST_TEST(recorded.recorded->error == found.counterexample()->error);
}

BOOST_AUTO_TEST_CASE(planted_bug_still_fails_on_replay_and_passes_with_the_fixed_subject) {
  for (const auto& [property, mutant, fixed] :
       {std::tuple{"pe.reference_values", "mutant:sinusoidal-off-by-one", "builtin:sinusoidal"},
        std::tuple{"rope.identity_at_zero", "mutant:rope-position-off-by-one", "builtin:rope"}}) {
    const auto found = run_property(property, mutant);
    BOOST_REQUIRE_MESSAGE(found.status() == Status::failed && found.counterexample(), property << " × " << mutant);
    const json file = file_for(found);

    const auto again = replay_against(file, mutant);
    BOOST_TEST(name(again.outcome) == "violated", property);
    BOOST_TEST(again.cases == 1);
    BOOST_TEST(replay_verdict(again) == "still fails");
    BOOST_TEST(replay_exit_code(again) == 1);
    // The same input gives the same measurement: replay is exact, not a new search.
    BOOST_REQUIRE(again.counterexample() != nullptr);
    BOOST_TEST(again.counterexample()->error == found.counterexample()->error);
    BOOST_TEST(again.counterexample()->where() == found.counterexample()->where());

    const auto after_fix = replay_against(file, fixed);
    BOOST_TEST(name(after_fix.outcome) == "holds", property << " against " << fixed);
    BOOST_TEST(after_fix.error() <= after_fix.tolerance().bound);
    BOOST_TEST(replay_verdict(after_fix) == "now holds (fixed)");
    BOOST_TEST(replay_exit_code(after_fix) == 0);
  }
}

BOOST_AUTO_TEST_CASE(witness_of_an_expected_violation_reproduces_as_expected) {
  const auto witness = run_property("pe.bounded", "builtin:integer");
  BOOST_REQUIRE(witness.status() == Status::passed && witness.counterexample());
  const json file = file_for(witness);
  const auto again = replay_against(file, "builtin:integer");
  BOOST_TEST(name(again.outcome) == "violated");
  BOOST_TEST(name(again.status()) == "passed");
  BOOST_TEST(replay_verdict(again) == "violation reproduced (expected)");
  BOOST_TEST(replay_exit_code(again) == 0);
}

BOOST_AUTO_TEST_CASE(malformed_files_are_usage_errors) {
  BOOST_CHECK_THROW(parse_recorded_case(json::array()), ReplayFileError);
  BOOST_CHECK_THROW(parse_recorded_case(json{{"property", "pe.bounded"}}), ReplayFileError);
  BOOST_CHECK_THROW(parse_recorded_case(json{{"property", "pe.bounded"}, {"subject", "builtin:sinusoidal"}}),
                    ReplayFileError);
  // Inputs that do not fit the property's input type.
  const json wrong = {{"property", "pe.bounded"}, {"subject", "builtin:sinusoidal"},
                      {"counterexample", {{"inputs", {{"dim", "two"}}}}}};
  BOOST_CHECK_THROW(replay_against(wrong, "builtin:sinusoidal"), ReplayFileError);
}

BOOST_AUTO_TEST_CASE(replay_command_exit_codes) {
  const std::string dir = temp_dir("pecheck-replay");
  const auto run = run_cli({"run", "--no-regressions", "--subject", "mutant:sinusoidal-off-by-one", "--properties",
                            "pe.reference_values", "--report-dir", dir});
  BOOST_REQUIRE_MESSAGE(run.exit_code == 1, run.output);
  const std::string file = dir + "/counterexamples/pe.reference_values--mutant_sinusoidal-off-by-one.json";
  BOOST_REQUIRE(fs::exists(file));
  // The printed replay command names the file where it was written.
  const json written = json::parse(read_file(file));
  BOOST_TEST(written["replay"].get<std::string>().find(file) != std::string::npos, written["replay"]);

  const auto still = run_cli({"replay", file});
  BOOST_TEST(still.exit_code == 1, still.output);
  BOOST_TEST(still.output.find("verdict: still fails") != std::string::npos, still.output);

  const auto fixed = run_cli({"replay", file, "--subject", "builtin:sinusoidal"});
  BOOST_TEST(fixed.exit_code == 0, fixed.output);
  BOOST_TEST(fixed.output.find("verdict: now holds (fixed)") != std::string::npos, fixed.output);

  const auto as_json = run_cli({"replay", file, "--subject", "builtin:sinusoidal", "--json"});
  BOOST_REQUIRE(as_json.exit_code == 0);
  const json j = json::parse(as_json.output);
  BOOST_TEST(j["outcome"] == "holds");
  BOOST_TEST(j["recorded_subject"] == "mutant:sinusoidal-off-by-one");

  BOOST_TEST(run_cli({"replay", dir + "/nope.json"}).exit_code == 2);
  BOOST_TEST(run_cli({"replay", file, "--subject", "builtin:nope"}).exit_code == 2);
  BOOST_TEST(run_cli({"replay", file, "--subject", "builtin:attention"}).exit_code == 2);  // no encode op
  std::ofstream(dir + "/garbage.json") << "{not json";
  const auto garbage = run_cli({"replay", dir + "/garbage.json"});
  BOOST_TEST(garbage.exit_code == 2);
  BOOST_TEST(garbage.output.find("not JSON") != std::string::npos, garbage.output);
}

BOOST_AUTO_TEST_CASE(replay_judges_by_the_expectation_the_run_recorded) {
  // A learned table checked under the sinusoidal profile must hold
  // offset_only_dot; it does not. Replaying its counterexample must still
  // fail, not read as the learned scheme's expected violation.
  const std::string dir = temp_dir("pecheck-replay-profile");
  const auto run = run_cli({"run", "--no-regressions", "--subject", "builtin:learned", "--profile", "sinusoidal",
                            "--properties", "pe.offset_only_dot", "--report-dir", dir});
  BOOST_REQUIRE(run.exit_code == 1);
  const std::string file = dir + "/counterexamples/pe.offset_only_dot--builtin_learned.json";
  const auto replayed = run_cli({"replay", file});
  BOOST_TEST(replayed.exit_code == 1, replayed.output);
  BOOST_TEST(replayed.output.find("still fails") != std::string::npos, replayed.output);
}

BOOST_AUTO_TEST_SUITE_END()  // test_replay
