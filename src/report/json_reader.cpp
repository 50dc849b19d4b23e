#include "pecheck/report/json_reader.h"

#include <fmt/format.h>

#include <csignal>
#include <limits>
#include <utility>

#include "pecheck/core/bounded_file.h"
#include "pecheck/core/digest.h"
#include "pecheck/core/strict_json.h"
#include "pecheck/report/json_writer.h"
#include "report/report_check.h"

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

// A whole number in [lo, hi] (lo ≥ 0), the schema's range: get<int> alone
// would truncate 1.5 and wrap 2^40 or -1 into a count. `what` names it.
template <class T = int>
T whole_value(const json& v, std::string_view what, T lo = 0, T hi = std::numeric_limits<T>::max()) {
  bool ok = false;
  if (v.is_number_integer()) {
    // Non-negative integers compare as unsigned: `hi` may be beyond int64.
    const bool negative = !v.is_number_unsigned() && v.get<std::int64_t>() < 0;
    const auto u = negative ? 0 : v.get<std::uint64_t>();
    ok = !negative && u >= static_cast<std::uint64_t>(lo) && u <= static_cast<std::uint64_t>(hi);
  }
  if (!ok) {
    throw ReportReadError(fmt::format("{} must be a whole number from {} to {}, got {}", what, lo, hi,
                                      v.dump(-1, ' ', true, json::error_handler_t::replace).substr(0, 40)));
  }
  return v.get<T>();
}

template <class T = int>
T whole(const json& j, const char* key, T lo = 0, T hi = std::numeric_limits<T>::max()) {
  return whole_value<T>(field(j, key), fmt::format("field '{}'", key), lo, hi);
}

template <class T = int>
T whole_or(const json& j, const char* key, T fallback, T lo = 0) {
  return j.is_object() && j.contains(key) ? whole<T>(j, key, lo) : fallback;
}

double number(const json& j, const char* key) {
  try {
    return number_from_json(field(j, key));
  } catch (const std::invalid_argument& e) {
    throw ReportReadError(fmt::format("field '{}': {}", key, e.what()));
  }
}

// Seconds: a finite number, not negative.
double seconds(const json& j, const char* key) {
  const json& v = field(j, key);
  if (!v.is_number() || !(v.get<double>() >= 0) || v.get<double>() > 1e12) {
    throw ReportReadError(fmt::format("field '{}' must be a number of seconds (≥ 0)", key));
  }
  return v.get<double>();
}

Expect expect_from(const std::string& text) {
  if (text == "holds") return Expect::holds;
  if (text == "violated") return Expect::violated;
  throw ReportReadError(fmt::format("unknown expectation '{}'", text.substr(0, 80)));
}

Tolerance tolerance_from(const json& j) {
  Tolerance t{number(j, "bound"), get<std::string>(j, "formula")};
  t.judged_by = get_or<std::string>(j, "judged_by", "");
  if (j.contains("worst_case")) t.worst_case = number(j, "worst_case");
  return t;
}

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
  const json& expect_for = field(j, "expect_for");
  if (!expect_for.is_object()) throw ReportReadError("field 'expect_for' must be an object");
  for (const auto& [scheme, e] : expect_for.items()) {
    if (!e.is_string()) throw ReportReadError(fmt::format("property {}: expect_for values must be strings", p.id));
    p.expect_for[scheme] = expect_from(e.get<std::string>());
  }
  p.structural = get<bool>(j, "structural");
  return p;
}

SubjectFailureInfo failure_from(const json& j) {
  return {get<std::string>(j, "message"), get<std::string>(j, "request"), get<std::string>(j, "received"),
          get<std::string>(j, "stderr_tail"), get<std::string>(j, "exit_status")};
}

