#include "pecheck/replay/replay.h"

#include <fmt/format.h>

#include <chrono>
#include <fstream>

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
      r.where = cx->value("where", "");
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
      if (m.contains("factor")) c.tolerance_factor = number_from_json(m["factor"]);
      c.overrides = number_map(m.value("overrides", json::object()));
      c.absolute = number_map(m.value("absolute", json::object()));
    } else if (j.contains("tolerance_factor")) {
      c.tolerance_factor = number_from_json(j["tolerance_factor"]);
    }
  } catch (const ReplayFileError&) {
    throw;
  } catch (const std::exception& e) {
    throw ReplayFileError(fmt::format("malformed counterexample: {}", e.what()));
  }
  if (!(c.tolerance_factor > 0)) throw ReplayFileError("malformed counterexample: tolerance factor must be positive");
  return c;
}

RecordedCase read_recorded_case(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ReplayFileError(fmt::format("cannot read {}", file.string()));
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    throw ReplayFileError(fmt::format("{} is not JSON: {}", file.string(), e.what()));
  }
  return parse_recorded_case(j);
}

ErrorModel error_model_of(const RecordedCase& recorded, Dtype dtype) {
  ErrorModel model;
  model.dtype = dtype;
  model.factor = recorded.tolerance_factor;
  model.overrides = recorded.overrides;
  model.absolute = recorded.absolute;
  return model;
}

PropertyResult replay_case(const PropertyDef& property, Subject& subject, const json& inputs,
                           const ErrorModel& model, std::optional<Expect> expectation) {
  const SubjectInfo& info = subject.info();
  PropertyResult r;
  r.property = property.info.id;
  r.subject = info.spec;
  r.expectation = expectation.value_or(property.info.expectation(info.scheme));
  ErrorModel m = model;
  m.dtype = info.dtype;  // tolerances follow the replaying subject's precision, as in a run
  const auto start = std::chrono::steady_clock::now();
  try {
    const Measurement measured = property.replay(subject, inputs, m);
    r.cases = 1;
    r.error = measured.error;
    r.tolerance = measured.tolerance;
    r.note = measured.note;
    if (measured.ok()) {
      r.outcome = Outcome::holds;
    } else {
      r.outcome = Outcome::violated;
      r.counterexample = Counterexample{inputs,         measured.observed, measured.expected, measured.where,
                                        measured.note, measured.error,    measured.tolerance};
    }
  } catch (const json::exception& e) {
    throw ReplayFileError(fmt::format("the recorded inputs do not fit {}: {}", property.info.id, e.what()));
  } catch (const Refusal& refusal) {
    r.outcome = Outcome::skipped;
    r.discards = 1;
    r.message = fmt::format("the subject refused the recorded input: {}", refusal.what());
  } catch (const SubjectFailure& f) {
    r.outcome = Outcome::error;
    r.message = std::string("subject failure: ") + f.what();
    r.subject_failure = SubjectFailureInfo{f.what(), f.request, f.received, f.stderr_tail, f.exit_status};
  } catch (const std::exception& e) {
    r.outcome = Outcome::error;
    r.message = fmt::format("subject failure: the subject threw: {}", e.what());
    r.subject_failure = SubjectFailureInfo{fmt::format("the subject threw: {}", e.what()), "", "", "", ""};
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  switch (r.outcome) {
    case Outcome::holds:
    case Outcome::violated: {
      const bool met = (r.outcome == Outcome::holds) == (r.expectation == Expect::holds);
      r.status = met ? Status::passed : Status::failed;
      break;
    }
    case Outcome::skipped: r.status = Status::skipped; break;
    case Outcome::error: r.status = Status::error; break;
  }
  return r;
}

std::string_view replay_verdict(const PropertyResult& r) {
  if (r.subject_failure) return "subject failure";
  switch (r.outcome) {
    case Outcome::holds:
      return r.expectation == Expect::holds ? "now holds (fixed)" : "no longer witnesses the expected violation";
    case Outcome::violated:
      return r.expectation == Expect::holds ? "still fails" : "violation reproduced (expected)";
    case Outcome::skipped: return "subject refused the input";
    case Outcome::error: return "error";
  }
  return "?";
}

int replay_exit_code(const PropertyResult& r) {
  if (r.subject_failure) return 3;
  return r.status == Status::passed ? 0 : 1;
}

}  // namespace pecheck
