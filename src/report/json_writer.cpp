#include "pecheck/report/json_writer.h"

#include <fmt/format.h>

#include <cctype>

#include "pecheck/core/digest.h"
#include "pecheck/core/interrupt.h"
#include "pecheck/core/shell_quote.h"

namespace pecheck {

json to_json(const PropertyInfo& info) {
  json expect_for = json::object();
  for (const auto& [scheme, e] : info.expect_for) expect_for[scheme] = name(e);
  return {{"id", info.id},           {"family", info.family},         {"claim", info.claim},
          {"sources", info.sources}, {"op", std::string(name(info.op))}, {"expect", name(info.expect)},
          {"expect_for", expect_for}, {"structural", info.structural}};
}

namespace {
json tolerance_json(const Tolerance& t) {
  json out{{"bound", number_to_json(t.bound)}, {"formula", t.formula}};
  // Which bound judged, and the worst case beside it, where a tight one was formed (issue 36).
  if (!t.judged_by.empty()) out["judged_by"] = t.judged_by;
  if (t.worst_case) out["worst_case"] = number_to_json(*t.worst_case);
  return out;
}
}  // namespace

json to_json(const PropertyResult& r) {
  json j = {{"property", r.property},
            {"subject", r.subject},
            {"expectation", name(r.expectation)},
            {"outcome", name(r.outcome)},
            {"status", name(r.status())},
            {"cases", r.cases},
            {"shrinks", r.shrinks},
            {"shrink_tries", r.shrink_tries},
            {"discards", r.discards},
            {"seconds", r.seconds},
            {"seed", r.seed},
            {"error", number_to_json(r.error())},
            {"tolerance", tolerance_json(r.tolerance())},
            {"message", r.message()},
            {"note", r.note()},
            {"reproduce", r.reproduce()}};
  if (r.shrink_cut_short) j["shrink_cut_short"] = true;
  if (!r.consequence_of.empty()) j["consequence_of"] = r.consequence_of;
  if (const auto* held = std::get_if<Held>(&r.outcome); held != nullptr && held->closest) {
    j["closest_check"] = held->closest->check.name;
  }
  if (const Counterexample* c = r.counterexample()) {
    j["counterexample"] = {{"inputs", c->inputs},
                           {"check", c->check},
                           {"observed", c->observed},
                           {"expected", c->expected},
                           {"where", c->where()},
                           {"location", to_json(c->location)},
                           {"note", c->note},
                           {"error", number_to_json(c->error)},
                           {"bound_kind", c->bound_kind == Bound::Kind::lower ? "lower" : "upper"},
                           {"tolerance", tolerance_json(c->tolerance)}};
    if (!c->diagnosis.empty()) j["counterexample"]["diagnosis"] = c->diagnosis;
  }
  j["coverage"] = to_json(r.coverage);
  if (r.regressions_replayed > 0) j["regressions_replayed"] = r.regressions_replayed;
  if (!r.regression_file().empty()) {
    j["from_regression_store"] = true;
    j["regression_file"] = r.regression_file();
  }
  if (const SubjectFailureInfo* f = r.subject_failure()) j["subject_failure"] = to_json(*f);
  // What the derived message is joined from, so report.json reads back into
  // the same result (report/json_reader.h: pecheck merge).
  if (r.discards > 0) j["discard_reason"] = r.discard_reason;
  if (r.regressions_unfit > 0) j["regressions_unfit"] = r.regressions_unfit;
  if (const auto* g = std::get_if<GaveUp>(&r.outcome)) j["error_kind"] = "gave_up", j["reason"] = g->reason;
  if (const auto* e = std::get_if<Errored>(&r.outcome)) j["error_kind"] = "harness", j["reason"] = e->message;
  if (r.subject_failure()) j["error_kind"] = "subject_failure";
  if (const auto* u = std::get_if<Uncovered>(&r.outcome)) j["reason"] = u->shortfall;
  return j;
}

json to_json(const Coverage& c) {
  json j = {{"not_checkable", c.not_checkable}, {"max_width", c.max_width}, {"position_gate", c.position_gate},
            {"refusals", c.refusals}};
  if (c.max_position) j["max_position"] = *c.max_position;
  if (c.max_refused_position) j["max_refused_position"] = *c.max_refused_position;
  if (c.max_uncheckable_position) j["max_uncheckable_position"] = *c.max_uncheckable_position;
  if (c.shortest_refused_length) j["shortest_refused_length"] = *c.shortest_refused_length;
  if (c.max_refused_width > 0) j["max_refused_width"] = c.max_refused_width;
  if (c.width_gate > 0) j["width_gate"] = c.width_gate;
  if (!c.not_checkable_reason.empty()) j["not_checkable_reason"] = c.not_checkable_reason;
  if (!c.shortfall.empty()) j["shortfall"] = c.shortfall;
  if (c.ladder_cases > 0) j["ladder_cases"] = c.ladder_cases;
  if (!c.axes.empty()) {
    json axes = json::object();
    for (const auto& [axis, a] : c.axes) {
      json e = {{"reached", a.reached}};
      if (a.gate > 0) e["gate"] = a.gate, e["set_by"] = a.set_by;
      if (a.refused > 0) e["refused"] = a.refused;
      axes[std::string(name(axis))] = std::move(e);
    }
    j["axes"] = std::move(axes);
  }
  return j;
}

json to_json(const SubjectFailureInfo& f) {
  return {{"message", f.message},   {"request", f.request},         {"received", f.received},
          {"stderr_tail", f.stderr_tail}, {"exit_status", f.exit_status}};
}

json to_json(const RunReport& report) {
  json summary = {{"total", 0}, {"passed", 0}, {"failed", 0}, {"error", 0}, {"skipped", 0}};
  json results = json::array();
  for (const auto& r : report.results) {
    summary["total"] = summary["total"].get<int>() + 1;
    summary[std::string(name(r.status()))] = summary[std::string(name(r.status()))].get<int>() + 1;
    json jr = to_json(r);
    jr["rerun"] = rerun_command(report, r);
    results.push_back(std::move(jr));
  }
  json subjects = json::array();
  for (const auto& s : report.subjects) {
    json subject = {{"spec", s.spec},     {"name", s.name},     {"dtype", s.dtype},
                    {"layout", s.layout}, {"scheme", s.scheme}, {"ops", s.ops}};
    if (s.start_failure) subject["start_failure"] = to_json(*s.start_failure);
    if (!s.no_cells.empty()) subject["no_cells"] = s.no_cells;
    if (!s.declared_violations.empty()) subject["declared_violations"] = s.declared_violations;
    subject["params"] = s.params;
    subject["params_digest"] = json_digest(s.params);
    subjects.push_back(std::move(subject));
  }
  json properties = json::array();
  for (const auto& p : report.properties) properties.push_back(to_json(p));
  json j = {{"format", "pecheck-report"},
          {"version", kReportSchemaVersion},
          {"pecheck_version", report.pecheck_version},
          {"command", report.command},
          {"seed", report.seed},
          {"cases", report.cases},
          {"max_size", report.max_size},
          {"max_position", report.max_position},
          {"max_width", report.max_width},
          {"tolerance_factor", report.tolerance_factor},
          {"started_at", report.started_at},
          {"seconds", report.seconds},
          {"exit_code", report.exit_code},
          {"summary", summary},
          {"subjects", subjects},
          {"properties", properties},
          {"results", results}};
  if (!report.run_id.empty()) j["run_id"] = report.run_id;
  if (report.history > 0) j["history"] = report.history;
  if (!report.regression_dir.empty()) j["regression_dir"] = report.regression_dir;
  if (!report.regression_problems.empty()) j["regression_problems"] = report.regression_problems;
  if (report.interrupted != 0) j["interrupted"] = interrupt_name(report.interrupted);
  if (!report.rerun.empty()) j["rerun_command"] = report.rerun;
  if (!report.cell_options.empty()) j["cell_options"] = report.cell_options;
  if (report.time_budget > 0) j["time_budget"] = {{"seconds", report.time_budget}, {"spent", report.time_budget_spent}};
  if (!report.nothing_checked.empty()) j["nothing_checked"] = report.nothing_checked;
  j["program"] = report.program;
  j["error_model"] = {{"overrides", report.tolerance_overrides}, {"absolute", report.tolerance_absolute}};
  if (!report.expectations.empty()) {
    json configured = json::object();
    for (const auto& [id, e] : report.expectations) configured[id] = name(e);
    j["expectations"] = std::move(configured);
  }
  if (report.shard) {
    j["shard"] = {{"index", report.shard->index},
                  {"total", report.shard->total},
                  {"cells", report.shard->cells},
                  {"total_cells", report.shard->total_cells}};
  }
  if (!report.budgets.empty()) {
    json budgets = json::array();
    for (const auto& b : report.budgets) budgets.push_back(to_json(b));
    j["budgets"] = std::move(budgets);
  }
  return j;
}

std::string write_json(const RunReport& report) {
  return to_json(report).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string counterexample_file_name(const PropertyResult& r) {
  std::string subject;
  for (char c : r.subject) {
    const bool safe = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    subject += safe ? c : '_';
  }
  if (subject.size() > 80) subject.resize(80);
  return r.property + "--" + subject + ".json";
}

std::string rerun_command(const RunReport& report) { return report.rerun.empty() ? report.command : report.rerun; }

std::string rerun_command(const RunReport& report, const PropertyResult& r) {
  if (!report.rerun.empty()) return report.rerun;
  if (r.subject_failure() != nullptr && !report.command.empty()) return report.command;
  // The options that change what is drawn: the same cases, drawn again.
  std::string sizes;
  if (report.max_width > 0) sizes += fmt::format(" --max-width {}", report.max_width);
  if (report.history > 0) sizes += fmt::format(" --history {}", report.history);
  // ... and those that change how a case is judged.
  if (report.tolerance_factor != kDefaultToleranceFactor) {
    sizes += fmt::format(" --tolerance-factor {}", report.tolerance_factor);
  }
  return fmt::format("{} run --subject {} --properties {} --seed {} --cases {} --max-position {}{}{}",
                     shell_quote(report.program), shell_quote(r.subject), shell_quote(r.property), report.seed, report.cases,
                     report.max_position, sizes, report.cell_options);
}

json counterexample_json(const RunReport& report, const PropertyResult& r) {
  json j = to_json(r);
  j["format"] = "pecheck-counterexample";
  j["version"] = kReportSchemaVersion;
  j["pecheck_version"] = report.pecheck_version;
  j["run_seed"] = report.seed;
  if (!report.run_id.empty()) j["run_id"] = report.run_id;
  j["cases_option"] = report.cases;
  j["max_position"] = report.max_position;
  j["tolerance_factor"] = report.tolerance_factor;
  j["rerun"] = rerun_command(report, r);
  // Everything replay needs travels in the file: the whole error model, and
  // the dtype the tolerances were derived from.
  j["error_model"] = {{"factor", report.tolerance_factor},
                      {"overrides", report.tolerance_overrides},
                      {"absolute", report.tolerance_absolute}};
  for (const auto& s : report.subjects) {
    if (s.spec == r.subject) j["error_model"]["dtype"] = s.dtype;
  }
  const std::string dir = report.report_dir.empty() ? "" : report.report_dir + "/";
  j["replay"] = fmt::format("{} replay {}", shell_quote(report.program),
                            shell_quote(dir + "counterexamples/" + counterexample_file_name(r)));
  for (const auto& p : report.properties) {
    if (p.id == r.property) j["claim"] = p.claim;
  }
  return j;
}

}  // namespace pecheck
