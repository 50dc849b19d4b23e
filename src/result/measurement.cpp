#include "pecheck/result/measurement.h"

#include <limits>

namespace pecheck {

double Measurement::ratio() const {
  if (std::isnan(error)) return std::numeric_limits<double>::infinity();
  if (tolerance.bound > 0) return error / tolerance.bound;
  return error > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

}  // namespace pecheck
