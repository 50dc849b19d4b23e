#pragma once
// A property = registry data + a generator of inputs + a measurement.
// `define<Case>` erases the input type so the registry is a flat list that the
// CLI, the reports and the Boost.Test front end all read.
#include <rapidcheck.h>

#include <cstdint>
#include <functional>

#include "pecheck/core/json.h"
#include "pecheck/result/measurement.h"
#include "pecheck/core/claim.h"
#include "pecheck/result/result.h"
#include "pecheck/runner/check.h"
#include "pecheck/subjects/subject.h"

namespace pecheck {

template <class Case>
using GenFn = std::function<rc::Gen<Case>(const GenContext&)>;
template <class Case>
using MeasureFn = std::function<Measurement(Subject&, const Case&, const ErrorModel&)>;

struct PropertyDef {
  PropertyInfo info;
  // Generates, checks and shrinks against one subject.
  std::function<PropertyResult(Subject&, const RunConfig&)> run;
  // Measures one recorded input again (replay, regression store).
  std::function<Measurement(Subject&, const json& inputs, const ErrorModel&)> replay;
};

// Case must be copyable and convertible to and from JSON (to_json/from_json).
template <class Case>
PropertyDef define(PropertyInfo info, GenFn<Case> generate, MeasureFn<Case> measure) {
  PropertyDef def;
  def.run = [info, generate, measure](Subject& subject, const RunConfig& config) {
    CheckState state(subject, config);
    const GenContext context{subject.info(), config.max_position};
    auto cases = rc::gen::map(generate(context), [&state, measure](const Case& input) {
      return evaluate(
          state, [&] { return measure(state.subject, input, state.model); },
          [&] { return json(input); });
    });
    return run_cases(info, state, cases);
  };
  def.replay = [measure](Subject& subject, const json& inputs, const ErrorModel& model) {
    return measure(subject, inputs.get<Case>(), model);
  };
  def.info = std::move(info);
  return def;
}

}  // namespace pecheck
