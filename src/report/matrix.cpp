#include "pecheck/report/matrix.h"

#include <fmt/format.h>

#include <algorithm>

#include "pecheck/core/interrupt.h"
#include "pecheck/core/subject_spec.h"

namespace pecheck {

namespace {
char outcome_letter(const Outcome& o) {
  const std::string_view n = name(o);
  return n == "holds" ? 'H' : n == "violated" ? 'V' : n == "uncovered" ? 'U' : n == "error" ? 'E' : 'S';
}
}  // namespace

std::vector<MatrixTable> claims_matrix(const RunReport& report) {
  std::vector<MatrixTable> tables;
  for (const auto& p : report.properties) {
    auto t = std::find_if(tables.begin(), tables.end(), [&](const MatrixTable& m) { return m.family == p.family; });
    if (t == tables.end()) {
      tables.push_back({p.family, {}, {}});
      t = tables.end() - 1;
    }
    t->rows.push_back({p.id, {}});
  }
  for (auto& t : tables) {
    for (const auto& s : report.subjects) {
      const bool used = std::any_of(report.results.begin(), report.results.end(), [&](const PropertyResult& r) {
        return r.subject == s.spec &&
               std::any_of(t.rows.begin(), t.rows.end(), [&](const auto& row) { return row.property == r.property; });
      });
      if (used) t.subjects.push_back(s.spec);
    }
    for (auto& row : t.rows) {
      for (const auto& spec : t.subjects) {
        auto r = std::find_if(report.results.begin(), report.results.end(), [&](const PropertyResult& x) {
          return x.property == row.property && x.subject == spec;
        });
        if (r == report.results.end()) row.cells.emplace_back();
        else row.cells.push_back(MatrixCell{r->expectation, outcome_letter(r->outcome), r->status()});
      }
    }
  }
  std::erase_if(tables, [](const MatrixTable& t) { return t.subjects.empty(); });
  return tables;
}

std::string cell_text(const MatrixCell& c) {
  return fmt::format("{}/{}", c.expected == Expect::holds ? 'H' : 'V', c.observed);
}

std::string short_subject(const std::string& spec) {
  const auto parsed = try_parse_subject_spec(spec);
  return parsed && parsed->kind == SubjectKind::builtin ? parsed->payload : spec;
}

std::string column_label(const std::vector<SubjectSummary>& subjects, const std::string& spec) {
  const SubjectSummary* own = nullptr;
  for (const auto& s : subjects) {
    if (s.spec == spec) own = &s;
  }
  if (own == nullptr || own->name.empty()) return short_subject(spec);
  for (const auto& s : subjects) {
    if (s.spec != spec && s.name == own->name) return short_subject(spec);
  }
  return own->name;
}

std::string column_label(const RunReport& report, const std::string& spec) {
  return column_label(report.subjects, spec);
}

Totals totals(const std::vector<PropertyResult>& results) {
  Totals t;
  for (const auto& r : results) {
    ++t.total;
    switch (r.status()) {
      case Status::passed: ++t.passed; break;
      case Status::failed: ++t.failed; break;
      case Status::error: ++t.error; break;
      case Status::skipped: ++t.skipped; break;
    }
  }
  return t;
}

std::string total_line(const RunReport& report) {
  const Totals t = totals(report.results);
  const auto unstarted = std::count_if(report.subjects.begin(), report.subjects.end(),
                                       [](const SubjectSummary& s) { return s.start_failure.has_value(); });
  return fmt::format("{} cells: {} passed, {} failed, {} errors, {} skipped{}{}{} in {:.2f} s (exit {})", t.total,
                     t.passed, t.failed, t.error, t.skipped,
                     unstarted > 0 ? fmt::format("; {} subject(s) could not be started", unstarted) : "",
                     report.interrupted != 0
                         ? fmt::format("; INTERRUPTED by {}: the cells not run are skipped", interrupt_name(report.interrupted))
                         : "",
                     report.time_budget_spent
                         ? fmt::format("; the TIME BUDGET ({:g} s) ran out: the cells not run are skipped, and the run "
                                       "fails",
                                       report.time_budget)
                         : "",
                     report.seconds, report.exit_code);
}

}  // namespace pecheck
