#pragma once
// One result of report.html as a card: the claim, the verdict, the
// counterexample laid out as small labelled tables with the offending entries
// highlighted, a subject failure's transcript, and the commands that rerun and
// replay it. Pure; every string that may come from a subject is escaped.
#include <map>
#include <string>
#include <string_view>

#include "pecheck/core/json.h"
#include "pecheck/result/result.h"

namespace pecheck {

std::string html_result_card(const RunReport& report, const PropertyResult& result, const std::string& anchor);

// The indices a counterexample's location names ("position", "column",
// "query", "key", …), by which the tables highlight an entry.
std::map<std::string, long long> location_marks(const Location& where);

// Which side of a comparison a value is: the case's inputs, or the compared
// result (observed, expected). A result's column is the result's own: on an
// input it names nothing (output column j of a rotation or a module is made
// of many input entries), so inputs highlight the rows, positions and mask
// entries the location names, and only results highlight a column.
enum class Side { input, result };

// A JSON value as an HTML table: scalars as text, number vectors as one
// indexed row, number matrices as an indexed grid (clipped to 24 × 24), a
// batch of matrices as one grid per sequence, objects as key/value tables.
// `key`, `where` and `side` choose the highlighted entries.
std::string html_value(const std::string& key, const json& value, const std::map<std::string, long long>& where,
                       Side side = Side::input);

}  // namespace pecheck
