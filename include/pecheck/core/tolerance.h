#pragma once
// The error model: how far a correct implementation computing in a given
// dtype may stray from exact arithmetic, for a computation of a given size.
//
//   bound = factor · u(dtype) · work · scale   (+ an absolute floor for float64)
//
// `u` is the unit roundoff of the subject's declared dtype, `work` the number of
// rounding steps that accumulate into one compared value (e.g. d terms of a dot
// product, or 1 + |t·ω| for an angle), and `scale` the magnitude the error is
// relative to. `factor` is a safety multiple, default 8, overridable globally
// and per property: these are data, printed with every verdict.
#include <map>
#include <string>

#include "pecheck/core/dtype.h"

namespace pecheck {

struct Tolerance {
  double bound = 0;       // the measured error must be <= bound
  std::string formula;    // how bound was derived, for the reports
};

struct ErrorModel {
  Dtype dtype = Dtype::float64;
  double factor = 8;                           // default safety multiple
  std::map<std::string, double> overrides;     // property id -> factor
  std::map<std::string, double> absolute;      // property id -> fixed bound

  double u() const { return unit_roundoff(dtype); }
  double factor_for(const std::string& property) const;

  // bound = factor · u · work · scale; `what` names work and scale in words.
  Tolerance bound(const std::string& property, double work, double scale,
                  const std::string& what) const;
  // The bound for a claim that is exact in IEEE arithmetic (x + 0 = x).
  Tolerance exact(const std::string& property, const std::string& why) const;
};

}  // namespace pecheck
