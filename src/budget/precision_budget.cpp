#include "pecheck/budget/precision_budget.h"

#include <fmt/format.h>

#include <chrono>

namespace pecheck {

Tolerance default_budget_target(double factor) {
  const double u = unit_roundoff(Dtype::float16);
  const double bound = factor * u;
  return {bound, fmt::format("{:g} · u(float16) · 1 · 1 = {:.3g} (one rounding at unit scale in float16, "
                             "the same for every subject; --precision-target sets another)",
                             factor, bound)};
}

Tolerance budget_target(const BudgetOptions& options, double factor) {
  if (options.target) return {*options.target, fmt::format("{:.3g} (--precision-target)", *options.target)};
  return default_budget_target(factor);
}

namespace {

// The largest integer held under a key naming a position ("position",
// "positions", "query_position", …) anywhere in a property's input.
Position largest_position(const json& value, bool positional = false) {
  Position best = 0;
  if (value.is_number_integer() && positional) return std::max<Position>(0, value.get<Position>());
  if (value.is_array()) {
    for (const auto& x : value) best = std::max(best, largest_position(x, positional));
  } else if (value.is_object()) {
    for (const auto& [key, x] : value.items()) {
      best = std::max(best, largest_position(x, key.find("position") != std::string::npos));
    }
  }
  return best;
}

}  // namespace

bool has_budget(const PropertyInfo& property, const SubjectInfo& subject, Expect expectation) {
  const bool positional = property.op == Op::encode || property.op == Op::rotate;
  return positional && property.applies_to(subject) && expectation == Expect::holds &&
         property.id != "pe.reference_values";
}

PrecisionBudget search_budget(const PropertyDef& property, Subject& subject, const RunConfig& config,
                              const BudgetOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const Tolerance target = budget_target(options, config.model.factor);

  PrecisionBudget b;
  b.property = property.info.id;
  b.subject = subject.info().spec;
  b.dtype = std::string(name(subject.info().dtype));
  b.target = target.bound;
  b.target_formula = target.formula;
  b.cases_per_step = options.cases_per_step;

  RunConfig step = config;
  step.cases = options.cases_per_step;
  step.reproduce.clear();
  step.shrink = false;  // only the final failing limit is shrunk, for its witness
  step.model.absolute[property.info.id] = target.bound;
  bool broken = false;
  // True when no case failed with positions up to `limit`.
  auto holds_up_to = [&](Position limit) {
    step.max_position = limit;
    ++b.steps;
    b.search_limit = std::max(b.search_limit, limit);
    const PropertyResult r = property.run(subject, step);
    if (r.outcome == Outcome::error) {
      broken = true;
      b.stopped_early = true;
      b.note = "search stopped: " + r.message;
    }
    return r.outcome != Outcome::violated;
  };

  Position passed = 0, failed = 0;
  for (Position limit = std::max<Position>(1, options.start);; limit = std::min(limit * 2, options.limit)) {
    if (!holds_up_to(limit)) {
      failed = limit;
      break;
    }
    if (broken) break;
    passed = limit;
    if (limit >= options.limit) break;
    if (elapsed() > options.seconds) {
      b.stopped_early = true;
      break;
    }
  }
  while (failed > 0 && !broken && failed - passed > 1) {
    if (elapsed() > options.seconds) {
      b.stopped_early = true;
      break;
    }
    const Position mid = passed + (failed - passed) / 2;
    (holds_up_to(mid) ? passed : failed) = mid;
  }
  b.holds_up_to = passed;
  b.fails_from = failed;
  if (failed > 0 && !broken) {
    // The witness: the failing limit once more, shrunk (positions shrink toward the smallest that fails).
    step.max_position = failed;
    step.shrink = true;
    const PropertyResult r = property.run(subject, step);
    if (r.counterexample) {
      b.witness = r.counterexample->inputs;
      b.witness_error = r.counterexample->error;
      b.witness_where = r.counterexample->where;
      // Shrinking drives positions down to the smallest that still fails: a
      // sharper edge than the bisection's, whose cases are spread over [0, limit].
      b.witness_position = largest_position(b.witness);
      if (b.witness_position > 0 && b.witness_position <= b.holds_up_to) b.holds_up_to = b.witness_position - 1;
    }
  }
  b.seconds = elapsed();
  return b;
}

}  // namespace pecheck
