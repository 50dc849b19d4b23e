#include "pecheck/report/markdown_writer.h"

#include <fmt/format.h>

#include "pecheck/core/escape.h"
#include "pecheck/report/cause_first.h"
#include "pecheck/report/json_writer.h"
#include "pecheck/report/matrix.h"
#include "report/json_text.h"

namespace pecheck {

namespace {

// JSON as text; invalid UTF-8 in a string is replaced, not thrown on.
using report_text::dump;

constexpr size_t kMaxValueChars = 600;   // one JSON value in a table cell
constexpr size_t kMaxSections = 60;      // failures and witnesses listed
constexpr size_t kMaxBytes = 900 * 1024; // GitHub's job summary holds at most 1 MiB

std::string clip(const std::string& s) { return clip_utf8(s, kMaxValueChars); }

std::string cell_md(const MatrixCell& c) {
  const char* mark = c.status == Status::passed ? "✅" : c.status == Status::skipped ? "⏭️" : "❌";
  return fmt::format("{} {}", mark, cell_text(c));
}

std::string failure_rows(const SubjectFailureInfo& f) {
  return fmt::format("| subject failure | {} |\n| request | {} |\n| received | {} |\n| exit | {} |\n| stderr tail | {} |\n",
                     escape_markdown_cell(clip(f.message)), escape_markdown_cell(clip(f.request)),
                     escape_markdown_cell(clip(f.received)), escape_markdown_cell(f.exit_status),
                     escape_markdown_cell(clip(f.stderr_tail)));
}

std::string start_failures(const RunReport& report) {
  std::string out;
  for (const auto& s : report.subjects) {
    if (!s.start_failure) continue;
    out += fmt::format("#### {} could not be started\n\n| | |\n|---|---|\n", markdown_code(clip(s.spec)));
    out += failure_rows(*s.start_failure) + "\n";
  }
  return out.empty() ? out : "## Subjects that could not be started\n\n" + out;
}

std::string details(const RunReport& report, const PropertyResult& r) {
  std::string out = fmt::format("#### {} × {}\n\n", markdown_code(r.property), markdown_code(clip(r.subject)));
  out += fmt::format("| | |\n|---|---|\n| expected | {} |\n| observed | {} |\n", name(r.expectation), name(r.outcome));
  if (!r.consequence_of.empty()) {
    out += fmt::format("| likely a consequence of | {} (failed above: read it first) |\n", markdown_code(r.consequence_of, true));
  }
  if (!r.message().empty()) out += fmt::format("| message | {} |\n", escape_markdown_cell(clip(r.message())));
  if (r.counterexample()) {
    const auto& c = *r.counterexample();
    out += fmt::format("| inputs | {} |\n| check | {} |\n| where | {} |\n| observed value | {} |\n| expected value | {} |\n",
                       escape_markdown_cell(clip(dump(c.inputs))), escape_markdown_cell(c.check),
                       escape_markdown_cell(c.where()),
                       escape_markdown_cell(clip(dump(c.observed))), escape_markdown_cell(clip(dump(c.expected))));
    out += fmt::format("| error / bound | {:.4g} / {} |\n| shrinks | {} |\n", c.error,
                       escape_markdown_cell(c.tolerance.formula), r.shrinks);
    if (!c.diagnosis.empty()) out += fmt::format("| diagnosis | {} |\n", escape_markdown_cell(clip(c.diagnosis)));
  }
  if (r.subject_failure()) out += failure_rows(*r.subject_failure());
  out += fmt::format("\nRerun: {}\n\n", markdown_code(rerun_command(report, r)));
  return out;
}

// What each cell checked (cases, refusals, the positions and widths reached),
// as plain text lines: every verdict says what it covered.
std::string coverage_table(const RunReport& report) {
  if (report.results.empty()) return "";
  std::string out = "## Coverage\n\n| property | subject | covered |\n|---|---|---|\n";
  for (const auto& r : report.results) {
    std::string covered = coverage_line(r.cases, r.discards, r.coverage);
    if (!r.coverage.shortfall.empty()) covered += " — " + r.coverage.shortfall;
    out += fmt::format("| {} | {} | {} |\n", markdown_code(r.property, true), markdown_code(clip(r.subject), true),
                       escape_markdown_cell(clip(covered)));
  }
  return out + "\n";
}

std::string budgets(const RunReport& report) {
  if (report.budgets.empty()) return "";
  std::string out = fmt::format("## Precision budgets\n\nThe largest position up to which each structural property "
                                "held within a fixed tolerance: {}.\n\n| property | subject | dtype | holds up to | "
                                "verdict |\n|---|---|---|---|---|\n",
                                escape_markdown_cell(report.budgets.front().target_formula));
  for (const auto& b : report.budgets) {
    out += fmt::format("| {} | {} | {} | {} | {} |\n", markdown_code(b.property, true),
                       markdown_code(clip(b.subject), true), escape_markdown_cell(b.dtype), b.holds_up_to,
                       escape_markdown_cell(budget_sentence(b)));
  }
  return out + "\n";
}

}  // namespace

std::string write_markdown(const RunReport& report) {
  std::string out = "# pecheck claims matrix\n\n";
  out += fmt::format("**{}**\n\n", escape_markdown_cell(total_line(report)));
  out += fmt::format("Seed {} · {} cases per property · positions up to {} · pecheck {}\n\n", report.seed,
                     report.cases, report.max_position, escape_markdown_cell(report.pecheck_version));
  out += fmt::format("Rerun: {}\n\n", markdown_code(rerun_command(report)));
  out += "Cells read *expected/observed*: H holds, V violated (a witness was found), U checked less than the gate, "
         "E error, S skipped.\n\n";
  if (!report.nothing_checked.empty()) {
    out += fmt::format("**Nothing was checked:** {}\n\n", escape_markdown_cell(report.nothing_checked));
  }
  for (const auto& s : report.subjects) {
    if (!s.no_cells.empty()) {
      out += fmt::format("**{} got no cell:** {}\n\n", markdown_code(clip(s.spec)), escape_markdown_cell(s.no_cells));
    }
  }
  for (const auto& t : claims_matrix(report)) {
    out += fmt::format("### {}\n\n| property |", escape_markdown_cell(t.family));
    for (const auto& s : t.subjects) out += fmt::format(" {} |", escape_markdown_cell(clip(column_label(report, s))));
    out += "\n|---|";
    for (size_t i = 0; i < t.subjects.size(); ++i) out += "---|";
    out += "\n";
    for (const auto& row : t.rows) {
      out += fmt::format("| {} |", markdown_code(row.property, true));
      for (const auto& c : row.cells) out += c ? fmt::format(" {} |", cell_md(*c)) : " · |";
      out += "\n";
    }
    out += "\n";
  }
  // Failures (with their minimal inputs), then budgets, then witnesses, while
  // the summary fits a GitHub job summary (1 MiB) whatever the subjects sent.
  size_t listed = 0, left_out = 0;
  std::string failures, witnesses;
  auto add = [&](std::string& into, const PropertyResult& r) {
    std::string section = details(report, r);
    if (listed >= kMaxSections || out.size() + failures.size() + witnesses.size() + section.size() > kMaxBytes) {
      ++left_out;
      return;
    }
    into += section;
    ++listed;
  };
  for (const auto& g : cause_first(report.results)) {  // cause first, its consequences under it
    add(failures, *g.cause);
    for (const auto* r : g.consequences) add(failures, *r);
  }
  out += start_failures(report);
  if (!failures.empty()) out += "## Failures\n\n" + failures;
  failures.clear();
  out += budgets(report);
  for (const auto& r : report.results) {
    if (r.status() == Status::passed && (r.violation() != nullptr)) add(witnesses, r);
  }
  out += coverage_table(report);
  if (!witnesses.empty()) out += "## Witnesses of expected violations\n\n<details><summary>show</summary>\n\n" + witnesses + "</details>\n";
  if (left_out > 0) out += fmt::format("\n{} more result(s) with details are in report.json.\n", left_out);
  return out;
}

}  // namespace pecheck
