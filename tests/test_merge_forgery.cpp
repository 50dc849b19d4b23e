// Files that lie (issue 24): a shard's report directory is untrusted input to
// `pecheck merge`. A forged red→green shard (a status that contradicts its
// outcome, counterexample or expectation; a summary or exit code its
// results do not give; a counterexample file its report no longer accounts
// for), a report.json that is a symlink to /dev/zero, a FIFO, a 2 GiB file,
// or JSON a lenient reader would misread — each ends in exit 2 naming the
// file and what is wrong, at once and in bounded memory, never in a green
// merge. The same bounded reading guards --config, replay and the
// regression store.
#include <boost/test/unit_test.hpp>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>

#include "pecheck/report/json_reader.h"
#include "pecheck/report/json_writer.h"
#include "support/cli.h"

BOOST_AUTO_TEST_SUITE(test_merge_forgery)

using namespace pecheck;
using namespace pecheck::testing;

namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

void write_text(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// Two shards of one run with violations: built once, copied for each forgery.
struct Shards {
  std::string root;
  int red = -1;           // the shard holding a failed result with a counterexample
  std::size_t index = 0;  // ... and that result's index in its report
};

const Shards& shards() {
  static const Shards made = [] {
    Shards s;
    s.root = temp_dir("merge-forgery");
    for (int i = 0; i < 2; ++i) {
      const CliResult r = run_cli({"run", "--cases", "20", "--quiet", "--subject", "builtin:sinusoidal", "--subject",
                                   "mutant:sinusoidal-sin-cos-swapped", "--properties", "pe.*", "--shard",
                                   std::to_string(i) + "/2", "--report-dir", s.root + "/s" + std::to_string(i)});
      BOOST_TEST_REQUIRE((r.exit_code == 0 || r.exit_code == 1), r.output);
      const json report = json::parse(read_file(s.root + "/s" + std::to_string(i) + "/report.json"));
      for (std::size_t k = 0; k < report["results"].size() && s.red < 0; ++k) {
        const json& result = report["results"][k];
        if (result["status"] == "failed" && result.contains("counterexample")) {
          s.red = i;
          s.index = k;
        }
      }
    }
    BOOST_TEST_REQUIRE(s.red >= 0, "no shard holds a failed result with a counterexample");
    return s;
  }();
  return made;
}

// A fresh copy of both shards, the red one changed by `forge`; then the merge.
CliResult merge_forged(const std::function<void(const fs::path& dir, const Shards&)>& forge,
                       const CliOptions& options = {}) {
  const Shards& s = shards();
  const std::string root = temp_dir("merge-forged");
  for (int i = 0; i < 2; ++i) {
    fs::copy(s.root + "/s" + std::to_string(i), root + "/s" + std::to_string(i), fs::copy_options::recursive);
  }
  forge(root + "/s" + std::to_string(s.red), s);
  return run_cli({"merge", root + "/s0", root + "/s1", "--report-dir", root + "/merged"}, options);
}

// The red shard's report.json edited as JSON.
std::function<void(const fs::path&, const Shards&)> edit(std::function<void(json& report, json& result)> change) {
  return [change](const fs::path& dir, const Shards& s) {
    json report = json::parse(read_file(dir / "report.json"));
    change(report, report["results"][s.index]);
    write_text(dir / "report.json", report.dump(2) + "\n");
  };
}

// The red shard's report rewritten consistently by a forger who knows the
// writer: every derived field agrees with the edited outcome.
std::function<void(const fs::path&, const Shards&)> rewrite(std::function<void(PropertyResult& result)> change) {
  return [change](const fs::path& dir, const Shards& s) {
    RunReport report = report_from_json(json::parse(read_file(dir / "report.json")));
    change(report.results[s.index]);
    report.exit_code = exit_code_for(report);
    write_text(dir / "report.json", write_json(report));
  };
}

std::string counterexample_file(const fs::path& dir, const Shards& s) {
  const RunReport report = report_from_json(json::parse(read_file(dir / "report.json")));
  return (dir / "counterexamples" / counterexample_file_name(report.results[s.index])).string();
}

void expect_refused(const CliResult& r, const std::string& says) {
  BOOST_TEST(r.exit_code == 2, says << ": " << r.output);
  BOOST_TEST(contains(r.output, says), r.output);
  BOOST_TEST(!contains(r.output, "merged 2 shards"), r.output);
  BOOST_TEST(r.seconds < 20 * time_scale(), "refused at once, not after " << r.seconds << " s");
  BOOST_TEST(r.max_rss_kib < 200 * 1024 * memory_scale(), "in bounded memory (max RSS " << r.max_rss_kib << " KiB)");
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_shards_as_written_merge_red) {
  const CliResult r = merge_forged([](const fs::path&, const Shards&) {});
  BOOST_TEST(r.exit_code == 1, r.output);
  BOOST_TEST(contains(r.output, "merged 2 shards"), r.output);
}

BOOST_AUTO_TEST_CASE(a_status_that_contradicts_its_outcome_counterexample_or_expectation_is_refused) {
  // The hostile pass's edit: passed / holds, the counterexample object left in place.
  expect_refused(merge_forged(edit([](json&, json& r) {
                   r["status"] = "passed";
                   r["outcome"] = "holds";
                 })),
                 "it carries a counterexample, but its outcome is 'holds'");
  // The status alone.
  expect_refused(merge_forged(edit([](json&, json& r) { r["status"] = "passed"; })),
                 "its status \"passed\" contradicts its outcome 'violated' against the expectation 'holds', which is "
                 "'failed'");
  // A violation turned "expected": consistent within the result, but not the run's expectation for the cell.
  expect_refused(merge_forged(rewrite([](PropertyResult& r) { r.expectation = Expect::violated; })),
                 "its expectation 'violated' is not the run's for this cell: 'holds'");
  // The same, the subject made to declare a convention that would excuse it:
  // pe.* claims have no violated_when, so no declaration can.
  expect_refused(merge_forged([](const fs::path& dir, const Shards& s) {
                   RunReport report = report_from_json(json::parse(read_file(dir / "report.json")));
                   PropertyResult& r = report.results[s.index];
                   r.expectation = Expect::violated;
                   for (auto& subject : report.subjects) {
                     if (subject.spec == r.subject) subject.declared_violations.push_back(r.property);
                   }
                   report.exit_code = exit_code_for(report);
                   write_text(dir / "report.json", write_json(report));
                 }),
                 "among its declared violations, which no declared convention makes false");
  // A message edited.
  expect_refused(merge_forged(edit([](json&, json& r) { r["message"] = "all good"; })),
                 "its 'message' is \"all good\", where pecheck writes");
  // The counts and the exit code are the results', not the file's say.
  expect_refused(merge_forged(edit([](json& report, json&) {
                   report["summary"]["failed"] = report["summary"]["failed"].get<int>() - 1;
                   report["summary"]["passed"] = report["summary"]["passed"].get<int>() + 1;
                 })),
                 "its summary");
  expect_refused(merge_forged(edit([](json& report, json&) { report["exit_code"] = 0; })),
                 "its exit code 0 is not what its results give: 1");
  expect_refused(merge_forged(edit([](json&, json& r) { r["cases"] = -5; })), "field 'cases' must be a whole number");
}

BOOST_AUTO_TEST_CASE(no_counterexample_file_is_dropped) {
  // report.json rewritten green consistently (summary, exit code, every
  // derived field): its counterexample file is still there, and no result
  // accounts for it.
  expect_refused(merge_forged(rewrite([](PropertyResult& r) { r.outcome = Held{}; })),
                 "is a counterexample file that no result of");
  // A counterexample file removed, edited, or from another run.
  expect_refused(merge_forged([](const fs::path& dir, const Shards& s) { fs::remove(counterexample_file(dir, s)); }),
                 "is missing");
  expect_refused(merge_forged([](const fs::path& dir, const Shards& s) {
                   const std::string file = counterexample_file(dir, s);
                   json j = json::parse(read_file(file));
                   j["counterexample"]["observed"] = 0.5;
                   write_text(file, j.dump(2));
                 }),
                 "does not match its result");
  expect_refused(merge_forged([](const fs::path& dir, const Shards&) {
                   write_text(dir / ".pecheck-report", R"({"format":"pecheck-report-dir","run_id":"other"})");
                 }),
                 "is not the marker of the run");
  // Only report.json kept (an artifact of that file alone): it holds every counterexample itself.
  const CliResult alone = merge_forged([](const fs::path& dir, const Shards&) {
    fs::remove_all(dir / "counterexamples");
    fs::remove(dir / ".pecheck-report");
  });
  BOOST_TEST(alone.exit_code == 1, alone.output);
}

BOOST_AUTO_TEST_CASE(properties_are_as_this_pecheck_defines_them) {
  // Both shards edited alike (else the runs differ): an expectation in the
  // registry turned around is not this version's property.
  const Shards& s = shards();
  const std::string root = temp_dir("merge-forged");
  for (int i = 0; i < 2; ++i) {
    const std::string dir = root + "/s" + std::to_string(i);
    fs::copy(s.root + "/s" + std::to_string(i), dir, fs::copy_options::recursive);
    json report = json::parse(read_file(dir + "/report.json"));
    report["properties"][0]["claim"] = "anything at all";
    write_text(dir + "/report.json", report.dump(2));
  }
  expect_refused(run_cli({"merge", root + "/s0", root + "/s1", "--report-dir", root + "/merged"}),
                 "is not as pecheck");
}

BOOST_AUTO_TEST_CASE(json_a_lenient_reader_would_misread_is_refused) {
  auto text = [](std::function<std::string(const std::string&)> change) {
    return [change](const fs::path& dir, const Shards&) {
      write_text(dir / "report.json", change(read_file(dir / "report.json")));
    };
  };
  expect_refused(merge_forged(text([](const std::string& t) { return t + std::string("\0garbage", 8); })),
                 "a NUL byte at byte");
  expect_refused(merge_forged(text([](const std::string& t) { return "\xEF\xBB\xBF" + t; })), "byte-order mark");
  // A second status after the first: nlohmann and Python keep the last, other readers the first.
  expect_refused(merge_forged(text([](const std::string& t) {
                   std::string out = t;
                   const auto at = out.find(R"("status": "failed")");
                   return out.replace(at, 18, R"("status": "failed", "status": "passed")");
                 })),
                 "the key \"status\" twice");
  expect_refused(merge_forged(edit([](json&, json& r) {
                   json deep = 1;
                   for (int i = 0; i < 100; ++i) deep = json::array({deep});
                   r["counterexample"]["observed"] = deep;
                 })),
                 "nested more than 64 levels");
}

BOOST_AUTO_TEST_CASE(a_report_that_is_not_a_regular_file_or_too_large_is_refused_at_once) {
  expect_refused(merge_forged([](const fs::path& dir, const Shards&) {
                   fs::remove(dir / "report.json");
                   fs::create_symlink("/dev/zero", dir / "report.json");
                 }),
                 "is a character device, not a regular file");
  expect_refused(merge_forged([](const fs::path& dir, const Shards&) {
                   fs::remove(dir / "report.json");
                   BOOST_REQUIRE(mkfifo((dir / "report.json").c_str(), 0600) == 0);
                 }),
                 "is a FIFO (named pipe), not a regular file");
  expect_refused(merge_forged([](const fs::path& dir, const Shards&) {
                   fs::resize_file(dir / "report.json", std::uintmax_t{2} << 30);  // sparse
                 }),
                 "is 2 GiB, more than the 1 GiB pecheck reads in a report");
  expect_refused(merge_forged([](const fs::path& dir, const Shards& s) {
                   const std::string file = counterexample_file(dir, s);
                   fs::remove(file);
                   fs::create_symlink("/dev/zero", file);
                 }),
                 "is a character device, not a regular file");
}

BOOST_AUTO_TEST_CASE(configs_counterexample_files_and_store_entries_are_read_bounded_too) {
  const std::string dir = temp_dir("bounded-inputs");
  BOOST_REQUIRE(mkfifo((dir + "/fifo").c_str(), 0600) == 0);
  fs::create_symlink("/dev/zero", dir + "/zero");
  for (const std::string& file : {dir + "/fifo", dir + "/zero"}) {
    BOOST_TEST_CONTEXT(file) {
      const CliResult config = run_cli({"run", "--cases", "5", "--config", file, "--report-dir", dir + "/r"});
      BOOST_TEST(config.exit_code == 2, config.output);
      BOOST_TEST(contains(config.output, "not a regular file"), config.output);
      const CliResult replay = run_cli({"replay", file, "--subject", "builtin:sinusoidal"});
      BOOST_TEST(replay.exit_code == 2, replay.output);
      BOOST_TEST(contains(replay.output, "not a regular file"), replay.output);
      BOOST_TEST(replay.seconds < 20 * time_scale());
    }
  }
  // A regression store with a FIFO and a /dev/zero link among its entries:
  // each is skipped and named, and the run goes on (the store is a convenience).
  const std::string store = dir + "/store";
  fs::create_directories(store);
  BOOST_REQUIRE(mkfifo((store + "/pe.bounded--fifo.json").c_str(), 0600) == 0);
  fs::create_symlink("/dev/zero", store + "/pe.bounded--zero.json");
  const char* hermetic = std::getenv("PECHECK_NO_REGRESSIONS");
  const std::string saved = hermetic ? hermetic : "";
  unsetenv("PECHECK_NO_REGRESSIONS");
  const CliResult run = run_cli({"run", "--cases", "5", "--subject", "builtin:sinusoidal", "--properties", "pe.bounded",
                                 "--regression-dir", store, "--report-dir", dir + "/store-run"});
  if (hermetic) setenv("PECHECK_NO_REGRESSIONS", saved.c_str(), 1);
  BOOST_TEST(run.exit_code == 0, run.output);
  BOOST_TEST(run.seconds < 30 * time_scale());
  const json report = json::parse(read_file(dir + "/store-run/report.json"));
  const std::string problems = report.value("regression_problems", json::array()).dump();
  BOOST_TEST(contains(problems, "pe.bounded--fifo.json is a FIFO"), problems);
  BOOST_TEST(contains(problems, "pe.bounded--zero.json is a character device"), problems);
}

BOOST_AUTO_TEST_SUITE_END()  // test_merge_forgery
