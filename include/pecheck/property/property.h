#pragma once
// A property implementation = a generator of inputs + a measurement, bound to
// a claim id of the registry (property/registry.h). `define<Case>` erases the
// input type so the registry is a flat table that the CLI, the reports, replay
// and the Boost.Test front end all read.
//
// The measurement returns named sub-checks (result/check.h); it never sees its
// own id, a tolerance factor or a verdict. A property only draws and
// measures: the runner binds the error model to the id (CaseSink), measures
// each drawn input, judges it and tells RapidCheck, and looks ahead for
// subjects that take batches (src/runner/lookahead.h) — so the property
// layer depends on nothing above it.
#include <fmt/format.h>
#include <rapidcheck.h>

#include <concepts>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "pecheck/core/claim.h"
#include "pecheck/core/json.h"
#include "pecheck/property/sizes.h"
#include "pecheck/result/check.h"
#include "pecheck/result/judge.h"
#include "pecheck/subjects/subject.h"
#include "pecheck/subjects/typed_subject.h"

namespace pecheck {

// What generators may depend on.
struct GenContext {
  const SubjectInfo& subject;
  Position max_position;
  int max_width = 0;  // the gate's largest width; 0: the property's own range
  int history = 0;    // --history: requests in the longest history script, where more than the ladder's
  // The largest width a generator may draw: its own range, or the gate's if smaller.
  int width_limit(int own) const { return max_width > 0 && max_width < own ? max_width : own; }
  // Starts a fresh copy of the subject under test (no history), for
  // properties that compare with one (history_independence). Empty: the
  // property starts one from the spec where it can (property/fresh.h).
  std::function<SubjectPtr()> fresh = {};
  // A ladder case (property/sizes.h): the axis at a real-model size, and
  // where the sizes it aims at are noted as the cell's gates. None: the search.
  std::optional<Focus> focus = {};
  std::shared_ptr<LadderGates> gates = {};
  // What a property keeps across one cell's cases, the search's and the
  // ladder's alike (each ladder case draws with a copy of this context):
  // history_independence's proof that forked copies are fresh (issue 39),
  // set by its first draw. A context made anew has a slot of its own.
  std::shared_ptr<std::shared_ptr<void>> cell_memory = std::make_shared<std::shared_ptr<void>>();
};

// A recorded input that does not fit its property (wrong type, shape, range).
struct InvalidInput : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// What a measurement is given, implemented by the runner: the subject, the
// error model bound to the claim's id, and a way to watch another subject.
class CaseSink {
 public:
  virtual ~CaseSink() = default;
  virtual Subject& subject() = 0;
  virtual const BoundModel& model() const = 0;
  // A subject the measurement talks to besides subject() (history_independence
  // runs its script on a fresh copy): what it returns forwards to `other` and
  // counts its requests in the case's coverage, as subject()'s are. Valid
  // until the next call.
  virtual Subject& watched(Subject& other) { return other; }
};

// One generated case, its type erased: what a property's generator draws and
// the runner measures, judges and records. The runner may measure one drawn
// input more than once, so a measurement depends on the input and on what
// the subject answers, nothing else.
class DrawnInput {
 public:
  virtual ~DrawnInput() = default;
  virtual Measurement measure(CaseSink& sink) const = 0;
  virtual json inputs() const = 0;  // the input as reports record it (read back by read_input)
};
using DrawnPtr = std::shared_ptr<const DrawnInput>;

template <class Case>
using GenFn = std::function<rc::Gen<Case>(const GenContext&)>;
template <class Case>
using MeasureFn = std::function<Measurement(Subject&, const Case&, const BoundModel&)>;

struct PropertyImpl {
  std::string id;                     // the claim it implements (a row of the claims table)
  std::vector<std::string> checks;    // the names of the sub-checks its measurement returns
  // Draws the inputs RapidCheck runs, each measured by the runner through a CaseSink.
  std::function<rc::Gen<DrawnPtr>(const GenContext&)> draw;
  // Measures one recorded input again (replay, the regression store). Throws
  // InvalidInput when the input does not fit.
  std::function<Measurement(Subject&, const json& inputs, const BoundModel&)> remeasure;
  // Checks a recorded input without measuring it (read_input below): throws
  // InvalidInput naming the field, or returns.
  std::function<void(const json& inputs)> validate;
  // Optional: explains a counterexample (which usual suspect — a base, a
  // schedule, an offset, a layout — fits the subject's answers), called once
  // on the shrunk witness. Empty when the property has nothing to say.
  std::function<std::string(Subject&, const json& inputs, const BoundModel&)> diagnose;
  // The axes its generator scales to real-model sizes (property/sizes.h):
  // after the search, the cell draws a ladder case for each rung of each,
  // and is gated on what they reach. Empty: no ladder.
  std::vector<Axis> axes;
};

// `impl` with the axes its generator scales (PropertyImpl::axes).
inline PropertyImpl scaling(std::vector<Axis> axes, PropertyImpl impl) {
  impl.axes = std::move(axes);
  return impl;
}

// A Case may validate itself (shapes, ranges): `void validate() const`,
// throwing InvalidInput. Recorded inputs are validated before use.
template <class Case>
concept SelfValidating = requires(const Case& c) { c.validate(); };

// Reads a recorded input: JSON to Case (a wrong type, a missing field or a
// malformed permutation is InvalidInput); the Case written back must read as
// recorded, so a value the field cannot hold (1.5 read as the integer 1,
// −1e300 as a position) is refused rather than silently changed; then the
// Case's own validate() (input_checks.h: shapes, ranges, the run's size ceilings).
namespace detail {
// The floating-point numbers in `inputs` that no integer field can hold
// (|v| ≥ 2^31, or not finite), by path: converting one into an integer is
// undefined behaviour, so read_input learns first which fields they fill.
std::vector<json::json_pointer> wide_floats(const json& inputs);
// Throws InvalidInput: `at` holds `value`, which that (integer) field cannot.
[[noreturn]] void refuse_wide(const json::json_pointer& at, const json& value);

template <class Case>
Case convert_input(const json& inputs) {
  try {
    return inputs.get<Case>();
  } catch (const json::exception& e) {
    throw InvalidInput(e.what());
  } catch (const std::invalid_argument& e) {
    throw InvalidInput(e.what());
  }
}
}  // namespace detail

template <class Case>
Case read_input(const json& inputs) {
  if (const auto wide = detail::wide_floats(inputs); !wide.empty()) {
    // Read once with each such number replaced by 0.5 (which every numeric
    // field takes): a field written back as an integer cannot hold it.
    json safe = inputs;
    for (const auto& at : wide) safe[at] = 0.5;
    const json fields = detail::convert_input<Case>(safe);
    for (const auto& at : wide) {
      if (fields.contains(at) && !fields.at(at).is_number_float()) detail::refuse_wide(at, inputs.at(at));
    }
  }
  Case input = detail::convert_input<Case>(inputs);
  const json written = input;
  for (const auto& op : json::diff(inputs, written)) {
    if (op.at("op") != "replace") continue;  // keys pecheck does not read are left alone
    const json::json_pointer at(op.at("path").get<std::string>());
    throw InvalidInput(fmt::format("{}: {} is not a value this field can hold (it would be read as {})",
                                   at.to_string(), inputs.at(at).dump(), written.at(at).dump()));
  }
  if constexpr (SelfValidating<Case>) input.validate();
  return input;
}

namespace detail {
// A drawn Case, and the measurement all of a property's cases share.
template <class Case>
class TypedInput final : public DrawnInput {
 public:
  TypedInput(Case value, std::shared_ptr<const MeasureFn<Case>> measure)
      : value_(std::move(value)), measure_(std::move(measure)) {}
  Measurement measure(CaseSink& sink) const override { return (*measure_)(sink.subject(), value_, sink.model()); }
  json inputs() const override { return json(value_); }