Coverage coverage_from(const json& j) {
  Coverage c;
  c.not_checkable = whole(j, "not_checkable");
  c.max_width = whole(j, "max_width");
  c.position_gate = whole<Position>(j, "position_gate");
  const json& refusals = field(j, "refusals");
  if (!refusals.is_object()) throw ReportReadError("field 'refusals' must be an object");
  for (const auto& [reason, count] : refusals.items()) c.refusals[reason] = whole_value(count, "a refusal count", 1);
  if (j.contains("max_position")) c.max_position = whole<Position>(j, "max_position");
  if (j.contains("max_refused_position")) c.max_refused_position = whole<Position>(j, "max_refused_position");
  if (j.contains("max_uncheckable_position")) {
    c.max_uncheckable_position = whole<Position>(j, "max_uncheckable_position");
  }
  if (j.contains("shortest_refused_length")) {
    c.shortest_refused_length = whole<Position>(j, "shortest_refused_length", 1);
  }
  c.max_refused_width = whole_or(j, "max_refused_width", 0);
  c.width_gate = whole_or(j, "width_gate", 0);
  c.not_checkable_reason = get_or<std::string>(j, "not_checkable_reason", "");
  c.shortfall = get_or<std::string>(j, "shortfall", "");
  c.ladder_cases = whole_or(j, "ladder_cases", 0);
  if (j.contains("axes")) {
    const json& axes = field(j, "axes");
    if (!axes.is_object()) throw ReportReadError("field 'axes': expected an object");
    for (const auto& [key, value] : axes.items()) {
      const auto axis = parse_axis(key);
      if (!axis) throw ReportReadError(fmt::format("field 'axes': unknown axis {}", json(key).dump()));
      AxisCoverage& a = c.axes[*axis];
      if (!value.is_object()) throw ReportReadError(fmt::format("field 'axes.{}': expected an object", key));
      a.reached = whole<std::int64_t>(value, "reached");
      a.gate = whole_or<std::int64_t>(value, "gate", 0);
      a.refused = whole_or<std::int64_t>(value, "refused", 0);
      a.set_by = get_or<std::string>(value, "set_by", "");
    }
  }
  return c;
}

// The counterexample's arrays (inputs, observed, expected: the bulk of a
// large report) are moved out of `j`, not copied; `j` keeps nulls there.
Counterexample counterexample_from(json& j) {
  Counterexample c;
  if (!field(j, "inputs").is_object()) throw ReportReadError("field 'inputs' must be an object");
  field(j, "observed");
  field(j, "expected");
  c.check = get<std::string>(j, "check");
  c.location = location_from_json(field(j, "location"));
  c.note = get<std::string>(j, "note");
  c.error = number(j, "error");
  const auto kind = get<std::string>(j, "bound_kind");
  if (kind != "lower" && kind != "upper") throw ReportReadError("field 'bound_kind' must be \"upper\" or \"lower\"");
  c.bound_kind = kind == "lower" ? Bound::Kind::lower : Bound::Kind::upper;
  c.tolerance = tolerance_from(field(j, "tolerance"));
  c.diagnosis = get_or<std::string>(j, "diagnosis", "");
  c.inputs = std::move(j.at("inputs"));
  c.observed = std::move(j.at("observed"));
  c.expected = std::move(j.at("expected"));
  return c;
}

Outcome outcome_from(json& j) {
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
    std::string reproduce = get<std::string>(j, "reproduce");
    std::string regression_file = get_or<std::string>(j, "regression_file", "");
    if (!field(j, "counterexample").is_object()) throw ReportReadError("field 'counterexample' must be an object");
    return Violated{counterexample_from(j.at("counterexample")), std::move(reproduce), std::move(regression_file)};
  }
  if (outcome == "uncovered") return Uncovered{get<std::string>(j, "reason")};
  if (outcome == "skipped") return NotRun{get<std::string>(j, "message")};
  if (outcome == "error") {
    const auto kind = get<std::string>(j, "error_kind");
    if (kind == "subject_failure") return SubjectFailed{failure_from(field(j, "subject_failure"))};
    if (kind == "gave_up") return GaveUp{get<std::string>(j, "reason")};
    if (kind == "harness") return Errored{get<std::string>(j, "reason")};
    throw ReportReadError(fmt::format("unknown error_kind '{}'", kind.substr(0, 80)));
  }
  throw ReportReadError(fmt::format("unknown outcome '{}'", outcome.substr(0, 80)));
}

// The result's fields, as the writer's inverse (nothing checked against
// anything else yet); the counterexample's arrays are moved out of `j`.
PropertyResult result_fields(json& j) {
  PropertyResult r;
  if (!j.is_object()) throw ReportReadError("a result that is not an object");
  r.property = get<std::string>(j, "property");
  r.subject = get<std::string>(j, "subject");
  try {
    r.expectation = expect_from(get<std::string>(j, "expectation"));
    r.seed = whole<std::uint64_t>(j, "seed");
    r.seconds = seconds(j, "seconds");
    r.cases = whole(j, "cases");
    r.shrinks = whole(j, "shrinks");
    r.shrink_tries = whole(j, "shrink_tries");
    r.shrink_cut_short = get_or<bool>(j, "shrink_cut_short", false);
    r.consequence_of = get_or<std::string>(j, "consequence_of", "");
    r.discards = whole(j, "discards");
    r.discard_reason = get_or<std::string>(j, "discard_reason", "");
    r.regressions_replayed = whole_or(j, "regressions_replayed", 0);
    r.regressions_unfit = whole_or(j, "regressions_unfit", 0);
    r.coverage = coverage_from(field(j, "coverage"));
    r.outcome = outcome_from(j);
  } catch (const ReportReadError& e) {
    throw ReportReadError(fmt::format("result {} × {}: {}", r.property, r.subject, e.what()));
  }
  return r;
}

