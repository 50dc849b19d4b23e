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

// A JSON value as an HTML table: scalars as text, number vectors as one
// indexed row, number matrices as an indexed grid (clipped to 24 × 24), objects
// as key/value tables. `key` and `where` choose the highlighted entries.
std::string html_value(const std::string& key, const json& value, const std::map<std::string, long long>& where);

}  // namespace pecheck
