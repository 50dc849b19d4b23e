#include "report/html_card.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <set>

#include "pecheck/core/escape.h"
#include "pecheck/report/json_writer.h"
#include "pecheck/core/shell_quote.h"

namespace pecheck {

namespace {

constexpr size_t kMaxCells = 24;          // rows and columns shown of a vector or matrix
constexpr size_t kMaxTextChars = 4000;    // of any one string from a subject

std::string text(std::string_view s) {
  if (s.size() <= kMaxTextChars) return escape_xml(s);
  return escape_xml(s.substr(0, kMaxTextChars)) + " …";
}

std::string number_text(const json& v) {
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  if (v.is_number_float()) return fmt::format("{:.6g}", v.get<double>());
  if (v.is_string()) return text(v.get<std::string>());  // "NaN", "Infinity", or words
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_null()) return "—";
  return text(v.dump(-1, ' ', false, json::error_handler_t::replace));
}

bool is_number_like(const json& v) {
  return v.is_number() || v.is_boolean() ||
         (v.is_string() && (v == "NaN" || v == "Infinity" || v == "-Infinity"));
}
bool is_vector(const json& v) {
  if (!v.is_array() || v.empty()) return false;
  for (const auto& x : v) {
    if (!is_number_like(x)) return false;
  }
  return true;
}
bool is_matrix(const json& v) {
  if (!v.is_array() || v.empty()) return false;
  for (const auto& row : v) {
    if (!is_vector(row)) return false;
  }
  return true;
}

std::optional<long long> find(const std::map<std::string, long long>& w, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    if (auto it = w.find(k); it != w.end()) return it->second;
  }
  return std::nullopt;
}

bool equals(const json& v, long long n) {
  return (v.is_number_integer() || v.is_number_unsigned()) && v.get<long long>() == n;
}

std::string singular(const std::string& key) {
  return key.size() > 1 && key.back() == 's' ? key.substr(0, key.size() - 1) : key;
}

std::string vector_table(const std::string& key, const json& v, const std::map<std::string, long long>& w, Side side) {
  // A list of positions (or offsets…) is highlighted where its value is the
  // one the measurement names; a result vector at the component it names.
  const auto value_mark = find(w, {singular(key).c_str()});
  const auto index_mark =
      value_mark || side == Side::input ? std::nullopt : find(w, {"component", "index", "column"});
  std::string head = "<tr><th></th>", body = "<tr><th>" + escape_xml(key) + "</th>";
  for (size_t i = 0; i < v.size() && i < kMaxCells; ++i) {
    const bool hl = (value_mark && equals(v[i], *value_mark)) ||
                    (index_mark && static_cast<long long>(i) == *index_mark);
    head += fmt::format("<th>{}</th>", i);
    body += fmt::format("<td{}>{}</td>", hl ? R"( class="hl")" : "", number_text(v[i]));
  }
  if (v.size() > kMaxCells) {
    head += "<th>…</th>";
    body += fmt::format("<td>… {} more</td>", v.size() - kMaxCells);
  }
  return R"(<table class="vec">)" + head + "</tr>" + body + "</tr></table>";
}

// The row of matrix `key` the measurement names: any matrix's for "row N" or
// "token N"; the query side's (q, x, a mask's rows) for "query N"; the key
// side's (k, v) for "key N", which is a mask's column.
std::optional<long long> row_mark_for(const std::string& key, const std::map<std::string, long long>& w) {
  if (auto r = find(w, {"row", "token"})) return r;
  static const std::set<std::string> queries = {"q", "x", "query", "queries", "allowed", "mask", "logits"};
  static const std::set<std::string> keys = {"k", "v", "key", "keys", "value", "values"};
  if (queries.count(key)) return find(w, {"query"});
  if (keys.count(key)) return find(w, {"key"});
  return std::nullopt;
}

