// report.json reads back into the same report: write → read → write gives the
// same JSON for every outcome kind, the shard record, the error model and
// budgets (pecheck merge depends on it); a file that is not a report of this
// version is a clear error, never a half-read report.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <fstream>

#include "pecheck/report/json_reader.h"
#include "pecheck/report/json_writer.h"
#include "support/cli.h"
#include "support/sample_report.h"

BOOST_AUTO_TEST_SUITE(test_json_reader)

using namespace pecheck;

namespace {

// The sample report plus the outcomes and records it lacks.
RunReport full_report() {
  RunReport r = testing::sample_report();
  PropertyResult base = r.results.front();
  PropertyResult gave_up = base;
  gave_up.property = "pe.gave_up";
  gave_up.discards = 7;
  gave_up.discard_reason = "d must be even";
  gave_up.regressions_unfit = 2;
  gave_up.outcome = GaveUp{"gave up: too many refusals"};
  PropertyResult errored = base;
  errored.property = "pe.errored";
  errored.outcome = Errored{"RapidCheck error: boom"};
  PropertyResult uncovered = base;
  uncovered.property = "pe.uncovered";
  uncovered.coverage.shortfall = "positions ≤ 100 of 10000; --max-position";
  uncovered.coverage.max_position = 100;
  uncovered.coverage.max_refused_position = 9000;
  uncovered.coverage.refusals = {{"too long", 3}};
  uncovered.coverage.width_gate = 64;
  uncovered.coverage.max_refused_width = 128;
  uncovered.coverage.not_checkable = 1;
  uncovered.coverage.not_checkable_reason = "bound ≥ ceiling";
  uncovered.coverage.max_uncheckable_position = 77;
  uncovered.outcome = Uncovered{uncovered.coverage.shortfall};
  PropertyResult skipped = base;
  skipped.property = "pe.skipped";
  skipped.outcome = NotRun{"not run: the subject failed during pe.bounded"};
  PropertyResult nan = base;
  nan.property = "pe.nan";
  Counterexample c;
  c.inputs = {{"d", 4}};
  c.check = "value";
  c.bound_kind = Bound::Kind::lower;
  c.error = std::nan("");
  c.tolerance = {1e-6, "8·u·1"};
  c.location.position = 3;
  c.location.label = "here";
  c.observed = json::array({1.5});
  c.expected = json::array({2});
  c.diagnosis = "sin and cos swapped";
  nan.outcome = Violated{c, "", ".pecheck/regressions/x.json"};
  for (auto* extra : {&gave_up, &errored, &uncovered, &skipped, &nan}) r.results.push_back(*extra);
  r.tolerance_overrides = {{"pe.bounded", 16}};
  r.tolerance_absolute = {{"pe.nan", 1e-3}};
  r.regression_dir = ".pecheck/regressions";
  r.shard = ShardInfo{1, 3, 9, 27};
  PrecisionBudget b;
  b.property = "pe.bounded";
  b.subject = "builtin:sinusoidal";
  b.dtype = "float32";
  b.target = 3.9e-3;
  b.target_formula = "8·u(float16)";
  b.holds_up_to = 2048;
  b.fails_from = 2049;
  b.search_limit = 1 << 20;
  b.cases_per_step = 50;
  b.steps = 12;
  b.witness = {{"t", 2049}};
  b.witness_error = 0.01;
  b.witness_where = "position 2049";
  b.witness_position = 2049;
  r.budgets.push_back(b);
  r.expectations = {{"pe.errored", Expect::holds}};
  // As a run writes it: every result's property listed, its expectation the
  // run's for the cell, the exit code its results give.
  for (const auto& result : r.results) {
    bool listed = false;
    for (const auto& p : r.properties) listed = listed || p.id == result.property;
    if (!listed) {
      PropertyInfo extra = r.properties.front();
      extra.id = result.property;
      r.properties.push_back(extra);
    }
  }
  for (auto& result : r.results) {
    for (const auto& p : r.properties) {
      for (const auto& s : r.subjects) {
        if (p.id == result.property && s.spec == result.subject) result.expectation = p.expectation(s.scheme);
      }
    }
    if (r.expectations.count(result.property)) result.expectation = r.expectations.at(result.property);
  }
  r.exit_code = exit_code_for(r);
  return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(write_read_write_is_the_same_json) {
  const RunReport original = full_report();
  const std::string first = write_json(original);
  const RunReport read = report_from_json(json::parse(first));
  BOOST_TEST(write_json(read) == first);
  // Not only the same text: the same outcome kinds and derived views.
  BOOST_REQUIRE_EQUAL(read.results.size(), original.results.size());
  for (std::size_t i = 0; i < read.results.size(); ++i) {
    BOOST_TEST(read.results[i].outcome.index() == original.results[i].outcome.index());
    BOOST_TEST(read.results[i].message() == original.results[i].message());
    BOOST_TEST(name(read.results[i].status()) == name(original.results[i].status()));
  }
  BOOST_TEST(read.shard.has_value());
  BOOST_TEST(read.shard->total_cells == 27);
  BOOST_TEST(exit_code_for(read) == exit_code_for(original));
}

BOOST_AUTO_TEST_CASE(counterexample_files_are_the_same_after_reading) {
  const RunReport original = full_report();
  const RunReport read = report_from_json(to_json(original));
  for (std::size_t i = 0; i < read.results.size(); ++i) {
    if (!original.results[i].counterexample()) continue;
    BOOST_TEST(counterexample_json(read, read.results[i]) == counterexample_json(original, original.results[i]));
  }
}

BOOST_AUTO_TEST_CASE(what_is_not_a_report_is_refused_clearly) {
  auto message = [](const json& j) -> std::string {
    try {
      report_from_json(j);
    } catch (const ReportReadError& e) {
      return e.what();
    }
    return "accepted";
  };
  BOOST_TEST(message(json::object()).find("not a pecheck report") != std::string::npos);
  json j = to_json(full_report());
  json old = j;
  old["version"] = 1;
  BOOST_TEST(message(old).find("version 1") != std::string::npos);
  json missing = j;
  missing["results"][0].erase("cases");
  BOOST_TEST(message(missing).find("'cases'") != std::string::npos);
  json wrong = j;
  wrong["results"][1]["outcome"] = "maybe";
  BOOST_TEST(message(wrong).find("unknown outcome 'maybe'") != std::string::npos);

  const std::string dir = testing::temp_dir("json-reader");
  std::ofstream(dir + "/report.json") << "{ not json";
  try {
    read_report(dir + "/report.json");
    BOOST_FAIL("accepted a file that is not JSON");
  } catch (const ReportReadError& e) {
    BOOST_TEST(std::string(e.what()).find("report.json: not JSON") != std::string::npos);
  }
  BOOST_CHECK_THROW(read_report(dir + "/absent.json"), ReportReadError);
}

BOOST_AUTO_TEST_CASE(the_text_reader_reads_what_the_tree_reader_reads) {
  // report_from_text reads the results one at a time; the report is the same.
  const RunReport original = full_report();
  const std::string text = write_json(original);
  BOOST_TEST(write_json(report_from_text(text)) == text);
  // Keys in another order than pecheck writes them ("results" before "format"): read whole, the same.
  const json j = json::parse(text);
  std::string reordered = "{\"results\":" + j["results"].dump() + ",";
  for (const auto& [key, value] : j.items()) {
    if (key != "results") reordered += json(key).dump() + ":" + value.dump() + ",";
  }
  reordered.back() = '}';
  BOOST_TEST(write_json(report_from_text(reordered)) == text);
}

BOOST_AUTO_TEST_CASE(a_report_that_contradicts_itself_is_refused_naming_the_field) {
  auto message = [](const json& j) -> std::string {
    try {
      report_from_text(j.dump());
    } catch (const ReportReadError& e) {
      return e.what();
    }
    return "accepted";
  };
  const json j = to_json(full_report());
  BOOST_TEST(message(j) == "accepted");
  std::size_t witness = 0;  // the sample's violated result, an expected violation (passed)
  while (j["results"][witness]["outcome"] != "violated") ++witness;
  auto with = [&](auto change) {
    json forged = j;
    change(forged, forged["results"][witness]);
    return message(forged);
  };
  auto has = [](const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; };
  BOOST_TEST(has(with([](json&, json& r) { r["outcome"] = "holds"; }), "its status \"passed\" contradicts its outcome "
                                                                        "'holds' against the expectation 'violated'"));
  BOOST_TEST(has(with([](json&, json& r) {
                   r["outcome"] = "holds";
                   r["status"] = "failed";
                 }),
                 "carries a counterexample"));
  BOOST_TEST(has(with([](json&, json& r) { r["status"] = "failed"; }), "its status \"failed\" contradicts"));
  BOOST_TEST(has(with([](json&, json& r) { r["expectation"] = "holds"; }), "its status \"passed\" contradicts"));
  BOOST_TEST(has(with([](json&, json& r) { r["note"] = "edited"; }), "its 'note' is \"edited\""));
  BOOST_TEST(has(with([](json&, json& r) { r["rerun"] = "rm -rf /"; }), "its rerun command is not the run's"));
  BOOST_TEST(has(with([](json&, json& r) { r["shrinks"] = 1.5; }), "field 'shrinks' must be a whole number"));
  BOOST_TEST(has(with([](json&, json& r) { r["discards"] = 4294967297ULL; }), "field 'discards' must be a whole"));
  BOOST_TEST(has(with([](json&, json& r) { r["extra"] = 1; }), "a field 'extra' that pecheck does not write"));
  BOOST_TEST(has(with([](json& report, json&) { report["summary"]["total"] = 99; }), "its summary"));
  BOOST_TEST(has(with([](json& report, json&) { report["exit_code"] = 0; }), "its exit code 0"));
  BOOST_TEST(has(with([](json& report, json&) { report["expectations"]["pe.errored"] = "violated"; }),
                 "its expectation 'holds' is not the run's for this cell: 'violated'"));
  BOOST_TEST(has(with([](json& report, json&) { report["unknown"] = true; }), "a field 'unknown'"));
  BOOST_TEST(has(with([](json& report, json&) { report["shard"]["index"] = 3; }), "is not a shard"));
}

BOOST_AUTO_TEST_SUITE_END()  // test_json_reader
