#pragma once
// What a property returns for one input: the measured error and the bound it
// is judged against (measure, then judge — e3nn's discipline).
#include <cmath>
#include <string>

#include "pecheck/core/json.h"
#include "pecheck/core/tolerance.h"

namespace pecheck {

struct Measurement {
  double error = 0;          // measured error (a NaN error never passes)
  Tolerance tolerance;       // bound and the formula it came from
  std::string where;         // which entry the error is largest at, in words
  json observed;             // what the subject produced there
  json expected;             // what the claim requires there
  std::string note;          // optional: one sentence on what was compared

  bool ok() const { return error <= tolerance.bound; }  // false for NaN
  // error / bound: how close to the line this case came (inf when bound is 0).
  double ratio() const;
};

}  // namespace pecheck
