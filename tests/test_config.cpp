// pecheck.toml (src/config/config_file) and profiles (src/config/profiles):
// every key parsed, every mistake an error naming file, line and key, and
// the CLI's --config/--profile with flags overriding the file.
#include <boost/test/unit_test.hpp>

#include <fnmatch.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "pecheck/config/config_file.h"
#include "pecheck/config/profiles.h"
#include "pecheck/core/shell_quote.h"
#include "pecheck/core/op_table.h"
#include "pecheck/property/registry.h"
#include "support/cli.h"

// The CLI keeps state in its working directory (.pecheck/): this suite's runs get a fresh one.
BOOST_AUTO_TEST_SUITE(test_config, *boost::unit_test::fixture<pecheck::testing::FreshWorkingDirectory>())

using namespace pecheck;
using pecheck::testing::read_file;
using pecheck::testing::run_cli;
using pecheck::testing::temp_dir;

namespace {

std::vector<std::string> ids() {
  std::vector<std::string> out;
  for (const auto& p : all_properties()) out.push_back(p.info.id);
  return out;
}

FileConfig parse(const std::string& text) { return parse_config(text, "pecheck.toml", ids()); }

// The ConfigError message for `text`.
std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(parsed without error)";
}

std::string write(const std::string& dir, const std::string& text) {
  const std::string path = dir + "/pecheck.toml";
  std::ofstream(path) << text;
  return path;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_documented_example_parses) {
  const FileConfig c = load_config(std::string(std::getenv("PECHECK_SOURCE_DIR")) + "/examples/pecheck.toml", ids());
  BOOST_TEST(c.subjects == std::vector<std::string>{"plugin:build/examples/plugin/libsinusoidal_plugin.so"});
  BOOST_TEST(*c.profile == "sinusoidal");
  BOOST_TEST(c.properties == std::vector<std::string>{"pe.*"});
  BOOST_TEST(*c.cases == 100);
  BOOST_TEST(*c.seed == "1");
  BOOST_TEST(*c.max_position == 10000);
  BOOST_TEST(*c.subject_timeout == 10.0);
  BOOST_TEST(*c.report_dir == "reports");
  BOOST_TEST((c.expect.at("pe.reference_values") == Expect::holds));
  BOOST_TEST(*c.tolerance_factor == 8.0);
  BOOST_TEST(c.tolerance_factors.at("pe.constant_norm") == 16.0);
  BOOST_TEST(c.tolerance_bounds.empty());
}

BOOST_AUTO_TEST_CASE(every_key_and_both_spellings_of_ids) {
  const FileConfig c = parse(R"(
subject = ["builtin:sinusoidal", "cmd:python3 x.py"]
properties = "pe.bounded"
seed = "random"
subject_timeout = 2.5
[expect]
pe.bounded = "violated"          # a dotted key: TOML nests it, pecheck reads the id
"pe.constant_norm" = "holds"
[tolerance.pe.bounded]
bound = 0.5
[tolerance."pe.constant_norm"]
factor = 2
)");
  BOOST_TEST(c.subjects.size() == 2u);
  BOOST_TEST(c.properties == std::vector<std::string>{"pe.bounded"});
  BOOST_TEST(*c.seed == "random");
  BOOST_TEST(*c.subject_timeout == 2.5);
  BOOST_TEST((c.expect.at("pe.bounded") == Expect::violated));
  BOOST_TEST((c.expect.at("pe.constant_norm") == Expect::holds));
  BOOST_TEST(c.tolerance_bounds.at("pe.bounded") == 0.5);
  BOOST_TEST(c.tolerance_factors.at("pe.constant_norm") == 2.0);
  BOOST_TEST(!c.cases.has_value());  // unset stays unset: the command line's default applies
}

