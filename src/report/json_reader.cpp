#include "pecheck/report/json_reader.h"

#include <fmt/format.h>

#include <csignal>
#include <fstream>
#include <sstream>

#include "pecheck/report/json_writer.h"

namespace pecheck {

namespace {

const json& field(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) throw ReportReadError(fmt::format("missing field '{}'", key));
  return j.at(key);
}

template <class T>
T get(const json& j, const char* key) {
  try {
    return field(j, key).get<T>();
  } catch (const json::exception& e) {
    throw ReportReadError(fmt::format("field '{}': {}", key, e.what()));
  }
}

template <class T>
T get_or(const json& j, const char* key, T fallback) {
  return j.is_object() && j.contains(key) ? get<T>(j, key) : fallback;
}

double number(const json& j, const char* key) {
  try {
    return number_from_json(field(j, key));
  } catch (const std::invalid_argument& e) {
    throw ReportReadError(fmt::format("field '{}': {}", key, e.what()));
  }
}

Expect expect_from(const std::string& text) {
  if (text == "holds") return Expect::holds;
  if (text == "violated") return Expect::violated;
  throw ReportReadError(fmt::format("unknown expectation '{}'", text));
}

Tolerance tolerance_from(const json& j) { return {number(j, "bound"), get<std::string>(j, "formula")}; }

PropertyInfo property_from(const json& j) {
  PropertyInfo p;
  p.id = get<std::string>(j, "id");
  p.family = get<std::string>(j, "family");
  p.claim = get<std::string>(j, "claim");
  p.sources = get<std::string>(j, "sources");
  const auto op = parse_op(get<std::string>(j, "op"));
  if (!op) throw ReportReadError(fmt::format("property {}: unknown op '{}'", p.id, get<std::string>(j, "op")));
  p.op = *op;
  p.expect = expect_from(get<std::string>(j, "expect"));
  for (const auto& [scheme, e] : field(j, "expect_for").items()) p.expect_for[scheme] = expect_from(e.get<std::string>());
  p.structural = get<bool>(j, "structural");
  return p;
}

SubjectFailureInfo failure_from(const json& j) {
  return {get<std::string>(j, "message"), get<std::string>(j, "request"), get<std::string>(j, "received"),
          get<std::string>(j, "stderr_tail"), get<std::string>(j, "exit_status")};
}

Coverage coverage_from(const json& j) {
  Coverage c;
  c.not_checkable = get<int>(j, "not_checkable");
  c.max_width = get<int>(j, "max_width");
  c.position_gate = get<Position>(j, "position_gate");
  c.refusals = get<std::map<std::string, int>>(j, "refusals");
  if (j.contains("max_position")) c.max_position = get<Position>(j, "max_position");
  if (j.contains("max_refused_position")) c.max_refused_position = get<Position>(j, "max_refused_position");
  if (j.contains("max_uncheckable_position")) c.max_uncheckable_position = get<Position>(j, "max_uncheckable_position");
  c.max_refused_width = get_or<int>(j, "max_refused_width", 0);
  c.width_gate = get_or<int>(j, "width_gate", 0);
  c.not_checkable_reason = get_or<std::string>(j, "not_checkable_reason", "");
  c.shortfall = get_or<std::string>(j, "shortfall", "");
  return c;
}

Counterexample counterexample_from(const json& j) {
  Counterexample c;
  c.inputs = field(j, "inputs");
  c.check = get<std::string>(j, "check");
  c.observed = field(j, "observed");
  c.expected = field(j, "expected");
  c.location = location_from_json(field(j, "location"));
  c.note = get<std::string>(j, "note");
  c.error = number(j, "error");
  c.bound_kind = get<std::string>(j, "bound_kind") == "lower" ? Bound::Kind::lower : Bound::Kind::upper;
  c.tolerance = tolerance_from(field(j, "tolerance"));
  c.diagnosis = get_or<std::string>(j, "diagnosis", "");
  return c;
}

Outcome outcome_from(const json& j) {
  const auto outcome = get<std::string>(j, "outcome");
  if (outcome == "holds") {
    Held held;
    if (j.contains("closest_check")) {
      JudgedCheck closest;
      closest.check.name = get<std::string>(j, "closest_check");
      closest.check.error = number(j, "error");
      closest.check.note = get<std::string>(j, "note");
      closest.tolerance = tolerance_from(field(j, "tolerance"));
      held.closest = std::move(closest);
    }
    return held;
  }
  if (outcome == "violated") {
    return Violated{counterexample_from(field(j, "counterexample")), get<std::string>(j, "reproduce"),
                    get_or<std::string>(j, "regression_file", "")};
  }
  if (outcome == "uncovered") return Uncovered{get<std::string>(j, "reason")};
  if (outcome == "skipped") return NotRun{get<std::string>(j, "message")};
  if (outcome == "error") {
    const auto kind = get<std::string>(j, "error_kind");
    if (kind == "subject_failure") return SubjectFailed{failure_from(field(j, "subject_failure"))};
    if (kind == "gave_up") return GaveUp{get<std::string>(j, "reason")};
    if (kind == "harness") return Errored{get<std::string>(j, "reason")};
    throw ReportReadError(fmt::format("unknown error_kind '{}'", kind));
  }
  throw ReportReadError(fmt::format("unknown outcome '{}'", outcome));
}

}  // namespace

