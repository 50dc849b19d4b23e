#include "pecheck/result/judge.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "pecheck/result/tight_bound.h"

namespace pecheck {

BoundModel::BoundModel(const ErrorModel& model, std::string_view property, const SubjectInfo& subject)
    : factor_(model.factor),
      values_(subject.dtype),
      angles_(subject.angles_dtype()),
      accumulate_(subject.accumulate_dtype()) {
  const std::string id(property);
  if (auto it = model.overrides.find(id); it != model.overrides.end()) factor_ = it->second;
  if (auto it = model.absolute.find(id); it != model.absolute.end()) fixed_ = it->second;
}

Dtype BoundModel::dtype(Stage stage) const {
  switch (stage) {
    case Stage::values: return values_;
    case Stage::angles: return angles_;
    case Stage::accumulate: return accumulate_;
  }
  return values_;
}

double BoundModel::u(Stage stage) const { return unit_roundoff(dtype(stage)); }

double BoundModel::value(const Bound& b) const {
  if (fixed_) return *fixed_;
  if (b.kind == Bound::Kind::exact) return 0.0;
  double sum = 0;
  for (const auto& t : b.terms) sum += u(t.stage) * t.work * t.scale;
  const double worst = factor_ * sum + b.fixed;
  // The worst case is a ceiling: a tight bound judges wherever it is smaller.
  if (const auto tight = tight_bound_value(*this, b)) return std::min(worst, *tight);
  return worst;
}

Tolerance BoundModel::evaluate(const Bound& b) const {
  if (fixed_) return {*fixed_, fmt::format("{:.3g} (fixed by configuration)", *fixed_)};
  if (b.kind == Bound::Kind::exact) return {0.0, fmt::format("0 (exact: {})", b.what)};
  double sum = 0;
  for (const auto& t : b.terms) sum += u(t.stage) * t.work * t.scale;
  const double value = this->value(b);
  std::string formula;
  if (b.terms.size() == 1) {
    const auto& t = b.terms.front();
    formula = fmt::format("{:g} · u({}) · {} = {:g} · {:.3g} · {:.4g} · {:.4g} = {:.3g}", factor_,
                          name(dtype(t.stage)), b.what, factor_, u(t.stage), t.work, t.scale, factor_ * sum);
  } else {
    std::string parts, numbers;
    for (const auto& t : b.terms) {
      parts += fmt::format("{}u({})", parts.empty() ? "" : " + ", name(dtype(t.stage)));
      numbers += fmt::format("{}{:.3g} · {:.4g} · {:.4g}", numbers.empty() ? "" : " + ", u(t.stage), t.work, t.scale);
    }
    formula = fmt::format("{:g} · ({}) · [{}] = {:g} · ({}) = {:.3g}", factor_, parts, b.what, factor_, numbers,
                          factor_ * sum);
  }
  if (b.fixed != 0) {
    formula = fmt::format("{:g} ({}) + {} = {:.3g}", b.fixed, b.fixed_why, formula, factor_ * sum + b.fixed);
  }
  const double worst = factor_ * sum + b.fixed;
  if (const auto tight = tight_value(*this, b)) {
    // Both bounds are printed; the smaller judged (the worst case stays the ceiling).
    if (tight->bound < worst) {
      return {value, fmt::format("{:.3g} judged by the {}: {}; worst case {}", value, tight->judged_by, tight->formula, formula),
              tight->judged_by, worst};
    }
    return {value, fmt::format("{:.3g} judged by the worst case: {}; {} {}", value, formula, tight->judged_by, tight->formula),
            "worst case", worst};
  }
  return {value, std::move(formula)};
}

std::string_view name(CheckVerdict verdict) {
  switch (verdict) {
    case CheckVerdict::pass: return "pass";
    case CheckVerdict::fail: return "fail";
    case CheckVerdict::uncheckable: return "not checkable";
  }
  return "?";
}

double JudgedCheck::ratio() const {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const double e = check.error, b = tolerance.bound;
  if (std::isnan(e)) return inf;
  if (check.bound.kind == Bound::Kind::lower) {
    if (b <= 0) return e > 0 ? 0.0 : inf;
    return e > 0 ? b / e : inf;
  }
  if (b > 0) return e / b;
  return e > 0 ? inf : 0.0;
}

namespace {

CheckVerdict verdict_of(const Check& c, const Tolerance& t) {
  if (c.bound.ceiling && t.bound >= *c.bound.ceiling) return CheckVerdict::uncheckable;
  if (std::isnan(c.error)) return CheckVerdict::fail;
  if (c.bound.kind == Bound::Kind::lower) return c.error >= t.bound ? CheckVerdict::pass : CheckVerdict::fail;
  return c.error <= t.bound ? CheckVerdict::pass : CheckVerdict::fail;
}

}  // namespace

const JudgedCheck& CaseJudgement::deciding() const {
  const JudgedCheck* best = nullptr;
  for (const auto& c : checks) {
    const bool wanted = verdict == CheckVerdict::uncheckable ? c.verdict == CheckVerdict::uncheckable
                                                              : c.verdict == verdict;
    if (!wanted) continue;
    if (best == nullptr || c.ratio() > best->ratio()) best = &c;
  }
  return best != nullptr ? *best : checks.front();
}

void with_formula(JudgedCheck& check, const BoundModel& model) {
  if (check.tolerance.formula.empty()) check.tolerance = model.evaluate(check.check.bound);
}

CaseJudgement judge(Measurement m, const BoundModel& model, const std::vector<std::string>& declared,
                    bool with_formulas) {
  if (m.checks.empty()) throw std::logic_error("the measurement has no checks: it measured nothing");
  CaseJudgement out;
  out.note = std::move(m.note);
  bool failed = false, uncheckable = false;
  for (auto& c : m.checks) {
    if (std::find(declared.begin(), declared.end(), c.name) == declared.end()) {
      throw std::logic_error(fmt::format("the measurement returned the undeclared sub-check '{}'", c.name));
    }
    Tolerance t = with_formulas ? model.evaluate(c.bound) : Tolerance{model.value(c.bound), {}, {}, {}};
    const CheckVerdict v = verdict_of(c, t);
    failed |= v == CheckVerdict::fail;
    uncheckable |= v == CheckVerdict::uncheckable;
    out.checks.push_back({std::move(c), std::move(t), v});
  }
  out.verdict = failed ? CheckVerdict::fail : uncheckable ? CheckVerdict::uncheckable : CheckVerdict::pass;
  return out;
}

std::string_view name(Status s) {
  switch (s) {
    case Status::passed: return "passed";
    case Status::failed: return "failed";
    case Status::error: return "error";
    case Status::skipped: return "skipped";
  }
  return "?";
}

}  // namespace pecheck
