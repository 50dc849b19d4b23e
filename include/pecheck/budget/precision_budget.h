#pragma once
// The precision budget: for an encoder or rotary subject, the largest position
// (context length) up to which a structural property holds within one fixed
// absolute tolerance — "holds to 3.9e-3 up to position 2048; fails beyond".
//
// Search: the property's own generator and measure, run with a small case
// count at growing RunOptions::max_position (16, 32, 64, … up to a limit) until
// a case fails, then bisection between the last passing and the first failing
// limit. The bound is fixed through ErrorModel::absolute, so it does not grow
// with position as the error model's own bound does: the budget says where the
// error the dtype causes outgrows the target. The target is the same for every
// subject of a run, so budgets of float16 and float32 compare directly.
//
// Random testing finds failures, it cannot prove their absence: "holds up to
// L" means no case failed among `cases_per_step` cases with positions up to L
// (at several L), and the failing limit comes with a shrunk witness.
#include <optional>
#include <string>

#include "pecheck/core/tolerance.h"
#include "pecheck/property/property.h"
#include "pecheck/result/budget.h"
#include "pecheck/runner/session.h"

namespace pecheck {

struct BudgetOptions {
  int cases_per_step = 100;
  Position start = 16;              // first max_position tried
  Position limit = Position{1} << 20;  // largest max_position tried
  double seconds = 2.0;             // time allowance per property × subject
  std::optional<double> target;     // absolute tolerance; default: default_budget_target
};

// The default target: the error model's bound for one rounding at unit scale
// in float16, factor · u(float16) · 1 · 1 (3.9e-3 with the default factor 8):
// the accuracy a unit-scale value can have in the lowest precision pecheck
// knows, free of the model's size and position terms.
Tolerance default_budget_target(double factor);
Tolerance budget_target(const BudgetOptions& options, double factor);

// True for the structural properties a budget is searched for: applicable to
// an encoder or rotary subject and expected to hold on it (the claims table
// marks reference values at fixed points as not structural).
bool has_budget(const PropertyInfo& property, const SubjectInfo& subject, Expect expectation);

PrecisionBudget search_budget(const PropertyDef& property, Subject& subject, const RunOptions& run,
                              const BudgetOptions& options);

// The step of a plan (--budget): a budget for every structural property that
// held on an encoder or rotary subject that did not fail.
std::shared_ptr<FinishStep> budget_step(BudgetOptions options = {});

}  // namespace pecheck