PropertyResult result_from_json(const json& j) {
  PropertyResult r;
  r.property = get<std::string>(j, "property");
  r.subject = get<std::string>(j, "subject");
  try {
    r.expectation = expect_from(get<std::string>(j, "expectation"));
    r.seed = get<std::uint64_t>(j, "seed");
    r.seconds = get<double>(j, "seconds");
    r.cases = get<int>(j, "cases");
    r.shrinks = get<int>(j, "shrinks");
    r.shrink_tries = get<int>(j, "shrink_tries");
    r.discards = get<int>(j, "discards");
    r.discard_reason = get_or<std::string>(j, "discard_reason", "");
    r.regressions_replayed = get_or<int>(j, "regressions_replayed", 0);
    r.regressions_unfit = get_or<int>(j, "regressions_unfit", 0);
    r.coverage = coverage_from(field(j, "coverage"));
    r.outcome = outcome_from(j);
  } catch (const ReportReadError& e) {
    throw ReportReadError(fmt::format("result {} × {}: {}", r.property, r.subject, e.what()));
  }
  return r;
}

RunReport report_from_json(const json& j) {
  if (!j.is_object() || j.value("format", "") != "pecheck-report") {
    throw ReportReadError("not a pecheck report (\"format\" is not \"pecheck-report\")");
  }
  if (get<int>(j, "version") != kReportSchemaVersion) {
    throw ReportReadError(fmt::format("report schema version {}, this pecheck reads version {}", get<int>(j, "version"),
                                      kReportSchemaVersion));
  }
  RunReport r;
  r.pecheck_version = get<std::string>(j, "pecheck_version");
  r.program = get_or<std::string>(j, "program", "pecheck");
  r.command = get<std::string>(j, "command");
  r.seed = get<std::uint64_t>(j, "seed");
  r.cases = get<int>(j, "cases");
  r.max_size = get_or<int>(j, "max_size", 0);
  r.max_position = get<std::int64_t>(j, "max_position");
  r.max_width = get_or<int>(j, "max_width", 0);
  r.tolerance_factor = get<double>(j, "tolerance_factor");
  r.started_at = get<std::string>(j, "started_at");
  r.seconds = get<double>(j, "seconds");
  r.exit_code = get<int>(j, "exit_code");
  for (const auto& p : field(j, "properties")) r.properties.push_back(property_from(p));
  for (const auto& s : field(j, "subjects")) {
    SubjectSummary summary{get<std::string>(s, "spec"),   get<std::string>(s, "name"),
                           get<std::string>(s, "dtype"),  get<std::string>(s, "layout"),
                           get<std::string>(s, "scheme"), get<std::vector<std::string>>(s, "ops"),
                           std::nullopt,                  get_or<std::string>(s, "no_cells", "")};
    if (s.contains("start_failure")) summary.start_failure = failure_from(s.at("start_failure"));
    r.subjects.push_back(std::move(summary));
  }
  for (const auto& result : field(j, "results")) r.results.push_back(result_from_json(result));
  r.regression_dir = get_or<std::string>(j, "regression_dir", "");
  r.regression_problems = get_or<std::vector<std::string>>(j, "regression_problems", {});
  if (const std::string sig = get_or<std::string>(j, "interrupted", ""); !sig.empty()) {
    r.interrupted = sig == "SIGINT" ? SIGINT : sig == "SIGTERM" ? SIGTERM : sig == "SIGHUP" ? SIGHUP : 0;
  }
  r.rerun = get_or<std::string>(j, "rerun_command", "");
  if (j.contains("time_budget") && j.at("time_budget").is_object()) {
    r.time_budget = get_or<double>(j.at("time_budget"), "seconds", 0.0);
    r.time_budget_spent = get_or<bool>(j.at("time_budget"), "spent", false);
  }
  r.nothing_checked = get_or<std::string>(j, "nothing_checked", "");
  if (j.contains("error_model")) {
    const json& model = j.at("error_model");
    r.tolerance_overrides = get_or<std::map<std::string, double>>(model, "overrides", {});
    r.tolerance_absolute = get_or<std::map<std::string, double>>(model, "absolute", {});
  }
  if (j.contains("shard")) {
    const json& s = j.at("shard");
    r.shard = ShardInfo{get<int>(s, "index"), get<int>(s, "total"), get<int>(s, "cells"), get<int>(s, "total_cells")};
  }
  if (j.contains("budgets")) {
    for (const auto& b : j.at("budgets")) {
      PrecisionBudget budget;
      budget.property = get<std::string>(b, "property");
      budget.subject = get<std::string>(b, "subject");
      budget.dtype = get<std::string>(b, "dtype");
      budget.target = number(b, "target");
      budget.target_formula = get<std::string>(b, "target_formula");
      budget.holds_up_to = get<std::int64_t>(b, "holds_up_to");
      budget.fails_from = get<std::int64_t>(b, "fails_from");
      budget.search_limit = get<std::int64_t>(b, "search_limit");
      budget.cases_per_step = get<int>(b, "cases_per_step");
      budget.steps = get<int>(b, "steps");
      budget.seconds = get_or<double>(b, "seconds", 0);
      budget.stopped_early = get_or<bool>(b, "stopped_early", false);
      budget.witness = b.value("witness", json());
      budget.witness_error = b.contains("witness_error") ? number(b, "witness_error") : 0;
      budget.witness_where = get_or<std::string>(b, "witness_where", "");
      budget.witness_position = get_or<std::int64_t>(b, "witness_position", 0);
      budget.note = get_or<std::string>(b, "note", "");
      r.budgets.push_back(std::move(budget));
    }
  }
  return r;
}

RunReport read_report(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw ReportReadError(fmt::format("cannot read {}", path.string()));
  std::stringstream text;
  text << in.rdbuf();
  try {
    return report_from_json(json::parse(text.str()));
  } catch (const json::parse_error& e) {
    throw ReportReadError(fmt::format("{}: not JSON: {}", path.string(), e.what()));
  } catch (const ReportReadError& e) {
    throw ReportReadError(fmt::format("{}: {}", path.string(), e.what()));
  }
}

}  // namespace pecheck
