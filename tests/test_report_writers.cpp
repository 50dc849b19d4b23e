// The report writers are pure functions of a RunReport: golden files pin
// their output, and structural checks keep each format valid.
#include <boost/test/unit_test.hpp>

#include "pecheck/report/json_writer.h"
#include "pecheck/report/junit_writer.h"
#include "pecheck/report/markdown_writer.h"
#include "pecheck/report/matrix.h"
#include "support/golden.h"
#include "support/sample_report.h"

BOOST_AUTO_TEST_SUITE(test_report_writers)

using namespace pecheck;
using pecheck::testing::compare_golden;
using pecheck::testing::sample_report;

BOOST_AUTO_TEST_CASE(json_matches_golden) {
  const std::string diff = compare_golden("report.json", write_json(sample_report()));
  BOOST_TEST(diff.empty(), diff);
}

BOOST_AUTO_TEST_CASE(junit_matches_golden) {
  const std::string diff = compare_golden("junit.xml", write_junit(sample_report()));
  BOOST_TEST(diff.empty(), diff);
}

BOOST_AUTO_TEST_CASE(markdown_matches_golden) {
  const std::string diff = compare_golden("summary.md", write_markdown(sample_report()));
  BOOST_TEST(diff.empty(), diff);
}

BOOST_AUTO_TEST_CASE(json_counts_statuses_and_keeps_the_counterexample) {
  const json j = to_json(sample_report());
  BOOST_TEST(j["format"] == "pecheck-report");
  BOOST_TEST(j["version"] == 2);
  BOOST_TEST(j["results"][1]["counterexample"]["check"] == "within the amplitude");
  BOOST_TEST(j["results"][1]["counterexample"]["location"]["position"] == 2);
  BOOST_TEST(j["summary"]["total"] == 4);
  BOOST_TEST(j["summary"]["passed"] == 2);
  BOOST_TEST(j["summary"]["failed"] == 1);
  BOOST_TEST(j["summary"]["error"] == 1);
  BOOST_TEST(j["results"][1]["counterexample"]["inputs"]["position"] == 2);
  BOOST_TEST(j["results"][2]["subject_failure"]["exit_status"] == "still running");
  BOOST_TEST(j["results"][1]["rerun"].get<std::string>().find("--seed 7") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(junit_escapes_subject_text) {
  const std::string xml = write_junit(sample_report());
  BOOST_TEST(xml.find("<script>") == std::string::npos);
  BOOST_TEST(xml.find("&lt;script&gt;") != std::string::npos);
  BOOST_TEST(xml.find("]]>") == std::string::npos);
  BOOST_TEST(xml.find("<failure") != std::string::npos);
  BOOST_TEST(xml.find("<error") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(matrix_groups_by_family_with_applicable_subjects) {
  const auto tables = claims_matrix(sample_report());
  BOOST_REQUIRE(tables.size() == 2);
  BOOST_TEST(tables[0].family == "pe");
  BOOST_TEST(tables[0].subjects.size() == 3);
  BOOST_TEST(tables[1].family == "attention");
  BOOST_TEST(tables[1].subjects.size() == 1);
  BOOST_TEST(cell_text(*tables[0].rows[0].cells[1]) == "V/V");
  BOOST_TEST(total_line(sample_report()).find("4 cells: 2 passed, 1 failed, 1 errors") == 0);
}

BOOST_AUTO_TEST_SUITE_END()  // test_report_writers