BOOST_AUTO_TEST_CASE(mistakes_name_the_file_the_line_and_the_key) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"cases = 10\ncasse = 20\n", "pecheck.toml:2: casse: unknown key"},
      {"cases = \"ten\"\n", "pecheck.toml:1: cases: expected an integer, got a string"},
      {"cases = 0\n", "pecheck.toml:1: cases: 0 is outside [1, 10000000]"},
      {"seed = -1\n", "pecheck.toml:1: seed:"},
      {"seed = \"often\"\n", "pecheck.toml:1: seed: expected a non-negative integer or \"random\""},
      {"\nprofile = \"sinusoid\"\n", "pecheck.toml:2: profile: unknown profile 'sinusoid'; known: sinusoidal, rotary"},
      {"properties = [\"pe.bounded\", \"pe.bonded\"]\n", "pecheck.toml:1: properties: 'pe.bonded' matches no property"},
      {"subject = \"sinusoidal\"\n", "pecheck.toml:1: subject: 'sinusoidal' has no known kind"},
      {"subject_timeout = 0\n", "pecheck.toml:1: subject_timeout: must be a positive number"},
      {"report_dir = \"\"\n", "pecheck.toml:1: report_dir: must not be empty"},
      {"[expect]\n\"pe.bounded\" = \"passes\"\n", "pecheck.toml:2: expect.pe.bounded: expected \"holds\" or \"violated\""},
      {"[expect]\n\"pe.bonded\" = \"holds\"\n", "pecheck.toml:2: expect.pe.bonded: no property 'pe.bonded'"},
      {"expect = 3\n", "pecheck.toml:1: expect: expected a table [expect]"},
      {"[tolerance]\nfactor = -1\n", "pecheck.toml:2: tolerance.factor: must be a positive number"},
      {"[tolerance]\nfactr = 2\n", "pecheck.toml:2: tolerance.factr: unknown key"},
      {"[tolerance.\"pe.bounded\"]\nfctor = 2\n", "pecheck.toml:2: tolerance.pe.bounded.fctor: unknown key"},
      {"[tolerance.\"pe.bonded\"]\nfactor = 2\n", "pecheck.toml:1: tolerance.pe.bonded: no property 'pe.bonded'"},
      {"cases = 10\n[expect\n", "pecheck.toml:2: "},  // a TOML syntax error
      // Hostile values (issue 12): an empty list would mean "every built-in",
      // NaN or infinity would switch a timeout or a tolerance off.
      {"subject = []\n", "pecheck.toml:1: subject: an empty list names nothing"},
      {"properties = []\n", "pecheck.toml:1: properties: an empty list names nothing"},
      {"subject = \"plugin-inproc:/x.so\"\n",
       "pecheck.toml:1: subject: 'plugin-inproc:/x.so': plugin-inproc: loads the plugin into pecheck itself"},
      {"subject = [\"builtin:sinusoidal\", \"builtin:rope\", \"builtin:sinusoidal\"]\n",
       "pecheck.toml:1: subject: 'builtin:sinusoidal' is named twice"},
      {"subject = \"cmd:  \"\n", "pecheck.toml:1: subject: 'cmd:  ' names no command"},
      {"subject = \"plugin: \"\n", "pecheck.toml:1: subject: 'plugin: ' names no file"},
      {"subject_timeout = nan\n", "pecheck.toml:1: subject_timeout: must be a positive number, got nan"},
      {"subject_timeout = inf\n", "pecheck.toml:1: subject_timeout: must be a positive number, got inf"},
      {"subject_timeout = 1e7\n", "pecheck.toml:1: subject_timeout: 10000000 is more than the largest allowed"},
      {"[tolerance]\nfactor = nan\n", "pecheck.toml:2: tolerance.factor: must be a positive number, got nan"},
      {"[tolerance.\"pe.bounded\"]\nbound = -inf\n", "pecheck.toml:2: tolerance.pe.bounded.bound: must be a positive"},
  };
  for (const auto& [text, want] : cases) {
    const std::string got = error_of(text);
    BOOST_TEST(got.rfind(want, 0) == 0u, "for:\n" << text << "got:  " << got << "\nwant: " << want << "…");
  }
  try {
    load_config("/no/such/pecheck.toml", ids());
    BOOST_FAIL("a missing file is an error");
  } catch (const ConfigError& e) {
    BOOST_TEST(std::string(e.what()) == "cannot read the config file /no/such/pecheck.toml: No such file or directory");
  }
}

