#pragma once
// A property implementation = a generator of inputs + a measurement, bound to
// a claim id of the registry (property/registry.h). `define<Case>` erases the
// input type so the registry is a flat table that the CLI, the reports, replay
// and the Boost.Test front end all read.
//
// The measurement returns named sub-checks (result/check.h); it never sees its
// own id, a tolerance factor or a verdict. The runner implements CaseSink: it
// binds the error model to the id, calls the measurement, judges it and tells
// RapidCheck — so the property layer depends on nothing above it.
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
};

// A recorded input that does not fit its property (wrong type, shape, range).
struct InvalidInput : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Implemented by the runner: measures one case, judges it, and returns
// RapidCheck's verdict for it.
class CaseSink {
 public:
  virtual ~CaseSink() = default;
  virtual Subject& subject() = 0;
  virtual const BoundModel& model() const = 0;
  virtual rc::detail::CaseDescription evaluate(const std::function<Measurement()>& measure,
                                               const std::function<json()>& inputs) = 0;
  // Look-ahead batching (src/runner/lookahead.h). A property gives a Preview:
  // it draws the case its generator draws at (random, size), once, and the
  // look-ahead measures that case against a recorder (as often as its rounds
  // need) to learn its requests before RapidCheck reaches it. A property that
  // gives none is never looked ahead for.
  class PreviewCase {
   public:
    virtual ~PreviewCase() = default;
    virtual void measure(Subject& recorder) const = 0;
  };
  using Preview = std::function<std::shared_ptr<const PreviewCase>(const rc::Random& random, int size)>;
  virtual void preview(Preview) {}
  // The case drawn for the preview at (random, size), when the search is
  // about to draw that very case: the search takes it instead of drawing it
  // again. Null when there is none.
  virtual std::shared_ptr<const PreviewCase> previewed(const rc::Random& /*random*/, int /*size*/) { return nullptr; }
  // Whether the search should hand the cases it draws itself to drawn(), for
  // the look-ahead to measure rather than draw them again.
  virtual bool looks_ahead() const { return false; }
  virtual void drawn(const rc::Random& /*random*/, int /*size*/, std::shared_ptr<const PreviewCase> /*drawn*/) {}
  // A subject the measurement talks to besides subject() (history_independence
  // runs its script on a fresh copy): what it returns forwards to `other` and
  // counts its requests in the case's coverage, as subject()'s are. Valid
  // until the next call.
  virtual Subject& watched(Subject& other) { return other; }
};

namespace detail {
// A case drawn once: its value, and the shrinks of the Shrinkable it came from.
template <class Case>
struct DrawnCase final : CaseSink::PreviewCase {
  using Measure = std::function<void(Subject&, const Case&)>;
  DrawnCase(rc::Shrinkable<Case> drawn, std::shared_ptr<const Measure> measure_with)
      : shrinkable(std::move(drawn)), value(shrinkable.value()), measure_with(std::move(measure_with)) {}
  void measure(Subject& recorder) const override { (*measure_with)(recorder, value); }
  rc::Shrinkable<Case> shrinkable;
  Case value;
  std::shared_ptr<const Measure> measure_with;  // one for all of a cell's cases
};

// A Shrinkable whose value is known already (RapidCheck's Shrinkable concept:
// value() and shrinks()); it shrinks as the one it was drawn as.
template <class Case>
struct KnownValue {
  std::shared_ptr<const DrawnCase<Case>> drawn;
  Case value() const { return drawn->value; }
  rc::Seq<rc::Shrinkable<Case>> shrinks() const { return drawn->shrinkable.shrinks(); }
};

// `inputs`, except that a case the look-ahead has drawn already is taken
// from it, and one it has not is handed to it once drawn.
template <class Case>
rc::Gen<Case> reusing_previews(rc::Gen<Case> inputs, CaseSink& sink,
                               std::shared_ptr<const typename DrawnCase<Case>::Measure> against_recorder) {
  return rc::Gen<Case>([inputs = std::move(inputs), &sink, against_recorder](const rc::Random& random, int size) {
    if (!sink.looks_ahead()) return inputs(random, size);
    auto drawn = std::dynamic_pointer_cast<const DrawnCase<Case>>(sink.previewed(random, size));
    if (!drawn) {
      drawn = std::make_shared<const DrawnCase<Case>>(inputs(random, size), against_recorder);
      sink.drawn(random, size, drawn);
    }
    return rc::makeShrinkable<KnownValue<Case>>(std::move(drawn));
  });
}
}  // namespace detail

template <class Case>
using GenFn = std::function<rc::Gen<Case>(const GenContext&)>;
template <class Case>
using MeasureFn = std::function<Measurement(Subject&, const Case&, const BoundModel&)>;

struct PropertyImpl {
  std::string id;                     // the claim it implements (a row of the claims table)
  std::vector<std::string> checks;    // the names of the sub-checks its measurement returns
  // The cases RapidCheck runs: generated inputs, each measured through `sink`.
  std::function<rc::Gen<rc::detail::CaseDescription>(const GenContext&, CaseSink&)> cases;
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

// Case must be copyable and convertible to and from JSON (to_json/from_json).
template <class Case>
PropertyImpl define(std::string id, std::vector<std::string> checks, GenFn<Case> generate, MeasureFn<Case> measure) {
  PropertyImpl impl;
  impl.id = std::move(id);
  impl.checks = std::move(checks);
  impl.cases = [generate, measure](const GenContext& context, CaseSink& sink) {
    const rc::Gen<Case> inputs = generate(context);
    using Drawn = detail::DrawnCase<Case>;
    auto against_recorder = std::make_shared<const typename Drawn::Measure>(
        [measure, &sink](Subject& recorder, const Case& input) { measure(recorder, input, sink.model()); });
    sink.preview([inputs, against_recorder](const rc::Random& random, int size) {
      return std::make_shared<const Drawn>(inputs(random, size), against_recorder);
    });
    return rc::gen::map(detail::reusing_previews(inputs, sink, against_recorder), [&sink, measure](const Case& input) {
      return sink.evaluate([&] { return measure(sink.subject(), input, sink.model()); }, [&] { return json(input); });
    });
  };
  impl.remeasure = [measure](Subject& subject, const json& inputs, const BoundModel& model) {
    return measure(subject, read_input<Case>(inputs), model);
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
