// Merge checks what it trusts (issue 39): each shard records the params its
// subjects declared (and their digest), and merge recomputes their declared
// violations from them with its own registry. Two forgeries of the hostile
// pass of 2026-11-28 merged green; both must be refused (exit 2) saying what
// was forged:
//   - `declared_violations` added to a subject that declares nothing (a red
//     attention.softmax_stability turned into violated/violated);
//   - `pecheck_version` set to an older one in both shards, which switched the
//     registry check off, so a real violation relabelled "expected" (with the
//     property's expectation edited alike) merged green.
// Honest shards of a subject whose declarations do make a claim false (sinks)
// still merge, and every built-in and planted subject's recorded params give
// back the declared violations its own conventions give.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <functional>

#include "pecheck/core/digest.h"
#include "pecheck/property/registry.h"
#include "pecheck/report/json_reader.h"
#include "pecheck/report/json_writer.h"
#include "pecheck/subjects/builtin/builtins.h"
#include "pecheck/subjects/declare.h"
#include "support/cli.h"

BOOST_AUTO_TEST_SUITE(test_merge_declarations)

using namespace pecheck;
using namespace pecheck::testing;

namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

void write_text(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

constexpr const char* kRed = "mutant:attention-softmax-no-max";  // declares nothing; fails softmax_stability

// Two shards of a run in which `subject` is checked against the attention
// claims that have a violated_when: built once per subject, copied for each forgery.
std::string shards_of(const std::string& subject) {
  static std::map<std::string, std::string> made;
  if (auto it = made.find(subject); it != made.end()) return it->second;
  const std::string root = temp_dir("merge-declarations");
  for (int i = 0; i < 2; ++i) {
    const CliResult r = run_cli({"run", "--cases", "20", "--quiet", "--subject", subject, "--subject",
                                 "builtin:attention", "--properties", "attention.softmax_stability",
                                 "--properties", "attention.convex_combination", "--shard", std::to_string(i) + "/2",
                                 "--report-dir", root + "/s" + std::to_string(i)});
    BOOST_TEST_REQUIRE((r.exit_code == 0 || r.exit_code == 1), r.output);
  }
  return made[subject] = root;
}

// Copies of both shards, each report.json changed by `forge`; then the merge.
CliResult merge_forged(const std::string& subject, const std::function<void(json& report)>& forge) {
  const std::string from = shards_of(subject);
  const std::string root = temp_dir("merge-declarations-forged");
  for (int i = 0; i < 2; ++i) {
    const std::string dir = root + "/s" + std::to_string(i);
    fs::copy(from + "/s" + std::to_string(i), dir, fs::copy_options::recursive);
    json report = json::parse(read_file(dir + "/report.json"));
    forge(report);
    write_text(dir + "/report.json", report.dump(2) + "\n");
  }
  return run_cli({"merge", root + "/s0", root + "/s1", "--report-dir", root + "/merged"});
}

// The forger's edit, consistent within the file: the cell of `subject` (every
// subject's where empty) on `property` expected violated, its status and the counts and exit code
// recomputed as pecheck's writer would.
void relabel_expected(json& report, const std::string& subject, const std::string& property) {
  RunReport r = report_from_json(report);
  for (auto& result : r.results) {
    if ((subject.empty() || result.subject == subject) && result.property == property) {
      result.expectation = Expect::violated;
    }
  }
  r.exit_code = exit_code_for(r);
  report = json::parse(write_json(r));
}

json& subject_entry(json& report, const std::string& spec) {
  for (auto& s : report["subjects"]) {
    if (s["spec"] == spec) return s;
  }
  BOOST_FAIL("no subject " << spec);
  return report;
}

void expect_refused(const CliResult& r, const std::string& says) {
  BOOST_TEST(r.exit_code == 2, says << ": " << r.output);
  BOOST_TEST(contains(r.output, says), r.output);
  BOOST_TEST(!contains(r.output, "merged 2 shards"), r.output);
}

}  // namespace

BOOST_AUTO_TEST_CASE(honest_shards_record_their_params_and_merge) {
  const CliResult red = merge_forged(kRed, [](json&) {});
  BOOST_TEST(red.exit_code == 1, red.output);
  BOOST_TEST(contains(red.output, "merged 2 shards"), red.output);
  // Every subject carries its params and their digest, which is the digest of the params.
  const json report = json::parse(read_file(shards_of(kRed) + "/s0/report.json"));
  for (const auto& s : report["subjects"]) {
    BOOST_TEST(s["params"].is_object(), s.dump());
    BOOST_TEST(s["params_digest"] == json_digest(s["params"]), s.dump());
  }
  // A subject whose declared sinks make both claims false: expected violated, merged green.
  const CliResult sinks = merge_forged("builtin:gpt-oss-block", [](json&) {});
  BOOST_TEST(sinks.exit_code == 0, sinks.output);
  const json with_sinks = json::parse(read_file(shards_of("builtin:gpt-oss-block") + "/s0/report.json"));
  BOOST_TEST(with_sinks["subjects"][0]["params"]["attention"].contains("sinks"), with_sinks["subjects"].dump());
  BOOST_TEST(with_sinks["subjects"][0]["declared_violations"].size() == 2u, with_sinks["subjects"].dump());
}