BOOST_AUTO_TEST_CASE(profiles_are_data) {
  BOOST_TEST(profile_names() == "sinusoidal, rotary, attention, absolute, bias, module, gradients");
  for (const auto& p : profiles()) {
    BOOST_TEST(!p.why.empty(), p.name);
    // Every glob of every profile names registered properties.
    for (const auto& glob : p.properties) {
      bool matched = false;
      for (const auto& id : ids()) matched = matched || fnmatch(glob.c_str(), id.c_str(), 0) == 0;
      BOOST_TEST(matched, p.name << ": " << glob);
    }
  }
  const Profile* absolute = find_profile("absolute");
  BOOST_REQUIRE(absolute != nullptr);
  BOOST_TEST(profile_applies(*absolute, "pe.length_independence"));
  BOOST_TEST(profile_applies(*absolute, "pe.distinct_positions"));
  // A learned table owes nothing to the sinusoid's structure or bound.
  for (const char* id : {"pe.bounded", "pe.constant_norm", "pe.offset_only_dot", "pe.reference_values"}) {
    BOOST_TEST(!profile_applies(*absolute, id), id);
  }
  BOOST_TEST(find_profile("nope") == nullptr);
}

// One table (pecheck/core/op_table.h) maps ops to profiles, for the
// default profile and for a process subject's scheme alike.
BOOST_AUTO_TEST_CASE(one_table_maps_ops_to_profiles_that_exist) {
  for (const OpRow& row : op_table()) {
    if (row.profile.empty()) continue;
    BOOST_TEST_CONTEXT(row.name) { BOOST_TEST(find_profile(row.profile) != nullptr); }
  }
  // Profiles join in profile order, not in the order ops are listed.
  const auto all = static_cast<unsigned>(Op::encode) | static_cast<unsigned>(Op::attention) |
                   static_cast<unsigned>(Op::rotate);
  BOOST_TEST(joined_profiles_of_ops(all) == "sinusoidal+rotary+attention");
  const auto bit = [](Op op) { return static_cast<unsigned>(op); };
  BOOST_TEST(joined_profiles_of_ops(0) == "");
  BOOST_TEST(joined_profiles_of_ops(bit(Op::forward) | bit(Op::decode)) == "module");  // one module, not two
  BOOST_TEST(joined_profiles_of_ops(bit(Op::decode) | bit(Op::bias) | bit(Op::encode)) == "sinusoidal+bias+module");
  BOOST_TEST(default_profile(bit(Op::forward) | bit(Op::decode) | bit(Op::attention)).name == "attention+module");
}

BOOST_AUTO_TEST_CASE(the_default_profile_follows_the_ops) {
  const auto encode = static_cast<unsigned>(Op::encode), rotate = static_cast<unsigned>(Op::rotate),
             attention = static_cast<unsigned>(Op::attention);
  BOOST_TEST(default_profile(encode).name == "sinusoidal");
  BOOST_TEST(default_profile(rotate).name == "rotary");
  BOOST_TEST(default_profile(attention).name == "attention");
  const Profile both = default_profile(encode | rotate);
  BOOST_TEST(both.name == "sinusoidal+rotary");
  BOOST_TEST(profile_applies(both, "pe.bounded"));
  BOOST_TEST(profile_applies(both, "rope.composition"));
  BOOST_TEST(!profile_applies(both, "attention.convex_combination"));
  BOOST_TEST(!profile_applies(default_profile(static_cast<unsigned>(Op::logits)), "pe.bounded"));

  SubjectInfo external;  // a plugin or C++ subject: no scheme of its own
  external.ops = encode;
  BOOST_TEST(profile_for(external, nullptr)->name == "sinusoidal");
  BOOST_TEST(profile_for(external, find_profile("absolute"))->name == "absolute");
  SubjectInfo builtin = external;  // built-ins keep their own expectations
  builtin.scheme = "learned";
  BOOST_TEST(!profile_for(builtin, nullptr).has_value());
}

BOOST_AUTO_TEST_CASE(cli_reads_the_file_and_flags_override_it) {
  const std::string dir = temp_dir("pecheck-config");
  const std::string path = write(dir, "subject = \"builtin:sinusoidal\"\nproperties = [\"pe.bounded\"]\n"
                                      "cases = 20\nseed = 7\nmax_position = 500\nreport_dir = \"" + dir + "/from-file\"\n"
                                      "[tolerance]\nfactor = 3\n");
  const auto r = run_cli({"run", "--config", path});
  BOOST_TEST(r.exit_code == 0, r.output);
  const json report = json::parse(read_file(dir + "/from-file/report.json"));
  BOOST_TEST(report["seed"] == 7);
  BOOST_TEST(report["cases"] == 20);
  BOOST_TEST(report["max_position"] == 500);
  BOOST_TEST(report["results"].size() == 1u);
  BOOST_TEST(report["results"][0]["cases"] == 20);
  BOOST_TEST(report["results"][0]["tolerance"]["formula"].get<std::string>().rfind("3 · u(float64)", 0) == 0u,
             report["results"][0]["tolerance"]["formula"]);

  const auto o = run_cli({"run", "--config", path, "--cases", "5", "--seed", "9", "--report-dir", dir + "/flags"});
  BOOST_TEST(o.exit_code == 0, o.output);
  const json overridden = json::parse(read_file(dir + "/flags/report.json"));
  BOOST_TEST(overridden["cases"] == 5);
  BOOST_TEST(overridden["seed"] == 9);
  BOOST_TEST(overridden["max_position"] == 500);  // not given on the command line: the file's
}

