#pragma once
// The claims matrix as a table model (rows properties, columns subjects),
// grouped by family so each table only has the subjects the family applies to.
// The console, Markdown and HTML writers render it.
#include <optional>
#include <string>
#include <vector>

#include "pecheck/result/result.h"

namespace pecheck {

struct MatrixCell {
  Expect expected;
  char observed;   // 'H' holds, 'V' violated, 'E' error, 'S' skipped
  Status status;
};

struct MatrixTable {
  std::string family;
  std::vector<std::string> subjects;            // specs, in run order
  struct Row {
    std::string property;
    std::vector<std::optional<MatrixCell>> cells;  // nullopt: not applicable
  };
  std::vector<Row> rows;
};

std::vector<MatrixTable> claims_matrix(const RunReport& report);

// "H/H", "V/V", "H/V" …: expected/observed, one letter each (E error, S skipped).
std::string cell_text(const MatrixCell& cell);
// "subject" without the builtin: prefix.
std::string short_subject(const std::string& spec);
// A subject's column header: the name it declares (its hello's "name"), else
// short_subject(spec); the short spec where two subjects of the run declare
// the same name (a script run at two dtypes), so no two columns read alike.
std::string column_label(const std::vector<SubjectSummary>& subjects, const std::string& spec);
std::string column_label(const RunReport& report, const std::string& spec);

struct Totals {
  int total = 0, passed = 0, failed = 0, error = 0, skipped = 0;
};
Totals totals(const std::vector<PropertyResult>& results);
// "57 cells: 57 passed, 0 failed, 0 errors, 0 skipped (exit 0)"
std::string total_line(const RunReport& report);

}  // namespace pecheck
