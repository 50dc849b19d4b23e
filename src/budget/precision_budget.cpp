#include "pecheck/budget/precision_budget.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "pecheck/core/op_table.h"

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

bool has_budget(const PropertyInfo& property, const SubjectInfo& subject, Expect expectation) {
  const bool positional = op_row(property.op).positional;
  return positional && property.structural && property.applies_to(subject) && expectation == Expect::holds;
}

PrecisionBudget search_budget(const PropertyDef& property, Subject& subject, const RunOptions& run,
                              const BudgetOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const Tolerance target = budget_target(options, run.error_model.factor);

  PrecisionBudget b;
  b.property = property.info.id;
  b.subject = format_spec(subject.info().spec);
  b.dtype = std::string(name(subject.info().dtype));
  b.target = target.bound;
  b.target_formula = target.formula;
  b.cases_per_step = options.cases_per_step;

  RunOptions step = run;
  step.cases = options.cases_per_step;
  step.reproduce.clear();
  step.shrink = false;  // only the final failing limit is shrunk, for its witness
  step.error_model.absolute[property.info.id] = target.bound;
  bool broken = false;
  // True when no case failed with positions up to `limit`.
  auto holds_up_to = [&](Position limit) {
    step.max_position = limit;
    ++b.steps;
    b.search_limit = std::max(b.search_limit, limit);
    const PropertyResult r = run_cell(property, subject, step, Expect::holds);
    if (!r.held() && !r.violation()) {
      broken = true;
      b.stopped_early = true;
      b.note = "search stopped: " + r.message();
    }
    return r.violation() == nullptr;
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
    const PropertyResult r = run_cell(property, subject, step, Expect::holds);
    if (const Counterexample* c = r.counterexample()) {
      b.witness = c->inputs;
      b.witness_error = c->error;
      b.witness_where = c->where();
      // Shrinking drives positions down to the smallest that still fails: a
      // sharper edge than the bisection's, whose cases are spread over [0, limit].
      b.witness_position = std::max(c->location.position.value_or(0), c->location.other_position.value_or(0));
      if (b.witness_position > 0 && b.witness_position <= b.holds_up_to) b.holds_up_to = b.witness_position - 1;
    }
  }
  b.seconds = elapsed();
  return b;
}

namespace {

class BudgetStep final : public FinishStep {
 public:
  explicit BudgetStep(BudgetOptions options) : options_(std::move(options)) {}
  void finish(Plan& plan, RunReport& report) override {
    BudgetOptions options = options_;
    if (plan.options.precision_target) options.target = plan.options.precision_target;
    for (auto& planned : plan.subjects) {
      if (!planned.subject) continue;
      // A spent time budget asks the subjects nothing more (the budgets not searched are not reported).
      if (plan.options.deadline && std::chrono::steady_clock::now() >= *plan.options.deadline) return;
      const std::string spec = format_spec(planned.spec);
      const bool failed = std::any_of(report.results.begin(), report.results.end(), [&](const PropertyResult& r) {
        return r.subject == spec && r.subject_failure() != nullptr;
      });
      if (failed) continue;  // the harness stops talking to a subject that broke
      for (const auto& r : report.results) {
        if (r.subject != spec || r.status() != Status::passed || !r.held()) continue;
        const auto p = std::find_if(planned.properties.begin(), planned.properties.end(),
                                    [&](const PropertyDef* d) { return d->info.id == r.property; });
        if (p == planned.properties.end() || !has_budget((*p)->info, planned.subject->info(), r.expectation)) continue;
        report.budgets.push_back(search_budget(**p, *planned.subject, plan.options, options));
      }
    }
  }

 private:
  BudgetOptions options_;
};

}  // namespace

std::shared_ptr<FinishStep> budget_step(BudgetOptions options) { return std::make_shared<BudgetStep>(std::move(options)); }

}  // namespace pecheck