SubjectSummary subject_from(const json& s) {
  SubjectSummary summary{get<std::string>(s, "spec"),   get<std::string>(s, "name"),
                         get<std::string>(s, "dtype"),  get<std::string>(s, "layout"),
                         get<std::string>(s, "scheme"), get<std::vector<std::string>>(s, "ops"),
                         std::nullopt,                  get_or<std::string>(s, "no_cells", "")};
  if (s.contains("start_failure")) summary.start_failure = failure_from(s.at("start_failure"));
  summary.declared_violations = get_or<std::vector<std::string>>(s, "declared_violations", {});
  // Checked against what they declare by merge (cli/shard_dir.cpp); the
  // digest is derived from them, so a report's own is checked as written.
  if (const auto params = s.find("params"); params != s.end()) {
    if (!params->is_object()) throw ReportReadError("a subject's 'params' must be an object");
    summary.params = *params;
  }
  if (const auto digest = s.find("params_digest"); digest != s.end() && *digest != json_digest(summary.params)) {
    throw ReportReadError(fmt::format("subject {}: its params_digest is not the digest of its params ({}): its "
                                      "declarations were edited",
                                      summary.spec, json_digest(summary.params)));
  }
  return summary;
}

PrecisionBudget budget_from(const json& b) {
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
  return budget;
}

// The run's settings: what was asked, and when.
void read_settings(const json& j, RunReport& r) {
  r.pecheck_version = get<std::string>(j, "pecheck_version");
  r.program = get_or<std::string>(j, "program", "pecheck");
  r.command = get<std::string>(j, "command");
  r.cell_options = get_or<std::string>(j, "cell_options", "");
  r.run_id = get_or<std::string>(j, "run_id", "");
  r.seed = whole<std::uint64_t>(j, "seed");
  r.cases = whole(j, "cases", 1);
  r.max_size = whole_or(j, "max_size", 0);
  r.max_position = whole<std::int64_t>(j, "max_position", 1);
  r.max_width = whole_or(j, "max_width", 0);
  r.history = whole_or(j, "history", 0);
  r.tolerance_factor = get<double>(j, "tolerance_factor");
  if (!(r.tolerance_factor > 0) || r.tolerance_factor > 1e300) {
    throw ReportReadError("field 'tolerance_factor' must be a positive number");
  }
  r.started_at = get<std::string>(j, "started_at");
  r.seconds = seconds(j, "seconds");
  r.exit_code = whole(j, "exit_code", 0, 255);
}

