#include "pecheck/report/junit_writer.h"

#include <fmt/format.h>

#include "pecheck/core/escape.h"
#include "pecheck/report/json_writer.h"
#include "pecheck/report/matrix.h"
#include "pecheck/report/witness.h"
#include "report/json_text.h"

namespace pecheck {

namespace {

// JSON as text; invalid UTF-8 in a string is replaced, not thrown on.
using report_text::dump;

std::string subject_failure_text(const SubjectFailureInfo& f) {
  return fmt::format("subject failure: {}\n  request:  {}\n  received: {}\n  exit:     {}\n  stderr tail:\n{}\n",
                     f.message, f.request, f.received, f.exit_status, f.stderr_tail);
}

// A subject the run was asked to check that got no cell: one failing testcase.
std::string no_cells_case(const SubjectSummary& s) {
  return fmt::format("    <testcase classname=\"pecheck.subject\" name=\"{}\" time=\"0\">\n"
                     "      <failure message=\"{}\" type=\"coverage\">{}</failure>\n    </testcase>\n",
                     escape_xml("subject cells [" + s.spec + "]"), escape_xml(s.no_cells), escape_xml(s.no_cells));
}

// A subject that could not be started: one erroring testcase in its suite.
std::string start_failure_case(const SubjectSummary& s) {
  return fmt::format("    <testcase classname=\"pecheck.subject\" name=\"{}\" time=\"0\">\n"
                     "      <error message=\"{}\" type=\"subject-failure\">{}</error>\n    </testcase>\n",
                     escape_xml("subject start [" + s.spec + "]"),
                     escape_xml("subject failure: " + s.start_failure->message),
                     escape_xml(subject_failure_text(*s.start_failure)));
}

std::string failure_text(const RunReport& report, const PropertyResult& r) {
  std::string text = fmt::format("expected: {}\nobserved: {}\n", name(r.expectation), name(r.outcome));
  if (!r.message().empty() && r.subject_failure() == nullptr) text += r.message() + "\n";
  if (r.counterexample()) {
    const auto& c = *r.counterexample();
    text += fmt::format(
        "counterexample (after {} shrinks):\n  inputs:   {}\n  check:    {}\n  where:    {}\n  observed: {}\n"
        "  expected: {}\n  error:    {:.6g}\n  bound:    {}\n",
        r.shrinks, dump(c.inputs), c.check, c.where(), dump(c.observed), dump(c.expected), c.error,
        c.tolerance.formula);
    if (!c.diagnosis.empty()) text += "  diagnosis: " + c.diagnosis + "\n";
  }
  if (r.subject_failure()) text += subject_failure_text(*r.subject_failure());
  if (!r.reproduce().empty()) text += "reproduce: " + r.reproduce() + "\n";
  text += "covered: " + coverage_line(r.cases, r.discards, r.coverage) + "\n";
  text += "rerun: " + rerun_command(report, r) + "\n";
  return text;
}

std::string testcase(const RunReport& report, const PropertyResult& r) {
  const std::string family = r.property.substr(0, r.property.find('.'));
  std::string out = fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.6f}\"",
                                escape_xml("pecheck." + family), escape_xml(r.property + " [" + r.subject + "]"),
                                r.seconds);
  std::string body;
  std::string summary = fmt::format("expected {}, observed {}", name(r.expectation), name(r.outcome));
  // The witness in the one line CI summaries show.
  if (r.counterexample()) summary += ": " + witness_line(*r.counterexample());
  switch (r.status()) {
    case Status::passed:
      body = fmt::format("      <system-out>{}</system-out>\n",
                         escape_xml(fmt::format("{}; covered: {}; worst error {:.3g} against bound {}", summary,
                                                coverage_line(r.cases, r.discards, r.coverage), r.error(),
                                                r.tolerance().formula)));
      break;
    case Status::failed:
      body = fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n", escape_xml(summary),
                         r.counterexample() ? "counterexample" : r.coverage.shortfall.empty() ? "expectation" : "coverage",
                         escape_xml(failure_text(report, r)));
      break;
    case Status::error:
      body = fmt::format("      <error message=\"{}\" type=\"{}\">{}</error>\n", escape_xml(r.message()),
                         r.subject_failure() ? "subject-failure" : "error", escape_xml(failure_text(report, r)));
      break;
    case Status::skipped:
      body = fmt::format("      <skipped message=\"{}\"/>\n", escape_xml(r.message()));
      break;
  }
  return out + ">\n" + body + "    </testcase>\n";
}

}  // namespace

std::string write_junit(const RunReport& report) {
  Totals all = totals(report.results);
  for (const auto& s : report.subjects) {
    if (s.start_failure) {
      ++all.total;
      ++all.error;
    }
    if (!s.no_cells.empty()) {
      ++all.total;
      ++all.failed;
    }
  }
  if (!report.nothing_checked.empty()) {
    ++all.total;
    ++all.failed;
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"pecheck\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.6f}\">\n",
                     all.total, all.failed, all.error, all.skipped, report.seconds);
  for (const auto& s : report.subjects) {
    std::vector<PropertyResult> mine;
    for (const auto& r : report.results) {
      if (r.subject == s.spec) mine.push_back(r);
    }
    Totals t = totals(mine);
    if (s.start_failure) {
      ++t.total;
      ++t.error;
    }
    if (!s.no_cells.empty()) {
      ++t.total;
      ++t.failed;
    }
    double seconds = 0;
    for (const auto& r : mine) seconds += r.seconds;
    out += fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.6f}\" timestamp=\"{}\">\n",
        escape_xml("pecheck " + s.spec), t.total, t.failed, t.error, t.skipped, seconds, escape_xml(report.started_at));
    out += "    <properties>\n";
    auto prop = [&out](std::string_view k, const std::string& v) {
      out += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", k, escape_xml(v));
    };
    prop("pecheck.version", report.pecheck_version);
    prop("seed", std::to_string(report.seed));
    prop("cases", std::to_string(report.cases));
    prop("max_position", std::to_string(report.max_position));
    prop("tolerance_factor", fmt::format("{:g}", report.tolerance_factor));
    prop("command", report.command);
    prop("subject.name", s.name);
    prop("subject.dtype", s.dtype);
    prop("subject.layout", s.layout);
    for (const auto& b : report.budgets) {
      if (b.subject == s.spec) out += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n",
                                                  escape_xml("budget." + b.property), escape_xml(budget_sentence(b)));
    }
    out += "    </properties>\n";
    if (s.start_failure) out += start_failure_case(s);
    if (!s.no_cells.empty()) out += no_cells_case(s);
    for (const auto& r : mine) out += testcase(report, r);
    out += "  </testsuite>\n";
  }
  if (!report.nothing_checked.empty()) {
    // A run that checked nothing is a failing test, never an empty green suite.
    out += fmt::format("  <testsuite name=\"pecheck\" tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\" time=\"0\">\n"
                       "    <testcase classname=\"pecheck\" name=\"nothing checked\" time=\"0\">\n"
                       "      <failure message=\"{}\" type=\"coverage\">{}</failure>\n    </testcase>\n  </testsuite>\n",
                       escape_xml(report.nothing_checked), escape_xml(report.nothing_checked));
  }
  out += "</testsuites>\n";
  return out;
}

}  // namespace pecheck