std::string matrix_table(const std::string& key, const json& m, const std::map<std::string, long long>& w,
                         Side side) {
  const auto row_mark = row_mark_for(key, w);
  // A column names an entry of the compared result: highlighted on a result
  // (observed, expected); on an input only a mask's key column is an entry
  // the location names.
  const bool mask = key == "allowed" || key == "mask" || key == "logits";
  const bool generic_rows = find(w, {"row", "token"}).has_value();
  const auto col_mark = mask                                 ? find(w, {"key"})
                        : side == Side::result && generic_rows ? find(w, {"column", "component", "dim", "feature"})
                                                               : std::nullopt;
  const size_t cols = m[0].size();
  std::string out = fmt::format(R"(<table class="mat"><caption>{} <span class="shape">{}×{}</span></caption><tr><th></th>)",
                                escape_xml(key), m.size(), cols);
  for (size_t c = 0; c < cols && c < kMaxCells; ++c) out += fmt::format("<th>{}</th>", c);
  if (cols > kMaxCells) out += "<th>…</th>";
  out += "</tr>";
  for (size_t r = 0; r < m.size() && r < kMaxCells; ++r) {
    const bool row_hl = row_mark && static_cast<long long>(r) == *row_mark;
    out += fmt::format("<tr{}><th>{}</th>", row_hl ? R"( class="hlrow")" : "", r);
    for (size_t c = 0; c < m[r].size() && c < kMaxCells; ++c) {
      const bool hl = row_hl && col_mark && static_cast<long long>(c) == *col_mark;
      out += fmt::format("<td{}>{}</td>", hl ? R"( class="hl")" : "", number_text(m[r][c]));
    }
    if (m[r].size() > kMaxCells) out += "<td>…</td>";
    out += "</tr>";
  }
  if (m.size() > kMaxCells) out += fmt::format(R"(<tr><th>…</th><td colspan="{}">… {} more rows</td></tr>)",
                                               std::min(cols, kMaxCells), m.size() - kMaxCells);
  return out + "</table>";
}

}  // namespace

std::map<std::string, long long> location_marks(const Location& w) {
  std::map<std::string, long long> out;
  auto put = [&out](const char* key, const auto& value) {
    if (value) out[key] = static_cast<long long>(*value);
  };
  put("row", w.row);
  put("column", w.column);
  put("position", w.position);
  put("query", w.query);
  put("key", w.key);
  put("head", w.head);
  put("token", w.token);
  put("pair", w.pair);
  put("component", w.component);
  put("batch", w.batch);
  return out;
}

// A batch of sequences (B matrices): one grid each, the marks applying to the sequence the location names.
bool is_batch(const json& v) {
  if (!v.is_array() || v.empty()) return false;
  for (const auto& m : v) {
    if (!is_matrix(m)) return false;
  }
  return true;
}

std::string html_value(const std::string& key, const json& v, const std::map<std::string, long long>& w, Side side) {
  if (is_matrix(v)) return matrix_table(key, v, w, side);
  if (is_vector(v)) return vector_table(key, v, w, side);
  if (is_batch(v)) {
    const auto batch = find(w, {"batch"});
    std::string out;
    for (size_t b = 0; b < v.size() && b < kMaxCells; ++b) {
      auto marks = w;
      if (batch && static_cast<long long>(b) != *batch) {
        marks.erase("row");
        marks.erase("token");
        marks.erase("query");
        marks.erase("key");
      }
      out += matrix_table(fmt::format("{}[{}]", key, b), v[b], marks, side);
    }
    return out;
  }
  if (v.is_object()) {
    // Scalars first, in one key/value table; then each vector and matrix.
    std::string scalars, blocks;
    for (const auto& [k, x] : v.items()) {
      if (x.is_object() || is_vector(x) || is_matrix(x) || is_batch(x)) {
        blocks += html_value(k, x, w, side);
        continue;
      }
      const auto mark = find(w, {k.c_str(), singular(k).c_str()});
      const bool hl = mark && equals(x, *mark);
      scalars += fmt::format("<tr{}><th>{}</th><td>{}</td></tr>", hl ? R"( class="hl")" : "", escape_xml(k),
                             number_text(x));
    }
    return (scalars.empty() ? "" : R"(<table class="kv">)" + scalars + "</table>") + blocks;
  }
  return fmt::format(R"(<table class="kv"><tr><th>{}</th><td>{}</td></tr></table>)", escape_xml(key), number_text(v));
}

