#pragma once
// The rounding work in one angle θ = t·ω of a positional encoding or a
// rotation, shared by the pe and rope families and the diagnosis: the error
// of θ relative to u (the angle stage's unit roundoff), plus the sine or
// cosine and one more rounding on that path (an amplitude, YaRN's factor).
//
//   t and the product t·ω:          2·|t·ω|
//   ω itself, as real code forms it: exp(−i·ln(b)/(h−1)) or b^(−2i/d) of a
//     rounded exponent carries a relative error of |ln ω|·u, plus one for the
//     exp/pow and the division:      (1 + |ln ω|)·|t·ω|
//   a scaling family's blend of ω (llama3, YaRN, NTK's base): 3 more.
// ω·|ln ω| ≤ 1/e for ω ≤ 1, so the slow pairs cost little even at large t.
#include <algorithm>
#include <cmath>
#include <vector>

namespace pecheck {

inline double angle_work(double t, double omega, bool scaled = false) {
  const double w = std::fabs(omega);
  if (w == 0) return 2;
  return 2 + std::fabs(t) * w * (3 + std::fabs(std::log(w)) + (scaled ? 3 : 0));
}

// The largest over the frequencies of a width.
inline double max_angle_work(double t, const std::vector<double>& omegas, bool scaled = false) {
  double out = 2;
  for (double w : omegas) out = std::max(out, angle_work(t, w, scaled));
  return out;
}

}  // namespace pecheck
