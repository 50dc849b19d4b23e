#pragma once
// The one judge: bounds from the error model bound to a property and a
// subject, each sub-check's verdict, the verdict of a case, and the status of
// a property × subject against its expectation. The runner, replay and the
// C++ adapter all judge here.
#include <string>
#include <string_view>
#include <vector>

#include "pecheck/core/claim.h"
#include "pecheck/core/tolerance.h"
#include "pecheck/core/vocabulary.h"
#include "pecheck/result/check.h"

namespace pecheck {

// The error model bound to one property id and one subject's precision: the
// only way a bound is computed, so an override for an id reaches every bound
// of that property, by construction.
class BoundModel {
 public:
  BoundModel(const ErrorModel& model, std::string_view property, const SubjectInfo& subject);

  Dtype dtype(Stage stage) const;
  double u(Stage stage) const;
  double factor() const { return factor_; }
  // The bound and its formula; a fixed bound from configuration replaces any other.
  Tolerance evaluate(const Bound& bound) const;
  // The bound alone, without its formula's text (measurements comparing many candidates call this per entry).
  double value(const Bound& bound) const;

 private:
  double factor_;
  std::optional<double> fixed_;
  Dtype values_, angles_, accumulate_;
};

enum class CheckVerdict { pass, fail, uncheckable };
std::string_view name(CheckVerdict verdict);

struct JudgedCheck {
  Check check;
  Tolerance tolerance;
  CheckVerdict verdict = CheckVerdict::pass;
  // How close to its bound the check came: error / bound (upper), bound /
  // value (lower); infinite for a NaN or past a zero bound.
  double ratio() const;
};

struct CaseJudgement {
  std::vector<JudgedCheck> checks;
  std::string note;
  CheckVerdict verdict = CheckVerdict::pass;  // fail if any fails; else uncheckable if any is; else pass
  // The check that decides: the failing one furthest past its bound, else the
  // closest call. Undefined for a measurement with no checks (the judge
  // rejects those).
  const JudgedCheck& deciding() const;
};

// Judges every check. Throws std::logic_error for a measurement without
// checks or with a check whose name `declared` does not list: a property
// that measures nothing is a defect of the property, never a pass.
// `with_formulas` false: each tolerance carries its bound alone (no formula,
// judged_by or worst case), for the search's every case; the runner words
// only the checks it keeps (with_formula), since formatting every formula of
// every case was a fifth of a cheap claim's time.
CaseJudgement judge(Measurement measurement, const BoundModel& model, const std::vector<std::string>& declared,
                    bool with_formulas = true);
// Fills a check judged without its formula in (the same bound, worded).
void with_formula(JudgedCheck& check, const BoundModel& model);

// What a property × subject did, against what it was expected to do.
enum class Status { passed, failed, error, skipped };
std::string_view name(Status status);

}  // namespace pecheck
