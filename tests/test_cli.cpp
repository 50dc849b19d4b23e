// The command line: exit codes of the brief, the registry's completeness
// against CLAIMS.md, reproducibility (same seed, same report), a run that
// checks nothing never passing, help and suggestions people can read, and
// replaying a history script.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "pecheck/core/json.h"
#include "pecheck/property/registry.h"
#include "support/cli.h"

BOOST_AUTO_TEST_SUITE(test_cli)

using namespace pecheck;
using namespace pecheck::testing;

BOOST_AUTO_TEST_CASE(usage_errors_exit_2_with_a_message) {
  const std::vector<std::vector<std::string>> bad = {
      {"run", "--bogus"},
      {"run", "--seed", "abc"},
      {"run", "--cases", "0"},
      {"run", "--properties", "no.such.*"},
      {"run", "--subject", "builtin:nope"},
      {"run", "--subject", "sinusoidal"},
      {"frobnicate"},
      {},
  };
  for (const auto& args : bad) {
    const auto r = run_cli(args);
    BOOST_TEST(r.exit_code == 2, "args: " << (args.empty() ? "(none)" : args[0]) << " output: " << r.output);
    BOOST_TEST(!r.output.empty());
  }
  const auto unknown = run_cli({"run", "--subject", "builtin:nope", "--report-dir", temp_dir("pecheck-cli")});
  BOOST_TEST(unknown.output.find("unknown subject 'builtin:nope'") != std::string::npos, unknown.output);
}

BOOST_AUTO_TEST_CASE(a_pending_claim_named_is_a_usage_error_naming_its_issue) {
  const auto& pending = pecheck::pending_claims();
  if (pending.empty()) return;  // every claim of the catalog is implemented
  const std::string id = pending.front().id;
  const auto r = run_cli({"run", "--properties", id, "--subject", "builtin:attention"});
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(r.output.find(id) != std::string::npos, r.output);
  BOOST_TEST(r.output.find(fmt::format("issue {}", pending.front().issue)) != std::string::npos, r.output);
  // `pecheck list` shows it among the pending claims.
  const auto l = run_cli({"list"});
  BOOST_TEST(l.output.find(id + " ") != std::string::npos, l.output.substr(0, 200));
}

BOOST_AUTO_TEST_CASE(unwritable_report_dir_is_a_clear_error) {
  const auto r = run_cli({"run", "--properties", "pe.bounded", "--subject", "builtin:sinusoidal", "--report-dir",
                          "/dev/null/reports"});
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(r.output.find("/dev/null/reports") != std::string::npos, r.output);
}

BOOST_AUTO_TEST_CASE(list_json_holds_every_claim_of_the_catalog) {
  const auto r = run_cli({"list", "--json"});
  BOOST_REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.output);
  std::set<std::string> ids;
  for (const auto& p : j["properties"]) ids.insert(p["id"].get<std::string>());
  // Every id of the catalog's tables (docs/CLAIMS.md, the project's copy of
  // ../shared/spec/CLAIMS.md, kept in step by check-spec-copies.sh): the
  // first cell of each row, the header's "id" aside.
  const std::set<std::string> catalog = [] {
    const char* source = std::getenv("PECHECK_SOURCE_DIR");
    BOOST_REQUIRE_MESSAGE(source != nullptr, "PECHECK_SOURCE_DIR is not set (run through ctest)");
    std::ifstream in(std::string(source) + "/docs/CLAIMS.md");
    BOOST_REQUIRE(in.good());
    const std::regex row(R"(^\| ([a-z_]+(\.[a-z_0-9]+)?) \|)");
    std::set<std::string> s;
    std::smatch m;
    for (std::string line; std::getline(in, line);) {
      if (std::regex_search(line, m, row) && m[1] != "id") s.insert(m[1]);
    }
    return s;
  }();
  BOOST_TEST(catalog.size() >= 70u);  // sections 1-11 as of the turn of 2026-11-28
  // Every id is implemented or listed as pending with its issue, never both.
  std::set<std::string> pending;
  for (const auto& p : j["pending"]) {
    BOOST_TEST(p["issue"].get<int>() > 0);
    BOOST_TEST(ids.count(p["id"].get<std::string>()) == 0u, p["id"]);
    pending.insert(p["id"].get<std::string>());
  }
  std::set<std::string> listed = ids;
  listed.insert(pending.begin(), pending.end());
  BOOST_TEST(listed == catalog);
  for (const auto& p : j["properties"]) BOOST_TEST(!p["claim"].get<std::string>().empty());
  const std::set<std::string> builtins = [&] {
    std::set<std::string> s;
    for (const auto& x : j["subjects"]) s.insert(x["spec"].get<std::string>());
    return s;
  }();
  for (const char* name : {"sinusoidal", "sinusoidal-halves", "sinusoidal-scaled", "learned", "normalized",
                           "integer", "rope", "rope-halves", "attention", "combine"}) {
    BOOST_TEST(builtins.count(std::string("builtin:") + name) == 1, name);
  }
}

