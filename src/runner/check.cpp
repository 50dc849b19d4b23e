#include "pecheck/runner/check.h"

#include <fmt/format.h>

#include <chrono>

#include "runner/rapidcheck_glue.h"

namespace pecheck {

std::uint64_t derive_seed(std::uint64_t seed, std::string_view property, std::string_view subject) {
  // FNV-1a over (seed, property, subject): stable across platforms and builds.
  std::uint64_t h = 0xcbf29ce484222325ULL;
  auto mix = [&h](unsigned char c) { h = (h ^ c) * 0x100000001b3ULL; };
  for (int i = 0; i < 8; ++i) mix(static_cast<unsigned char>(seed >> (8 * i)));
  for (char c : property) mix(static_cast<unsigned char>(c));
  mix(0);
  for (char c : subject) mix(static_cast<unsigned char>(c));
  return h;
}

Expect expectation_for(const PropertyInfo& property, const SubjectInfo& subject, const RunConfig& config) {
  if (auto it = config.expectations.find(property.id); it != config.expectations.end()) return it->second;
  return property.expectation(config.scheme.empty() ? subject.scheme : config.scheme);
}

CheckState::CheckState(Subject& s, const RunConfig& c) : subject(s), config(c), model(c.model) {
  model.dtype = s.info().dtype;
}

namespace {
using rc::detail::CaseDescription;
using rc::detail::CaseResult;

CaseDescription verdict(CaseResult::Type type, std::string text = {}) {
  CaseDescription d;
  d.result = CaseResult(type, std::move(text));
  // RapidCheck evaluates the shrunk case once more and calls example() on it;
  // after a subject failure that re-evaluation is a vacuous success, so an
  // empty std::function would throw bad_function_call.
  d.example = [] { return rc::detail::Example{}; };
  return d;
}

SubjectFailureInfo failure_info(const SubjectFailure& f) {
  return {f.what(), f.request, f.received, f.stderr_tail, f.exit_status};
}
}  // namespace

CaseDescription evaluate(CheckState& state, const std::function<Measurement()>& measure,
                         const std::function<json()>& inputs) {
  // Once a subject has broken, stop talking to it: cases pass vacuously and the
  // result is overridden with the failure, so no shrink can mistake it for a
  // property violation.
  if (state.failure) return verdict(CaseResult::Type::Success);
  try {
    Measurement m = measure();
    ++state.measured;
    if (m.ok()) {
      if (!state.worst || m.ratio() > state.worst->ratio()) state.worst = std::move(m);
      return verdict(CaseResult::Type::Success);
    }
    const std::string text = fmt::format("error {:.3g} > bound {:.3g} at {}", m.error, m.tolerance.bound, m.where);
    json in = inputs();
    CaseDescription d = verdict(CaseResult::Type::Failure, text);
    d.example = [in] { return rc::detail::Example{{"inputs", in.dump()}}; };
    state.last_failure.emplace(std::move(in), std::move(m));
    return d;
  } catch (const Refusal& refusal) {
    if (state.discard_reason.empty()) state.discard_reason = refusal.what();
    ++state.discards;
    return verdict(CaseResult::Type::Discard, refusal.what());
  } catch (const SubjectFailure& f) {
    state.failure = failure_info(f);
  } catch (const std::exception& e) {
    state.failure = SubjectFailureInfo{fmt::format("the subject threw: {}", e.what()), "", "", "", ""};
  }
  return verdict(CaseResult::Type::Success);
}

PropertyResult run_cases(const PropertyInfo& info, CheckState& state,
                         const rc::Gen<rc::detail::CaseDescription>& cases) {
  const SubjectInfo& subject = state.subject.info();
  const RunConfig& config = state.config;
  PropertyResult result;
  result.property = info.id;
  result.subject = subject.spec;
  result.expectation = expectation_for(info, subject, config);
  result.seed = derive_seed(config.seed, info.id, subject.spec);

  rc::detail::TestParams params;
  params.seed = result.seed;
  params.maxSuccess = config.cases;
  params.maxSize = config.max_size;
  params.disableShrinking = !config.shrink;
  rc::detail::TestMetadata metadata;
  metadata.id = info.id;
  metadata.description = info.claim;
  CountingListener listener;

  const auto start = std::chrono::steady_clock::now();
  const auto outcome = check_with_rapidcheck(config.fixed_size ? rc::gen::resize(config.max_size, cases) : cases,
                                             metadata, params, listener, config.reproduce);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.cases = listener.cases;
  result.shrinks = listener.shrinks_accepted;
  result.shrink_tries = listener.shrinks_tried;
  result.discards = state.discards;
  if (state.discards > 0) {
    result.message = fmt::format("{} input(s) refused by the subject, e.g. \"{}\"", state.discards,
                                 state.discard_reason);
  }

  if (state.failure) {
    result.outcome = Outcome::error;
    result.status = Status::error;
    result.message = "subject failure: " + state.failure->message;
    // The cases after the failure passed vacuously; count only those answered.
    result.cases = state.measured;
    result.subject_failure = state.failure;
  } else if (outcome.failure) {
    result.outcome = Outcome::violated;
    result.reproduce = outcome.reproduce;
    if (state.last_failure) {
      auto& [inputs, m] = *state.last_failure;
      result.error = m.error;
      result.tolerance = m.tolerance;
      result.note = m.note;
      result.counterexample = Counterexample{inputs, m.observed, m.expected, m.where, m.note, m.error, m.tolerance};
    }
  } else if (outcome.gave_up || outcome.error) {
    result.outcome = Outcome::error;
    result.message = outcome.message + (result.message.empty() ? "" : "; " + result.message);
  } else {
    result.outcome = Outcome::holds;
    if (state.worst) {
      result.error = state.worst->error;
      result.tolerance = state.worst->tolerance;
      result.note = state.worst->note;
    }
  }
  if (result.outcome == Outcome::error) {
    result.status = Status::error;
  } else {
    const bool met = (result.outcome == Outcome::holds) == (result.expectation == Expect::holds);
    result.status = met ? Status::passed : Status::failed;
    if (!met && result.expectation == Expect::violated) {
      result.message = fmt::format("expected a violation; none found in {} cases", result.cases);
    }
  }
  return result;
}

}  // namespace pecheck