BOOST_AUTO_TEST_CASE(cli_expectations_and_tolerances_from_the_file) {
  const std::string dir = temp_dir("pecheck-config");
  // Recording a deviation that is not there fails the run: the record is stale.
  const std::string stale = write(dir, "subject = \"builtin:sinusoidal\"\nproperties = \"pe.bounded\"\n"
                                       "[expect]\n\"pe.bounded\" = \"violated\"\n");
  const auto r = run_cli({"run", "--config", stale, "--report-dir", dir + "/stale"});
  BOOST_TEST(r.exit_code == 1, r.output);
  BOOST_TEST(r.output.find("expected a violation") != std::string::npos, r.output);

  // A fixed bound replaces the error model: raw positions up to 100 exceed
  // the amplitude by at most 99, so a bound of 1000 lets pe.bounded hold.
  const std::string loose = write(dir, "subject = \"builtin:integer\"\nproperties = \"pe.bounded\"\nmax_position = 100\n"
                                       "[expect]\n\"pe.bounded\" = \"holds\"\n[tolerance.\"pe.bounded\"]\nbound = 1000\n");
  const auto l = run_cli({"run", "--config", loose, "--report-dir", dir + "/loose"});
  BOOST_TEST(l.exit_code == 0, l.output);
  const json report = json::parse(read_file(dir + "/loose/report.json"));
  BOOST_TEST(report["results"][0]["tolerance"]["formula"] == "1e+03 (fixed by configuration)");
}

BOOST_AUTO_TEST_CASE(cli_config_and_profile_errors_exit_2) {
  const std::string dir = temp_dir("pecheck-config");
  const auto typo = run_cli({"run", "--config", write(dir, "cases = 10\n\nsubjcet = \"builtin:sinusoidal\"\n")});
  BOOST_TEST(typo.exit_code == 2, typo.output);
  BOOST_TEST(typo.output.find(dir + "/pecheck.toml:3: subjcet: unknown key") != std::string::npos, typo.output);
  const auto missing = run_cli({"run", "--config", dir + "/none.toml"});
  BOOST_TEST(missing.exit_code == 2, missing.output);
  const auto profile = run_cli({"run", "--profile", "sinusiodal", "--report-dir", dir});
  BOOST_TEST(profile.exit_code == 2, profile.output);
  BOOST_TEST(profile.output.find("unknown profile 'sinusiodal'; known: sinusoidal, rotary, attention, absolute") !=
             std::string::npos, profile.output);
  const auto empty = run_cli({"run", "--profile", "rotary", "--properties", "pe.*", "--report-dir", dir});
  BOOST_TEST(empty.exit_code == 2, empty.output);
  BOOST_TEST(empty.output.find("within profile 'rotary'") != std::string::npos, empty.output);
}

BOOST_AUTO_TEST_CASE(cli_profiles_judge_a_learned_table) {
  const std::string dir = temp_dir("pecheck-config");
  // As a learned table, the random table meets what a table must.
  const auto absolute = run_cli({"run", "--subject", "builtin:learned", "--profile", "absolute", "--report-dir", dir + "/a"});
  BOOST_TEST(absolute.exit_code == 0, absolute.output);
  const json report = json::parse(read_file(dir + "/a/report.json"));
  std::set<std::string> ran;
  for (const auto& r : report["results"]) ran.insert(r["property"].get<std::string>());
  BOOST_TEST((ran == std::set<std::string>{"pe.length_independence", "pe.distinct_positions"}));
  BOOST_TEST(report["subjects"][0]["scheme"] == "absolute");
  // Judged as a sinusoid, it fails: the profile, not the subject, sets the expectations.
  const auto sinusoidal = run_cli({"run", "--subject", "builtin:learned", "--profile", "sinusoidal", "--report-dir", dir + "/s"});
  BOOST_TEST(sinusoidal.exit_code == 1, sinusoidal.output);
  BOOST_TEST(sinusoidal.output.find("pe.constant_norm") != std::string::npos, sinusoidal.output);
}