namespace {
// report.json without what legitimately changes between runs (timings, the run id).
json without_timings(json j) {
  j.erase("run_id");
  j.erase("seconds");
  j.erase("started_at");
  j.erase("command");
  for (auto& r : j["results"]) r.erase("seconds");
  return j;
}
}  // namespace

BOOST_AUTO_TEST_CASE(same_seed_gives_the_same_report) {
  const std::string a = temp_dir("pecheck-seed-a"), b = temp_dir("pecheck-seed-b");
  const std::vector<std::string> common = {"run", "--seed", "42", "--cases", "50", "-q"};
  auto args_a = common, args_b = common;
  args_a.insert(args_a.end(), {"--report-dir", a});
  args_b.insert(args_b.end(), {"--report-dir", b});
  const auto ra = run_cli(args_a), rb = run_cli(args_b);
  BOOST_TEST(ra.exit_code == rb.exit_code);
  const json ja = without_timings(json::parse(read_file(a + "/report.json")));
  const json jb = without_timings(json::parse(read_file(b + "/report.json")));
  BOOST_TEST(ja == jb, "reports differ: " << json::diff(ja, jb).dump().substr(0, 2000));
  // And a different seed explores different inputs.
  const std::string c = temp_dir("pecheck-seed-c");
  run_cli({"run", "--seed", "43", "--cases", "50", "-q", "--report-dir", c});
  const json jc = without_timings(json::parse(read_file(c + "/report.json")));
  BOOST_TEST(ja["results"] != jc["results"]);
}

BOOST_AUTO_TEST_CASE(the_full_claims_matrix_meets_every_expectation) {
  const std::string dir = temp_dir("pecheck-full");
  const auto r = run_cli({"run", "--report-dir", dir});
  BOOST_TEST(r.exit_code == 0, r.output.substr(r.output.size() > 6000 ? r.output.size() - 6000 : 0));
  const json j = json::parse(read_file(dir + "/report.json"));
  BOOST_TEST(j["summary"]["failed"] == 0);
  BOOST_TEST(j["summary"]["error"] == 0);
  // Every expected violation comes with a shrunk witness on disk.
  for (const auto& res : j["results"]) {
    if (res["expectation"] == "violated") {
      BOOST_TEST(res.contains("counterexample"), res["property"] << " × " << res["subject"]);
    }
  }
  BOOST_TEST(r.output.find("Claims matrix") != std::string::npos);
}

// The console's first answers to a new user: the version, help for one
// command, and the command or option meant when one is misspelt (exit 2).
BOOST_AUTO_TEST_CASE(version_help_and_did_you_mean) {
  const auto version = run_cli({"--version"});
  BOOST_TEST(version.exit_code == 0, version.output);
  BOOST_TEST(version.output.find(std::string("pecheck ") + PECHECK_VERSION) != std::string::npos, version.output);
  const auto help = run_cli({"help", "run"});
  BOOST_TEST(help.exit_code == 0, help.output);
  BOOST_TEST(help.output.find("--max-position") != std::string::npos, help.output);
  const auto command = run_cli({"rnu"});
  BOOST_TEST(command.exit_code == 2, command.output);
  BOOST_TEST(command.output.find("did you mean 'run'?") != std::string::npos, command.output);
  const auto option = run_cli({"run", "--cses", "3"});
  BOOST_TEST(option.exit_code == 2, option.output);
  BOOST_TEST(option.output.find("did you mean '--cases'?") != std::string::npos, option.output);
  // Nothing close: no guess.
  const auto far = run_cli({"run", "--zzzzzzzz"});
  BOOST_TEST(far.exit_code == 2, far.output);
  BOOST_TEST(far.output.find("did you mean") == std::string::npos, far.output);
}

// --help reads as text for people: short metavariables, the rule and the
// default in words, no CLI11 artefacts ("{false}", "INT:INT in [1, 100]").
BOOST_AUTO_TEST_CASE(help_shows_defaults_without_cli11_artefacts) {
  const auto help = run_cli({"help", "run"});
  BOOST_TEST(help.exit_code == 0, help.output);
  for (const char* artefact : {"{false}", "{true}", "INT:", "TEXT:", "FLOAT:", "1.79769e+308"}) {
    BOOST_TEST(help.output.find(artefact) == std::string::npos, artefact << " in\n" << help.output);
  }
  for (const char* shown : {"--cases N ", "[1 to 10000000; default 100]", "--subject SPEC ...", "[default reports]",
                            "--no-shrink ", "[finite > 0; default 8]", "[default .pecheck/regressions]"}) {
    BOOST_TEST(help.output.find(shown) != std::string::npos, shown << " not in\n" << help.output);
  }
}

