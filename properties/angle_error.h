#pragma once
// The rounding work in one angle θ = t·ω of a positional encoding or a
// rotation, shared by the pe and rope families and the diagnosis: the error
// of θ relative to u (the angle stage's unit roundoff), plus the sine or
// cosine and one more rounding on that path (an amplitude, YaRN's or
// LongRoPE's factor on the table).
//
//   t and the product t·ω:          2·|t·ω|
//   ω itself, as real code forms it: exp(−i·ln(b)/(h−1)) or b^(−2i/d) of a
//     rounded exponent carries a relative error of |ln ω|·u, plus one for the
//     exp/pow and the division:      (1 + |ln ω|)·|t·ω|
//   what a convention does to ω beyond that (frequency_work):
//     a scaling family's blend (linear, ntk's base, llama3, YaRN):  3
//     LongRoPE's 1/(ext_i·base^(2i/r)): the product and the inverse  2
//     per-pair freq_factors, ω/ff_i: one more division               1
// ω·|ln ω| ≤ 1/e for ω ≤ 1, so the slow pairs cost little even at large t.
// A multi-axis position or a layout moves no rounding.
#include <algorithm>
#include <cmath>
#include <vector>

#include "pecheck/core/conventions.h"

namespace pecheck {

// The roundings the declared convention adds to each ω_i (see above).
inline int frequency_work(const RotateConvention& c) {
  int work = 0;
  if (c.scaling.type == ScalingType::longrope) {
    work += 2;
  } else if (c.scaling.type != ScalingType::none) {
    work += 3;
  }
  if (!c.freq_factors.empty()) work += 1;
  return work;
}

inline double angle_work(double t, double omega, int frequency_roundings = 0) {
  const double w = std::fabs(omega);
  if (w == 0) return 2;
  return 2 + std::fabs(t) * w * (3 + std::fabs(std::log(w)) + frequency_roundings);
}
// A flag is not a rounding count: say how many (frequency_work).
double angle_work(double t, double omega, bool) = delete;

// The largest over the frequencies of a width.
inline double max_angle_work(double t, const std::vector<double>& omegas, int frequency_roundings = 0) {
  double out = 2;
  for (double w : omegas) out = std::max(out, angle_work(t, w, frequency_roundings));
  return out;
}
double max_angle_work(double t, const std::vector<double>& omegas, bool) = delete;

}  // namespace pecheck
