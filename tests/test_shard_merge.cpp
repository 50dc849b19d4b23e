// Sharded CI: `pecheck run --shard I/N` on N machines, then `pecheck merge`,
// gives the unsharded run's report and exit code (apart from timings) — for
// a passing run and for one with violations, a subject failure and its
// not-run cells; a bad --shard or shard environment (GTEST_* and CI_NODE_*
// naming different shards) is a usage error; an empty shard says so and
// passes, while a run with no cell fails sharded and merged alike; merge
// refuses shards of different runs, a shard given twice, a missing shard
// and a directory without a report (test_merge_forgery: shards that lie).
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>

#include "pecheck/runner/shard.h"
#include "support/cli.h"
#include "support/run_compare.h"

BOOST_AUTO_TEST_SUITE(test_shard_merge)

using namespace pecheck;
using namespace pecheck::testing;

namespace {

std::string source(const std::string& path) { return std::string(std::getenv("PECHECK_SOURCE_DIR")) + "/" + path; }

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// Runs `args` unsharded and in `n` shards, merges, and checks the merge equals the unsharded run.
void check_sharded_equals_unsharded(const std::vector<std::string>& args, int n, int expected_exit) {
  const std::string root = temp_dir("shard-merge");
  const CliResult whole = run_cli(with(args, {"--report-dir", root + "/whole"}));
  BOOST_TEST_REQUIRE(whole.exit_code == expected_exit, whole.output);
  std::vector<std::string> merge_args = {"merge"};
  int cells = 0;
  for (int i = 0; i < n; ++i) {
    const std::string dir = root + "/shard" + std::to_string(i);
    const CliResult shard = run_cli(with(args, {"--shard", std::to_string(i) + "/" + std::to_string(n), "--report-dir", dir}));
    BOOST_TEST_REQUIRE((shard.exit_code == 0 || shard.exit_code == 1 || shard.exit_code == 3), shard.output);
    BOOST_TEST(shard.output.find("shard " + std::to_string(i) + "/" + std::to_string(n)) != std::string::npos);
    const json report = json::parse(read_file(dir + "/report.json"));
    cells += report["shard"]["cells"].get<int>();
    BOOST_TEST(report["shard"]["total_cells"].get<int>() == static_cast<int>(json::parse(read_file(root + "/whole/report.json"))["results"].size()));
    merge_args.push_back(dir);
  }
  const CliResult merged = run_cli(with(merge_args, {"--report-dir", root + "/merged"}));
  BOOST_TEST(merged.exit_code == whole.exit_code, merged.output);
  const json a = report_without_timings(root + "/whole");
  const json b = report_without_timings(root + "/merged");
  BOOST_TEST(cells == static_cast<int>(a["results"].size()));
  BOOST_TEST(!b.contains("shard"));
  BOOST_TEST(a == b, "merged report differs:\n" << json::diff(a, b).dump(1).substr(0, 3000));
  // Every format is written, and the counterexample files are the same, named alike.
  for (const auto& entry : std::filesystem::directory_iterator(root + "/whole/counterexamples")) {
    const auto other = root + "/merged/counterexamples/" + entry.path().filename().string();
    BOOST_TEST_REQUIRE(std::filesystem::exists(other), other);
    json x = json::parse(read_file(entry.path()));
    json y = json::parse(read_file(other));
    for (auto* j : {&x, &y}) {
      j->erase("seconds");
      j->erase("run_id");
      j->erase("replay");  // names the report directory
    }
    BOOST_TEST(x == y, entry.path().filename());
  }
  for (const char* file : {"junit.xml", "summary.md", "report.html"}) {
    BOOST_TEST(std::filesystem::exists(root + "/merged/" + file));
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(default_matrix_sharded_three_ways_and_merged_equals_the_unsharded_run) {
  check_sharded_equals_unsharded({"run", "--cases", "30", "--quiet"}, 3, 0);
}

BOOST_AUTO_TEST_CASE(failures_subject_failures_and_not_run_cells_merge_as_one_run_records_them) {
  const std::string crash = "cmd:/usr/bin/python3 '" + source("tests/subjects/misbehaving.py") + "' crash-after-hello";
  check_sharded_equals_unsharded({"run", "--cases", "30", "--quiet", "--subject", "builtin:sinusoidal", "--subject",
                                  "mutant:sinusoidal-cos-next-frequency", "--subject", "mutant:sinusoidal-sin-cos-swapped",
                                  "--subject", crash, "--subject", "builtin:rope"},
                                 3, 3);
}

BOOST_AUTO_TEST_CASE(bad_shard_values_are_usage_errors) {
  const std::string dir = temp_dir("shard-bad");
  for (const std::string bad : {"3/3", "-1/3", "1/0", "1", "a/b", "1/3/4", "0/"}) {
    const CliResult r = run_cli({"run", "--cases", "5", "--shard", bad, "--report-dir", dir});
    BOOST_TEST(r.exit_code == 2, bad << ": " << r.output);
    BOOST_TEST(r.output.find("--shard") != std::string::npos, r.output);
  }
  const CliResult random = run_cli({"run", "--cases", "5", "--shard", "0/2", "--seed", "random", "--report-dir", dir});
  BOOST_TEST(random.exit_code == 2, random.output);
}

BOOST_AUTO_TEST_CASE(the_ci_environment_picks_the_shard) {
  const std::string root = temp_dir("shard-env");
  const std::vector<std::string> args = {"run", "--cases", "5", "--quiet", "--subject", "builtin:sinusoidal"};
  run_cli(with(args, {"--shard", "1/2", "--report-dir", root + "/flag"}));
  const json flag = report_without_timings(root + "/flag");
  // GoogleTest: 0-based.
  setenv("GTEST_SHARD_INDEX", "1", 1);
  setenv("GTEST_TOTAL_SHARDS", "2", 1);
  run_cli(with(args, {"--report-dir", root + "/gtest"}));
  BOOST_TEST(report_without_timings(root + "/gtest") == flag);
  // The flag wins over the environment.
  run_cli(with(args, {"--shard", "0/2", "--report-dir", root + "/zero"}));
  BOOST_TEST(report_without_timings(root + "/zero")["shard"]["index"] == 0);
  unsetenv("GTEST_SHARD_INDEX");
  unsetenv("GTEST_TOTAL_SHARDS");
  // GitLab parallel: 1-based, so node 2 of 2 is shard 1/2.
  setenv("CI_NODE_INDEX", "2", 1);
  setenv("CI_NODE_TOTAL", "2", 1);
  run_cli(with(args, {"--report-dir", root + "/gitlab"}));
  BOOST_TEST(report_without_timings(root + "/gitlab") == flag);
  setenv("CI_NODE_INDEX", "0", 1);  // not a GitLab index
  const CliResult zero = run_cli(with(args, {"--report-dir", root + "/bad"}));
  BOOST_TEST(zero.exit_code == 2, zero.output);
  BOOST_TEST(zero.output.find("CI_NODE_INDEX=0") != std::string::npos, zero.output);
  unsetenv("CI_NODE_TOTAL");  // half a pair
  const CliResult half = run_cli(with(args, {"--report-dir", root + "/half"}));
  BOOST_TEST(half.exit_code == 2, half.output);
  unsetenv("CI_NODE_INDEX");

  // Both pairs set: the same shard is fine; different shards are a usage
  // error naming both (which one the CI meant cannot be guessed).
  setenv("GTEST_SHARD_INDEX", "1", 1);
  setenv("GTEST_TOTAL_SHARDS", "2", 1);
  setenv("CI_NODE_INDEX", "2", 1);
  setenv("CI_NODE_TOTAL", "2", 1);
  run_cli(with(args, {"--report-dir", root + "/both"}));
  BOOST_TEST(report_without_timings(root + "/both") == flag);
  setenv("CI_NODE_INDEX", "1", 1);
  const CliResult disagree = run_cli(with(args, {"--report-dir", root + "/disagree"}));
  BOOST_TEST(disagree.exit_code == 2, disagree.output);
  for (const char* named : {"GTEST_SHARD_INDEX=1 GTEST_TOTAL_SHARDS=2", "shard 1/2", "CI_NODE_INDEX=1 CI_NODE_TOTAL=2",
                            "shard 0/2"}) {
    BOOST_TEST(disagree.output.find(named) != std::string::npos, named << ": " << disagree.output);
  }
  // The flag decides alone.
  const CliResult flagged = run_cli(with(args, {"--shard", "1/2", "--report-dir", root + "/flagged"}));
  BOOST_TEST(flagged.exit_code == 0, flagged.output);
  for (const char* name : {"GTEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS", "CI_NODE_INDEX", "CI_NODE_TOTAL"}) unsetenv(name);
}

BOOST_AUTO_TEST_CASE(an_empty_shard_of_a_run_with_cells_passes_and_a_run_without_cells_fails_sharded_or_merged) {
  // The rule (docs/reports-and-merge.md): a shard holding no cell of a run
  // that has cells checked all it was asked — exit 0, saying so; the merge
  // of every shard is the gate. A run that has no cell at all fails (exit
  // 1) unsharded, in every shard, and merged.
  const std::string root = temp_dir("shard-edges");
  const CliResult far = run_cli({"run", "--cases", "5", "--subject", "builtin:sinusoidal", "--properties", "pe.bounded",
                                 "--shard", "5/1000000", "--report-dir", root + "/far"});
  BOOST_TEST(far.exit_code == 0, far.output);
  BOOST_TEST(far.output.find("shard 5/1000000 (0-based): 0 of 1 cell") != std::string::npos, far.output);
  const json report = json::parse(read_file(root + "/far/report.json"));
  BOOST_TEST(report["results"].empty());
  BOOST_TEST(report["shard"]["total_cells"] == 1);

  const std::vector<std::string> none = {"run", "--cases", "5", "--quiet", "--subject", "builtin:attention",
                                         "--properties", "pe.bounded"};
  const CliResult whole = run_cli(with(none, {"--report-dir", root + "/whole"}));
  BOOST_TEST(whole.exit_code == 1, whole.output);
  std::vector<std::string> merge_args = {"merge"};
  for (int i = 0; i < 2; ++i) {
    const std::string dir = root + "/none" + std::to_string(i);
    const CliResult shard = run_cli(with(none, {"--shard", std::to_string(i) + "/2", "--report-dir", dir}));
    BOOST_TEST(shard.exit_code == 1, shard.output);
    merge_args.push_back(dir);
  }
  const CliResult merged = run_cli(with(merge_args, {"--report-dir", root + "/merged"}));
  BOOST_TEST(merged.exit_code == 1, merged.output);
  BOOST_TEST(report_without_timings(root + "/merged") == report_without_timings(root + "/whole"));
}

BOOST_AUTO_TEST_CASE(an_empty_shard_passes_only_saying_so) {
  const std::string root = temp_dir("shard-empty");
  // One cell, five shards: four of them are empty, legitimately.
  int empty = 0;
  for (int i = 0; i < 5; ++i) {
    const CliResult r = run_cli({"run", "--cases", "5", "--subject", "builtin:sinusoidal", "--properties", "pe.bounded",
                                 "--shard", std::to_string(i) + "/5", "--report-dir", root + "/" + std::to_string(i)});
    BOOST_TEST(r.exit_code == 0, r.output);
    const json report = json::parse(read_file(root + "/" + std::to_string(i) + "/report.json"));
    BOOST_TEST(report["shard"]["total_cells"] == 1);
    if (report["shard"]["cells"] == 0) {
      ++empty;
      BOOST_TEST(r.output.find("0 of 1 cell (more shards than cells") != std::string::npos, r.output);
    }
  }
  BOOST_TEST(empty == 4);
}

BOOST_AUTO_TEST_CASE(merge_refuses_what_is_not_one_whole_sharded_run) {
  const std::string root = temp_dir("merge-bad");
  const std::vector<std::string> args = {"run", "--cases", "5", "--quiet", "--subject", "builtin:sinusoidal"};
  for (int i = 0; i < 2; ++i) {
    run_cli(with(args, {"--shard", std::to_string(i) + "/2", "--report-dir", root + "/s" + std::to_string(i)}));
  }
  run_cli(with(args, {"--shard", "1/2", "--seed", "2", "--report-dir", root + "/seed2"}));
  run_cli(with(args, {"--shard", "1/2", "--max-position", "500", "--report-dir", root + "/position500"}));
  run_cli(with(args, {"--shard", "1/2", "--no-shrink", "--report-dir", root + "/noshrink"}));
  run_cli(with(args, {"--report-dir", root + "/whole"}));
  auto merge = [&](std::vector<std::string> dirs) {
    std::vector<std::string> a = {"merge", "--report-dir", root + "/out"};
    for (auto& d : dirs) a.push_back(root + "/" + d);
    return run_cli(a);
  };
  const CliResult ok = merge({"s1", "s0"});  // any order
  BOOST_TEST(ok.exit_code == 0, ok.output);
  struct Bad {
    std::vector<std::string> dirs;
    std::string says;
  };
  for (const auto& [dirs, says] : std::vector<Bad>{{{"s0", "seed2"}, "'seed' differs"},
                                                    {{"s0", "position500"}, "'max_position' differs"},
                                                    {{"s0", "noshrink"}, "'command' differs"},
                                                    {{"s0", "s0"}, "given twice"},
                                                    {{"s0"}, "missing shard(s) 1/2"},
                                                    {{"s0", "whole"}, "not from a sharded run"},
                                                    {{"s0", "nowhere"}, "cannot read"}}) {
    const CliResult r = merge(dirs);
    BOOST_TEST(r.exit_code == 2, says << ": " << r.output);
    BOOST_TEST(r.output.find(says) != std::string::npos, says << ": " << r.output);
  }
}

BOOST_AUTO_TEST_CASE(fnv1a_is_the_published_function_and_shards_partition_the_cells) {
  // Test vectors of FNV-1a 64 (Fowler/Noll/Vo).
  BOOST_TEST(fnv1a64("") == 0xcbf29ce484222325ULL);
  BOOST_TEST(fnv1a64("a") == 0xaf63dc4c8601ec8cULL);
  BOOST_TEST(fnv1a64("foobar") == 0x85944171f73967e8ULL);
  for (int total : {1, 2, 3, 7}) {
    const int s = shard_of("pe.bounded", "builtin:sinusoidal", total);
    BOOST_TEST((s >= 0 && s < total));
    BOOST_TEST(s == static_cast<int>(fnv1a64("pe.bounded|builtin:sinusoidal") % total));
  }
  BOOST_TEST(parse_shard("2/5").index == 2);
  BOOST_TEST(parse_shard("2/5").total == 5);
  BOOST_CHECK_THROW(parse_shard("5/5"), std::invalid_argument);
  BOOST_CHECK_THROW(parse_shard("+1/5"), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()  // test_shard_merge