BOOST_AUTO_TEST_CASE(a_violation_declared_by_a_subject_that_declares_nothing_is_refused) {
  // The hostile pass's forgery: a red turned into V/V by a declared violation.
  expect_refused(merge_forged(kRed,
                              [](json& report) {
                                relabel_expected(report, kRed, "attention.softmax_stability");
                                subject_entry(report, kRed)["declared_violations"] =
                                    json::array({"attention.softmax_stability"});
                              }),
                 "lists attention.softmax_stability among its declared violations, but the params it recorded ({}) "
                 "declare none of what makes it false (attention.softcap or attention.sinks): its declared "
                 "violations are forged");
  // The params edited to declare sinks, the digest left: the digest is not theirs.
  expect_refused(merge_forged(kRed,
                              [](json& report) {
                                subject_entry(report, kRed)["params"] = {{"attention", {{"sinks", true}}}};
                              }),
                 "its params_digest is not the digest of its params");
  // Params no hello could declare (sinks without their logits), digest and all: refused as a declaration.
  expect_refused(merge_forged(kRed,
                              [](json& report) {
                                json& s = subject_entry(report, kRed);
                                s["params"] = {{"attention", {{"sinks", true}}}};
                                s["params_digest"] = json_digest(s["params"]);
                              }),
                 "records params that pecheck " PECHECK_VERSION " does not accept as a declaration");
  // A violation its declarations give, left out of the list: the cell's
  // expectation is then not the run's; relabelled "holds" as well (a sinks
  // subject that held, a red, made H/H), the params still give it.
  expect_refused(merge_forged("builtin:gpt-oss-block",
                              [](json& report) {
                                subject_entry(report, "builtin:gpt-oss-block")["declared_violations"] =
                                    json::array({"attention.convex_combination"});
                              }),
                 "its expectation 'violated' is not the run's for this cell: 'holds'");
  expect_refused(merge_forged("builtin:gpt-oss-block",
                              [](json& report) {
                                RunReport r = report_from_json(report);
                                for (auto& result : r.results) {
                                  if (result.property == "attention.softmax_stability") result.expectation = Expect::holds;
                                }
                                for (auto& s : r.subjects) {
                                  if (s.spec == "builtin:gpt-oss-block") {
                                    s.declared_violations = {"attention.convex_combination"};
                                  }
                                }
                                r.exit_code = exit_code_for(r);
                                report = json::parse(write_json(r));
                              }),
                 "declares what makes attention.softmax_stability false (attention.softcap or attention.sinks), but "
                 "its declared violations leave it out: its declared violations are forged");
}

BOOST_AUTO_TEST_CASE(a_shard_of_another_version_is_refused_never_judged_without_the_registry) {
  // The hostile pass's forgery: both shards "of an older version", the
  // violation relabelled expected and the property's expectation edited alike.
  expect_refused(merge_forged(kRed,
                              [](json& report) {
                                relabel_expected(report, "", "attention.softmax_stability");
                                report["pecheck_version"] = "0.1.0";
                                for (auto& p : report["properties"]) {
                                  if (p["id"] == "attention.softmax_stability") p["expect"] = "violated";
                                }
                              }),
                 "was written by pecheck \"0.1.0\", not by this pecheck " PECHECK_VERSION);
  // The version alone, nothing else edited: refused as well.
  expect_refused(merge_forged(kRed, [](json& report) { report["pecheck_version"] = "99.0.0"; }),
                 "merges only shards of its own version");
}

BOOST_AUTO_TEST_CASE(recorded_params_give_back_the_declared_violations_of_every_builtin_and_planted_subject) {
  // Merge rebuilds a subject's conventions from its recorded params: for
  // every subject pecheck ships, they must give what its own info gives.
  int with_violations = 0;
  for (const auto* table : {&builtin_subjects(), &mutant_subjects()}) {
    for (const auto& entry : *table) {
      const SubjectPtr subject = entry.make();
      const SubjectInfo& info = subject->info();
      SubjectInfo back;
      back.ops = info.ops;
      BOOST_CHECK_NO_THROW(apply_declarations(json{{"params", declared_params(info)}}, back));
      for (const auto& p : all_properties()) {
        if (!p.info.violated_by) continue;
        BOOST_TEST(p.info.violated_by(back) == p.info.violated_by(info), entry.name << " × " << p.info.id);
        with_violations += p.info.violated_by(info) ? 1 : 0;
      }
    }
  }
  BOOST_TEST(with_violations > 0, "some subject declares what makes a claim false");
}

BOOST_AUTO_TEST_SUITE_END()  // test_merge_declarations