std::string html_result_card(const RunReport& report, const PropertyResult& r, const std::string& anchor) {
  const std::string status(name(r.status()));
  std::string out = fmt::format(R"(<article class="card {}" id="{}">)", status, escape_xml(anchor));
  out += fmt::format(R"(<h3><code>{}</code> × <code>{}</code> <span class="badge {}">expected {}, observed {}</span></h3>)",
                     text(r.property), text(r.subject), status, name(r.expectation), name(r.outcome));
  for (const auto& p : report.properties) {
    if (p.id == r.property) out += fmt::format(R"(<p class="claim">Claim: {}</p>)", text(p.claim));
  }
  out += R"(<table class="kv">)";
  auto row = [&out](std::string_view k, const std::string& v) {
    out += fmt::format("<tr><th>{}</th><td>{}</td></tr>", k, v);
  };
  if (!r.message().empty()) row("message", text(r.message()));
  if (r.counterexample()) {
    const auto& c = *r.counterexample();
    row("error / bound", fmt::format("{:.4g} {} {:.4g}", c.error, c.error <= c.tolerance.bound ? "≤" : "&gt;",
                                     c.tolerance.bound));
    row("tolerance", text(c.tolerance.formula));
    if (!c.diagnosis.empty()) row("diagnosis", text(c.diagnosis));
  } else if (r.held()) {
    row("worst error / bound", fmt::format("{:.4g} ≤ {:.4g}", r.error(), r.tolerance().bound));
  }
  row("covered", text(coverage_line(r.cases, r.discards, r.coverage)));
  if (!r.coverage.shortfall.empty()) row("short of the gate", text(r.coverage.shortfall));
  for (const auto& [reason, count] : r.coverage.refusals) row("refused", fmt::format("{} × {}", count, text(reason)));
  row("shrinks", fmt::format("{} shrinks ({} tried)", r.shrinks, r.shrink_tries));
  if (!r.regression_file().empty()) {
    row("regression store", fmt::format("found by the stored entry <code>{}</code>, replayed before any new case",
                                        text(r.regression_file())));
  } else if (r.regressions_replayed > 0) {
    row("regression store", fmt::format("{} stored case(s) replayed first; all hold now", r.regressions_replayed));
  }
  out += "</table>";
  if (r.counterexample()) {
    const auto& c = *r.counterexample();
    const auto marks = location_marks(c.location);
    out += R"(<h4>Inputs</h4><div class="inputs">)" + html_value("inputs", c.inputs, marks) + "</div>";
    out += fmt::format(R"(<h4>At the largest error ({}): {}</h4>)", text(c.check), text(c.where()));
    out += R"(<div class="inputs at">)" + html_value("observed", c.observed, marks, Side::result);
    out += html_value("expected", c.expected, marks, Side::result) + "</div>";
    if (!c.note.empty()) out += fmt::format(R"(<p class="note">Compared: {}</p>)", text(c.note));
  }
  if (r.subject_failure()) {
    const auto& f = *r.subject_failure();
    out += R"(<h4>Subject failure</h4><table class="kv">)";
    row("what", text(f.message));
    row("request", "<code>" + text(f.request) + "</code>");
    row("received", "<code>" + text(f.received) + "</code>");
    row("exit", text(f.exit_status));
    out += "</table>";
    // Open: what the subject said as it broke is the first thing to read.
    if (!f.stderr_tail.empty()) out += "<details open><summary>stderr tail</summary><pre>" + text(f.stderr_tail) + "</pre></details>";
  }
  out += R"(<p class="cmd">)";
  if (r.counterexample()) {
    const std::string dir = report.report_dir.empty() ? "" : report.report_dir + "/";
    out += fmt::format("Replay: <code>{} replay {}</code><br>", text(shell_quote(report.program)),
                       text(shell_quote(dir + "counterexamples/" + counterexample_file_name(r))));
  }
  out += fmt::format("Rerun: <code>{}</code>", text(rerun_command(report, r)));
  if (!r.reproduce().empty()) out += fmt::format("<br>Reproduce: <code>--reproduce {}</code>", text(r.reproduce()));
  return out + "</p></article>\n";
}

}  // namespace pecheck