BOOST_AUTO_TEST_CASE(every_command_s_help_names_its_values_for_people) {
  // Metavariables say what to type (GLOB, DIR, SECONDS), never CLI11's TEXT or FLOAT.
  for (const char* command : {"run", "merge", "replay", "serve", "identify", "list"}) {
    const auto help = run_cli({"help", command});
    BOOST_TEST(help.exit_code == 0, help.output);
    BOOST_TEST(!std::regex_search(help.output, std::regex(R"( (TEXT|FLOAT|UINT)\b)")), command << ":\n" << help.output);
  }
  const auto run_help = run_cli({"help", "run"});
  for (const char* shown : {"--properties GLOB ...", "--seed SEED", "--report-dir DIR", "--subject-timeout SECONDS",
                            "--shard I/N", "--config FILE"}) {
    BOOST_TEST(run_help.output.find(shown) != std::string::npos, shown << " not in\n" << run_help.output);
  }
}

BOOST_AUTO_TEST_CASE(help_for_no_such_command_and_misspelt_options_are_usage_errors_in_one_voice) {
  const auto nosuch = run_cli({"help", "nosuch"});
  BOOST_TEST(nosuch.exit_code == 2, nosuch.output);
  BOOST_TEST(nosuch.output.find("there is no command 'nosuch'") != std::string::npos, nosuch.output);
  const auto near = run_cli({"help", "rnu"});
  BOOST_TEST(near.exit_code == 2, near.output);
  BOOST_TEST(near.output.find("did you mean 'run'?") != std::string::npos, near.output);
  // The suggestion alone, not CLI11's "The following arguments were not expected" before it.
  const auto misspelt = run_cli({"run", "--seeed", "3"});
  BOOST_TEST(misspelt.exit_code == 2, misspelt.output);
  BOOST_TEST(misspelt.output.find("did you mean '--seed'?") != std::string::npos, misspelt.output);
  BOOST_TEST(misspelt.output.find("not expected") == std::string::npos, misspelt.output);
}

BOOST_AUTO_TEST_CASE(a_run_that_checks_nothing_exits_1_and_says_why) {
  const std::string dir = temp_dir("cli-nothing");
  // An encoder asked for rotary claims: no cell at all.
  const auto r = run_cli({"run", "--subject", "builtin:sinusoidal", "--properties", "rope.*", "--no-regressions",
                          "--report-dir", dir});
  BOOST_TEST(r.exit_code == 1, r.output);
  BOOST_TEST(r.output.find("Nothing was checked") != std::string::npos, r.output);
  BOOST_TEST(r.output.find("no selected property applies to it") != std::string::npos, r.output);
  // The CI gate sees a failure too, not an empty green suite.
  const std::string junit = read_file(dir + "/junit.xml");
  BOOST_TEST(junit.find("tests=\"0\"") == std::string::npos, junit);
  BOOST_TEST(junit.find("<failure") != std::string::npos, junit);
  const json report = json::parse(read_file(dir + "/report.json"));
  BOOST_TEST(report["results"].empty());
}

BOOST_AUTO_TEST_CASE(a_history_script_replays_from_the_command_line) {
  const std::string dir = temp_dir("cli-history");
  const auto found = run_cli({"run", "--subject", "mutant:llama-ntk-cache-never-shrinks", "--properties",
                              "history_independence", "--cases", "50", "--no-regressions", "--report-dir", dir});
  BOOST_TEST(found.exit_code == 1, found.output);
  const std::string file = dir + "/counterexamples/history_independence--mutant_llama-ntk-cache-never-shrinks.json";
  const json record = json::parse(read_file(file));
  BOOST_TEST(record["counterexample"]["inputs"].is_array(), record.dump());  // the script of requests
  const auto again = run_cli({"replay", file});
  BOOST_TEST(again.exit_code == 1, again.output);
  BOOST_TEST(again.output.find("still fails") != std::string::npos, again.output);
  const auto fixed = run_cli({"replay", file, "--subject", "builtin:llama-block-dynamic-ntk"});
  BOOST_TEST(fixed.exit_code == 0, fixed.output);
  BOOST_TEST(fixed.output.find("now holds") != std::string::npos, fixed.output);
}

BOOST_AUTO_TEST_SUITE_END()  // test_cli
