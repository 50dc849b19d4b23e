#include "pecheck/replay/replay.h"

#include <fmt/format.h>

#include <chrono>

#include "pecheck/core/bounded_file.h"
#include "pecheck/core/strict_json.h"

namespace pecheck {

namespace {

std::string string_field(const json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_string()) {
    throw ReplayFileError(fmt::format("not a pecheck counterexample: no \"{}\" string", key));
  }
  return j[key].get<std::string>();
}

std::map<std::string, double> number_map(const json& j) {
  std::map<std::string, double> out;
  if (!j.is_object()) return out;
  for (const auto& [k, v] : j.items()) out[k] = number_from_json(v);
  return out;
}

Tolerance tolerance_from(const json& j) {
  Tolerance t;
  if (j.is_object()) {
    if (j.contains("bound")) t.bound = number_from_json(j["bound"]);
    t.formula = j.value("formula", "");
    if (j.contains("judged_by") && j["judged_by"].is_string()) t.judged_by = j["judged_by"].get<std::string>();
    if (j.contains("worst_case")) t.worst_case = number_from_json(j["worst_case"]);
  }
  return t;
}

}  // namespace

RecordedCase parse_recorded_case(const json& j) {
  if (!j.is_object()) throw ReplayFileError("not a pecheck counterexample: not a JSON object");
  RecordedCase c;
  c.property = string_field(j, "property");
  c.subject = string_field(j, "subject");
  try {
    const json* cx = j.contains("counterexample") ? &j["counterexample"] : nullptr;
    if (cx != nullptr && cx->contains("inputs")) c.inputs = (*cx)["inputs"];
    else if (j.contains("inputs")) c.inputs = j["inputs"];
    else throw ReplayFileError("not a pecheck counterexample: no \"counterexample.inputs\"");
    if (cx != nullptr) {
      Counterexample r;
      r.inputs = c.inputs;
      r.observed = cx->value("observed", json());
      r.expected = cx->value("expected", json());
      if (cx->contains("location")) r.location = location_from_json((*cx)["location"]);
      if (r.location.label.empty() && describe(r.location).empty()) r.location.label = cx->value("where", "");
      r.check = cx->value("check", "");
      r.diagnosis = cx->value("diagnosis", "");
      r.note = cx->value("note", "");
      if (cx->contains("error")) r.error = number_from_json((*cx)["error"]);
      r.tolerance = tolerance_from(cx->value("tolerance", json()));
      c.recorded = std::move(r);
    }
    if (j.contains("expectation") && j["expectation"].is_string()) {
      c.expectation = j["expectation"] == "violated" ? Expect::violated : Expect::holds;
    }
    c.reproduce = j.value("reproduce", "");
    if (j.contains("seed") && j["seed"].is_number_unsigned()) c.seed = j["seed"].get<std::uint64_t>();
    c.pecheck_version = j.value("pecheck_version", "");
    if (j.contains("error_model") && j["error_model"].is_object()) {
      const json& m = j["error_model"];
      if (m.contains("factor")) c.error_model.factor = number_from_json(m["factor"]);
      c.error_model.overrides = number_map(m.value("overrides", json::object()));
      c.error_model.absolute = number_map(m.value("absolute", json::object()));
    } else if (j.contains("tolerance_factor")) {
      c.error_model.factor = number_from_json(j["tolerance_factor"]);
    }
  } catch (const ReplayFileError&) {
    throw;
  } catch (const std::exception& e) {
    throw ReplayFileError(fmt::format("malformed counterexample: {}", e.what()));
  }
  if (!(c.error_model.factor > 0)) throw ReplayFileError("malformed counterexample: tolerance factor must be positive");
  return c;
}

RecordedCase read_recorded_case(const std::filesystem::path& file) {
  // Untrusted (a CI artifact, a store entry anyone could commit): a regular
  // file of bounded size, strict JSON (core/strict_json.h).
  json j;
  try {
    j = parse_strict_json(read_bounded_file(file, kMaxCounterexampleBytes, "counterexample file"));
  } catch (const FileReadError& e) {
    throw ReplayFileError(e.what());
  } catch (const StrictJsonError& e) {
    throw ReplayFileError(fmt::format("{} is not JSON as pecheck writes it: {}", file.string(), e.what()));
  }
  return parse_recorded_case(j);
}

PropertyResult replay_case(const PropertyDef& property, Subject& subject, const json& inputs,
                           const ErrorModel& model, Expect expectation) {
  const SubjectInfo& info = subject.info();
  PropertyResult r;
  r.property = property.info.id;
  r.subject = format_spec(info.spec);
  r.expectation = expectation;
  // Tolerances follow the replaying subject's precision, as in a run.
  const BoundModel bounds(model, property.info.id, info);
  const auto start = std::chrono::steady_clock::now();
  try {
    const CaseJudgement judged = judge(property.impl.remeasure(subject, inputs, bounds), bounds, property.impl.checks);
    r.cases = 1;
    if (judged.verdict == CheckVerdict::fail) {
      Violated violated{counterexample_of(inputs, judged.deciding(), judged.note), {}, {}};
      // The cause probed afresh, as a run probes its witness (issue 40): a stored regression that still
      // fails, or a replayed file, reads as its first sighting did, diagnosis included.
      if (property.impl.diagnose) {
        try {
          violated.counterexample.diagnosis = property.impl.diagnose(subject, inputs, bounds);
        } catch (const std::exception& e) {
          violated.counterexample.diagnosis = fmt::format("(no diagnosis: {})", e.what());
        }
      }
      r.outcome = std::move(violated);
    } else if (judged.verdict == CheckVerdict::uncheckable) {
      r.outcome = NotRun{fmt::format("the recorded input is not checkable at this precision: {}",
                                     judged.deciding().check.name)};
    } else {
      r.outcome = Held{judged.deciding(), judged.note};
    }
  } catch (const InvalidInput& e) {
    throw ReplayFileError(fmt::format("the recorded inputs do not fit {}: {}", property.info.id, e.what()));
  } catch (const Refusal& refusal) {
    r.discards = 1;
    r.discard_reason = *refusal.what() != '\0' ? refusal.what() : "(the subject gave no reason)";
    r.outcome = NotRun{fmt::format("the subject refused the recorded input: {}", r.discard_reason)};
  } catch (const SubjectFailure& f) {
    r.outcome = SubjectFailed{failure_info(f)};
  } catch (const std::logic_error& e) {
    r.outcome = Errored{fmt::format("{} is defective: {}", property.info.id, e.what())};
  } catch (const std::exception& e) {
    r.outcome = SubjectFailed{{fmt::format("the subject threw: {}", e.what()), "", "", "", ""}};
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::string_view replay_verdict(const PropertyResult& r) {
  if (r.subject_failure()) return "subject failure";
  if (r.held()) {
    return r.expectation == Expect::holds ? "now holds (fixed)" : "no longer witnesses the expected violation";
  }
  if (r.violation()) return r.expectation == Expect::holds ? "still fails" : "violation reproduced (expected)";
  if (r.discards > 0) return "subject refused the input";
  if (std::holds_alternative<NotRun>(r.outcome)) return "not checkable";
  return "error";
}

int replay_exit_code(const PropertyResult& r) {
  if (r.subject_failure()) return 3;
  return r.status() == Status::passed ? 0 : 1;
}

}  // namespace pecheck
