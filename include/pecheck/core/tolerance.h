#pragma once
// The error model: how far a correct implementation computing in a given
// dtype may stray from exact arithmetic, for a computation of a given size.
//
//   bound = factor · Σ_stages u(stage dtype) · work · scale
//
// `u` is the unit roundoff of the precision the subject declares for the
// stage (its dtype, or `compute.angles` / `compute.accumulate`), `work` the
// number of rounding steps that accumulate into one compared value (d terms
// of a dot product, 1 + |t·ω| for an angle), and `scale` the magnitude the
// error is relative to. `factor` is a safety multiple, default 8, overridable
// globally and per property; a bound can also be fixed per property. These
// are data, printed with every verdict. The model is bound to one property
// and one subject by result/judge.h (BoundModel): a measurement never names its id.
#include <map>
#include <optional>
#include <string>

namespace pecheck {

// The safety multiple every front end starts from (the CLI, pecheck.toml,
// the C++ adapter, replay of files that record none).
inline constexpr double kDefaultToleranceFactor = 8;

struct Tolerance {
  double bound = 0;       // the measured error must be <= bound (or the value >= it, for a lower bound)
  std::string formula;    // how bound was derived, for the reports
  // Where a tight bound was formed (issue 36, result/tight_bound.h): which
  // bound judged ("same-dtype reference", "probabilistic", "worst case") and
  // the worst case, the ceiling the judged bound never exceeds. Empty and
  // unset where the worst case was the only bound.
  std::string judged_by;
  std::optional<double> worst_case;
};

struct ErrorModel {
  double factor = kDefaultToleranceFactor;     // default safety multiple
  std::map<std::string, double> overrides;     // property id -> factor
  std::map<std::string, double> absolute;      // property id -> fixed bound
};

}  // namespace pecheck
