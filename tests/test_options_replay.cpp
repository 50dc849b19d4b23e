// `pecheck replay FILE` never runs what the file says to run (issue 12): a
// counterexample from a CI artifact or a bug report whose recorded subject is
// cmd:... or plugin:... replays against it only when the person names the
// same spec (--subject, or their --config's subjects) or passes
// --trust-recorded-subject. The recorded command here would create a marker
// file; the marker is the evidence that it did or did not run.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

#include "pecheck/core/json.h"
#include "support/cli.h"

BOOST_AUTO_TEST_SUITE(test_options_replay)

using namespace pecheck;
using namespace pecheck::testing;
namespace fs = std::filesystem;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

struct Doctored {
  std::string dir;
  std::string marker;  // created by the recorded command, if it ever runs
  std::string spec;    // the recorded cmd: subject
  std::string file;    // the counterexample file
};

// A real counterexample file (from a run against a planted bug) whose
// subject was then replaced, as someone handing over a file could.
Doctored doctored(const std::string& recorded_spec_template = "cmd:touch MARKER") {
  Doctored d;
  d.dir = temp_dir("pecheck-replay-trust");
  d.marker = d.dir + "/marker";
  d.spec = recorded_spec_template;
  if (const auto at = d.spec.find("MARKER"); at != std::string::npos) d.spec.replace(at, 6, d.marker);
  const auto run = run_cli({"run", "-q", "--subject", "mutant:sinusoidal-off-by-one", "--properties",
                            "pe.reference_values", "--report-dir", d.dir + "/reports"});
  BOOST_REQUIRE_MESSAGE(run.exit_code == 1, run.output);
  const std::string original = d.dir + "/reports/counterexamples/pe.reference_values--mutant_sinusoidal-off-by-one.json";
  json j = json::parse(read_file(original));
  j["subject"] = d.spec;
  d.file = d.dir + "/downloaded.json";
  std::ofstream(d.file) << j.dump(2);
  return d;
}

std::string write_config(const std::string& dir, const std::string& subject) {
  const std::string path = dir + "/pecheck.toml";
  std::ofstream(path) << "subject = " << json(subject).dump() << "\n";
  return path;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_recorded_command_does_not_run_unasked) {
  const Doctored d = doctored();
  const auto r = run_cli({"replay", d.file});
  BOOST_TEST(r.exit_code == 2, r.output);
  BOOST_TEST(!fs::exists(d.marker), "the recorded command ran");
  // The message says exactly how to run it, with the spec ready to paste.
  BOOST_TEST(contains(r.output, "records the subject 'cmd:touch " + d.marker + "', which runs a shell command"),
             r.output);
  BOOST_TEST(contains(r.output, "pecheck does not run what a file says to run"), r.output);
  BOOST_TEST(contains(r.output, "--subject 'cmd:touch " + d.marker + "'"), r.output);
  BOOST_TEST(contains(r.output, "--config"), r.output);
  BOOST_TEST(contains(r.output, "--trust-recorded-subject"), r.output);
  // --json changes nothing about trust.
  BOOST_TEST(run_cli({"replay", d.file, "--json"}).exit_code == 2);
  BOOST_TEST(!fs::exists(d.marker));
}

BOOST_AUTO_TEST_CASE(a_config_naming_another_subject_does_not_trust_it) {
  const Doctored d = doctored();
  const auto r = run_cli({"replay", d.file, "--config", write_config(d.dir, "cmd:python3 my_subject.py")});
  BOOST_TEST(r.exit_code == 2, r.output);
  BOOST_TEST(contains(r.output, "is not among the subjects of " + d.dir + "/pecheck.toml"), r.output);
  BOOST_TEST(!fs::exists(d.marker));
  // A config that cannot be read is a usage error, not a reason to trust.
  const auto broken = run_cli({"replay", d.file, "--config", d.dir + "/none.toml"});
  BOOST_TEST(broken.exit_code == 2, broken.output);
  BOOST_TEST(contains(broken.output, "cannot read the config file"), broken.output);
  BOOST_TEST(!fs::exists(d.marker));
}

// The gate is what stops the command: each way of naming it runs it.
BOOST_AUTO_TEST_CASE(the_person_replaying_can_run_it_three_ways) {
  {
    const Doctored d = doctored();
    const auto r = run_cli({"replay", d.file, "--trust-recorded-subject", "--subject-timeout", "5"});
    BOOST_TEST(fs::exists(d.marker), r.output);
    BOOST_TEST(r.exit_code == 3, r.output);  // `touch` speaks no protocol: a subject failure
  }
  {
    const Doctored d = doctored();
    const auto r = run_cli({"replay", d.file, "--subject", d.spec, "--subject-timeout", "5"});
    BOOST_TEST(fs::exists(d.marker), r.output);
  }
  {
    const Doctored d = doctored();
    const auto r = run_cli({"replay", d.file, "--config", write_config(d.dir, d.spec), "--subject-timeout", "5"});
    BOOST_TEST(fs::exists(d.marker), r.output);
  }
}

BOOST_AUTO_TEST_CASE(another_subject_replays_without_running_the_recorded_one) {
  const Doctored d = doctored();
  const auto r = run_cli({"replay", d.file, "--subject", "builtin:sinusoidal"});
  BOOST_TEST(r.exit_code == 0, r.output);  // the correct encoder: "now holds (fixed)"
  BOOST_TEST(!fs::exists(d.marker));
}

BOOST_AUTO_TEST_CASE(a_recorded_plugin_is_gated_too) {
  const Doctored d = doctored("plugin:" + std::string("/tmp/evil/libmarker.so"));
  const auto r = run_cli({"replay", d.file});
  BOOST_TEST(r.exit_code == 2, r.output);
  BOOST_TEST(contains(r.output, "records the subject plugin:/tmp/evil/libmarker.so, which loads a plugin library"),
             r.output);
  // plugin-inproc: would load it into pecheck itself: refused even when trusted.
  const Doctored inproc = doctored("plugin-inproc:/tmp/evil/libmarker.so");
  const auto t = run_cli({"replay", inproc.file, "--trust-recorded-subject"});
  BOOST_TEST(t.exit_code == 2, t.output);
  BOOST_TEST(contains(t.output, "records a subject pecheck does not run"), t.output);
  BOOST_TEST(contains(t.output, "plugin-inproc: loads the plugin into pecheck itself"), t.output);
}

BOOST_AUTO_TEST_CASE(built_in_and_mutant_subjects_replay_freely) {
  const Doctored d = doctored("mutant:sinusoidal-off-by-one");
  const auto r = run_cli({"replay", d.file});
  BOOST_TEST(r.exit_code == 1, r.output);  // the planted bug still fails: "still fails"
  BOOST_TEST(contains(r.output, "verdict: still fails"), r.output);
  const Doctored b = doctored("builtin:sinusoidal");
  BOOST_TEST(run_cli({"replay", b.file}).exit_code == 0);
}

BOOST_AUTO_TEST_CASE(a_hostile_spec_is_shown_inert) {
  const Doctored d = doctored("cmd:touch MARKER; printf '\x1b[2J'");
  const auto r = run_cli({"replay", d.file});
  BOOST_TEST(r.exit_code == 2, r.output);
  BOOST_TEST(!contains(r.output, "\x1b"), r.output);
  BOOST_TEST(!fs::exists(d.marker));
}

BOOST_AUTO_TEST_SUITE_END()  // test_options_replay