BOOST_AUTO_TEST_CASE(ci_recipes_gate_on_a_command_that_writes_what_they_publish) {
  const std::string source = std::getenv("PECHECK_SOURCE_DIR");
  const std::string gate = "pecheck run --config pecheck.toml --report-dir reports";
  const std::string github = read_file(source + "/examples/ci/github-actions.yml");
  const std::string gitlab = read_file(source + "/examples/ci/gitlab-ci.yml");
  BOOST_TEST(github.find("run: " + gate) != std::string::npos);
  BOOST_TEST(github.find("cat reports/summary.md >> \"$GITHUB_STEP_SUMMARY\"") != std::string::npos);
  BOOST_TEST(github.find("report_paths: reports/junit.xml") != std::string::npos);
  BOOST_TEST(gitlab.find("- " + gate) != std::string::npos);
  BOOST_TEST(gitlab.find("junit: reports/junit.xml") != std::string::npos);
  // They run in pecheck's image (the Dockerfile): nothing is built or installed on the runner.
  BOOST_TEST(github.find("container: ${{ vars.PECHECK_IMAGE }}") != std::string::npos);
  BOOST_TEST(gitlab.find("image: registry.example.com/your-group/pecheck:") != std::string::npos);
  for (const std::string& recipe : {github, gitlab}) {
    for (const char* builds : {"install-deps.sh", "build.sh", "cmake", "apt-get", "chromium"}) {
      BOOST_TEST(recipe.find(builds) == std::string::npos, builds);
    }
  }
  // The gate, run as the recipes run it (from the repository root, relative
  // paths), writes the files they publish, and its status is the verdict.
  const std::string root = temp_dir("pecheck-ci");
  write(root, "subject = \"builtin:sinusoidal\"\nproperties = \"pe.*\"\n");
  const std::string here = std::filesystem::current_path().string();
  BOOST_REQUIRE(chdir(root.c_str()) == 0);
  const auto r = run_cli({"run", "--config", "pecheck.toml", "--report-dir", "reports"});
  BOOST_REQUIRE(chdir(here.c_str()) == 0);
  BOOST_TEST(r.exit_code == 0, r.output);
  BOOST_TEST(std::filesystem::exists(root + "/reports/junit.xml"));
  BOOST_TEST(read_file(root + "/reports/summary.md").find("pe.bounded") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_cells_rerun_line_carries_the_config_and_flags_it_was_judged_under) {
  // The file expects a violation the correct encoder never shows: the cell
  // fails, and only under that file. Its Rerun line (report.json's `rerun`,
  // the console's) names the file and the factor, so rerunning it fails the
  // same way; without them it ran another cell, which passed.
  const std::string dir = temp_dir("pecheck-config");
  const std::string config = write(dir, "[expect]\n\"pe.bounded\" = \"violated\"\n");
  const auto r = run_cli({"run", "--config", config, "--subject", "builtin:sinusoidal", "--properties", "pe.bounded",
                          "--cases", "20", "--tolerance-factor", "4", "--max-size", "50", "--report-dir", dir + "/first"});
  BOOST_TEST(r.exit_code == 1, r.output);
  const json report = json::parse(read_file(dir + "/first/report.json"));
  const std::string rerun = report["results"][0]["rerun"].get<std::string>();
  BOOST_TEST(rerun.find(" --config " + shell_quote(config)) != std::string::npos, rerun);
  BOOST_TEST(rerun.find(" --tolerance-factor 4") != std::string::npos, rerun);
  BOOST_TEST(rerun.find(" --max-size 50") != std::string::npos, rerun);
  BOOST_TEST(r.output.find(rerun) != std::string::npos, r.output);  // the console's Rerun line is the same
  const int status = std::system((rerun + " --report-dir '" + dir + "/again' >/dev/null 2>&1").c_str());
  BOOST_TEST((WIFEXITED(status) && WEXITSTATUS(status) == 1), rerun);
  const json again = json::parse(read_file(dir + "/again/report.json"));
  BOOST_TEST(again["results"][0]["status"] == report["results"][0]["status"]);
  BOOST_TEST(again["tolerance_factor"] == 4);
}

BOOST_AUTO_TEST_SUITE_END()  // test_config