// How the run ended and what it was configured with beyond its flags:
// a signal, the time budget, the error model's overrides, expectations.
void read_conclusion(const json& j, RunReport& r) {
  r.regression_dir = get_or<std::string>(j, "regression_dir", "");
  r.regression_problems = get_or<std::vector<std::string>>(j, "regression_problems", {});
  if (j.contains("interrupted")) {
    const auto sig = get<std::string>(j, "interrupted");
    r.interrupted = sig == "SIGINT" ? SIGINT : sig == "SIGTERM" ? SIGTERM : sig == "SIGHUP" ? SIGHUP : 0;
    if (r.interrupted == 0) {
      throw ReportReadError(fmt::format("unknown signal '{}' in 'interrupted'", sig.substr(0, 20)));
    }
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
  if (j.contains("expectations")) {
    const json& configured = j.at("expectations");
    if (!configured.is_object()) throw ReportReadError("field 'expectations' must be an object");
    for (const auto& [id, e] : configured.items()) {
      if (!e.is_string()) throw ReportReadError("field 'expectations': values must be \"holds\" or \"violated\"");
      r.expectations[id] = expect_from(e.get<std::string>());
    }
  }
}

// Everything but the results.
RunReport header_from_json(const json& j) {
  if (!j.is_object() || !j.contains("format") || j.at("format") != "pecheck-report") {
    throw ReportReadError("not a pecheck report (\"format\" is not \"pecheck-report\")");
  }
  if (const int version = whole(j, "version", 0); version != kReportSchemaVersion) {
    throw ReportReadError(fmt::format("report schema version {}, this pecheck reads version {}", version,
                                      kReportSchemaVersion));
  }
  RunReport r;
  read_settings(j, r);
  const json& properties = field(j, "properties");
  const json& subjects = field(j, "subjects");
  if (!properties.is_array() || !subjects.is_array()) {
    throw ReportReadError("fields 'properties' and 'subjects' must be lists");
  }
  for (const auto& p : properties) r.properties.push_back(property_from(p));
  for (const auto& s : subjects) r.subjects.push_back(subject_from(s));
  read_conclusion(j, r);
  if (j.contains("shard")) {
    const json& s = j.at("shard");
    r.shard = ShardInfo{whole(s, "index"), whole(s, "total", 1), whole(s, "cells"), whole(s, "total_cells")};
    if (r.shard->index >= r.shard->total || r.shard->cells > r.shard->total_cells) {
      throw ReportReadError(fmt::format("field 'shard': shard {}/{} with {} of {} cells is not a shard", r.shard->index,
                                        r.shard->total, r.shard->cells, r.shard->total_cells));
    }
  }
  if (j.contains("budgets")) {
    if (!j.at("budgets").is_array()) throw ReportReadError("field 'budgets' must be a list");
    for (const auto& b : j.at("budgets")) r.budgets.push_back(budget_from(b));
  }
  return r;
}

// Reads `j` into a result (moving the counterexample's arrays out of it)
// and checks it is what pecheck writes for that result: the arrays, moved
// verbatim, agree by construction, so they are set aside for the comparison
// instead of copied into it (a report's bulk is there).
PropertyResult checked_result(json& j) {
  PropertyResult r = result_fields(j);
  Counterexample* c = std::holds_alternative<Violated>(r.outcome) ? &std::get<Violated>(r.outcome).counterexample
                                                                  : nullptr;
  json arrays[3];
  auto park = [&] {  // swaps the arrays out (`j` holds nulls there), and back
    if (c == nullptr) return;
    std::swap(arrays[0], c->inputs);
    std::swap(arrays[1], c->observed);
    std::swap(arrays[2], c->expected);
  };
  park();
  check_result_as_written(r, j);
  park();
  return r;
}

// Results read one by one, each checked against what pecheck writes for it.
struct ResultReader {
  std::vector<PropertyResult> results;
  std::vector<std::string> reruns;  // each result's recorded rerun command, checked once the header is read

  void add(json& j) {
    const std::size_t index = results.size();
    try {
      PropertyResult r = checked_result(j);
      reruns.push_back(get<std::string>(j, "rerun"));
      results.push_back(std::move(r));
    } catch (const ReportReadError& e) {
      throw ReportReadError(fmt::format("results[{}]: {}", index, e.what()));
    }
  }
};

// The report whose header is `r`, with the results read: checked as a whole.
RunReport assemble(RunReport r, const json& top, ResultReader& read) {
  check_header_as_written(r, top);
  r.results = std::move(read.results);
  check_report_as_written(r, top, read.reruns);
  return r;
}

const json& results_of(const json& top) {
  const json& results = field(top, "results");
  if (!results.is_array()) throw ReportReadError("field 'results' must be a list");
  return results;
}

json& results_of(json& top) {
  results_of(std::as_const(top));
  return top.at("results");
}

}  // namespace

PropertyResult result_from_json(const json& j) {
  json copy = j;
  return checked_result(copy);
}

RunReport report_from_json(const json& j) {
  RunReport r = header_from_json(j);
  ResultReader read;
  for (const json& result : results_of(j)) {
    json copy = result;
    read.add(copy);
  }
  return assemble(std::move(r), j, read);
}

RunReport report_from_text(std::string_view text) {
  // The results, the bulk of a report, are read one at a time and dropped
  // from the tree: the memory held is the text, the results read and one
  // result's tree, never the whole report's tree. (Only once "format" said
  // this is a report, which pecheck writes first: another file keeps its
  // tree and is refused as a whole below.)
  ResultReader read;
  std::string top_key;
  bool a_report = false, in_results = false;
  auto hook = [&](int depth, json::parse_event_t event, json& value) {
    if (depth != 1 && depth != 2) return true;
    if (depth == 1 && event == json::parse_event_t::key) top_key = value.get<std::string>();
    if (depth == 1 && event == json::parse_event_t::value && top_key == "format") a_report = value == "pecheck-report";
    if (depth == 1 && event == json::parse_event_t::array_start) in_results = a_report && top_key == "results";
    if (depth == 1 && event == json::parse_event_t::array_end) in_results = false;
    if (depth == 2 && in_results &&
        (event == json::parse_event_t::object_end || event == json::parse_event_t::array_end ||
         event == json::parse_event_t::value)) {
      read.add(value);
      return false;
    }
    return true;
  };
  json top;
  try {
    top = parse_strict_json(text, hook);
  } catch (const StrictJsonError& e) {
    throw ReportReadError(e.what());
  }
  RunReport r = header_from_json(top);
  for (json& result : results_of(top)) read.add(result);  // those not streamed
  return assemble(std::move(r), top, read);
}

RunReport read_report(const std::filesystem::path& path) {
  try {
    return report_from_text(read_bounded_file(path, kMaxReportBytes, "report", FileContent::text));
  } catch (const FileReadError& e) {
    throw ReportReadError(e.what());
  } catch (const ReportReadError& e) {
    throw ReportReadError(fmt::format("{}: {}", path.string(), e.what()));
  }
}

}  // namespace pecheck