 private:
  Case value_;
  std::shared_ptr<const MeasureFn<Case>> measure_;
};
}  // namespace detail

// Case must be copyable and convertible to and from JSON (to_json/from_json).
// The generator is only mapped (rc::gen::map), so the values drawn and the
// order they shrink in are the generator's own.
template <class Case>
PropertyImpl define(std::string id, std::vector<std::string> checks, GenFn<Case> generate, MeasureFn<Case> measure) {
  PropertyImpl impl;
  impl.id = std::move(id);
  impl.checks = std::move(checks);
  auto shared = std::make_shared<const MeasureFn<Case>>(std::move(measure));
  impl.draw = [generate = std::move(generate), shared](const GenContext& context) {
    return rc::gen::map(generate(context), [shared](Case input) -> DrawnPtr {
      return std::make_shared<const detail::TypedInput<Case>>(std::move(input), shared);
    });
  };
  impl.remeasure = [shared](Subject& subject, const json& inputs, const BoundModel& model) {
    return (*shared)(subject, read_input<Case>(inputs), model);
  };
  impl.validate = [](const json& inputs) { read_input<Case>(inputs); };
  return impl;
}

// `define` with a diagnosis of the counterexample (see PropertyImpl::diagnose).
template <class Case>
using DiagnoseFn = std::function<std::string(Subject&, const Case&, const BoundModel&)>;
template <class Case>
PropertyImpl define(std::string id, std::vector<std::string> checks, GenFn<Case> generate, MeasureFn<Case> measure,
                    DiagnoseFn<Case> diagnose) {
  PropertyImpl impl = define<Case>(std::move(id), std::move(checks), std::move(generate), std::move(measure));
  impl.diagnose = [diagnose](Subject& subject, const json& inputs, const BoundModel& model) {
    return diagnose(subject, read_input<Case>(inputs), model);
  };
  return impl;
}

// A registry entry: the claim (data) and its implementation.
struct PropertyDef {
  PropertyInfo info;
  PropertyImpl impl;
};

}  // namespace pecheck
