#pragma once
// The non-template half of running one property against one subject on top of
// RapidCheck: per-case bookkeeping (worst error, discards, subject failures,
// the last failing input) and the translation of RapidCheck's result into a
// PropertyResult. Everything is captured programmatically, nothing scraped.
#include <rapidcheck.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "pecheck/core/json.h"
#include "pecheck/core/tolerance.h"
#include "pecheck/result/measurement.h"
#include "pecheck/core/claim.h"
#include "pecheck/result/result.h"
#include "pecheck/subjects/subject.h"

namespace pecheck {

struct RunConfig {
  std::uint64_t seed = 0;          // the run's seed; each property × subject derives its own
  int cases = 100;                 // successful cases required
  int max_size = 100;              // RapidCheck's size bound
  bool shrink = true;
  // Draw every case at max_size (the generators' full stated ranges, uniform)
  // instead of RapidCheck's ramp from small to full size. The ramp finds small,
  // readable failures first; the full size is what the benchmark measures.
  bool fixed_size = false;
  Position max_position = 10000;   // largest position generated (the context length verified)
  ErrorModel model;                // its dtype is replaced by the subject's
  std::string reproduce;           // a RapidCheck reproduce string: rerun exactly that case
  // A profile's expectation scheme: when set, replaces the subject's own.
  std::string scheme;
  // Expected verdicts by property id (a config file's [expect]): over any scheme.
  std::map<std::string, Expect> expectations;
};

// What `property` is expected to do on `subject` under `config`.
Expect expectation_for(const PropertyInfo& property, const SubjectInfo& subject, const RunConfig& config);

// What generators may depend on.
struct GenContext {
  const SubjectInfo& subject;
  Position max_position;
};

// The seed of one property × subject: stable across selections and runs.
std::uint64_t derive_seed(std::uint64_t seed, std::string_view property, std::string_view subject);

struct CheckState {
  CheckState(Subject& subject, const RunConfig& config);

  Subject& subject;
  const RunConfig& config;
  ErrorModel model;                         // config.model with the subject's dtype
  int discards = 0;
  int measured = 0;                         // cases the subject actually answered
  std::string discard_reason;               // the first refusal
  std::optional<Measurement> worst;         // largest error/bound among passing cases
  std::optional<std::pair<json, Measurement>> last_failure;
  std::optional<SubjectFailureInfo> failure;
};

// Runs one measurement and returns RapidCheck's verdict for the case.
rc::detail::CaseDescription evaluate(CheckState& state, const std::function<Measurement()>& measure,
                                     const std::function<json()>& inputs);

// Drives RapidCheck over `cases` and builds the result.
PropertyResult run_cases(const PropertyInfo& info, CheckState& state,
                         const rc::Gen<rc::detail::CaseDescription>& cases);

}  // namespace pecheck
