// The sinusoidal encoding evaluated in a subject's dtypes and exactly
// (reference/sinusoidal.h, sinusoidal_rounded / sinusoidal_exact): the
// same-dtype reference of the pe claims (issue 36, result/tight_bound.h).
// The rounded form rounds where real code does (fairseq's and tensor2tensor's
// get_timestep_embedding, Hugging Face's create_sinusoidal_embeddings): ω_i
// and t + offset in the angle dtype, the angle rounded there, its sine and
// cosine rounded there, cast to the values' dtype and scaled by the
// amplitude. The exact form carries the angle to long double's accuracy
// (sinusoidal_exact), so a float64 subject's rounding of large angles is
// measured rather than defined away.
#include <cmath>
#include <map>
#include <vector>

#include "pecheck/core/dtype.h"
#include "pecheck/reference/sinusoidal.h"

namespace pecheck::reference {

namespace {

constexpr std::size_t kCachedWidths = 256;  // per thread and form: every even width to 512

// The ω_i of a width, each rounded by `angle` (`tag` names that rounding):
// computed once per thread and width. A pe claim asks the same widths case
// after case, and their pow was a third of pe.offset_only_dot's time (stop 47).
template <class Real, class Angle>
const std::vector<Real>& frequencies(int dim, const EncodeConvention& convention, Angle angle, int tag) {
  struct Key {
    int dim = 0;
    double base = 0;
    Schedule schedule = Schedule::two_i_over_d;
    int tag = 0;
    auto operator<=>(const Key&) const = default;
  };
  thread_local std::map<Key, std::vector<Real>> cache;
  const Key key{dim, convention.base, convention.schedule, tag};
  if (const auto it = cache.find(key); it != cache.end()) return it->second;
  if (cache.size() >= kCachedWidths) cache.clear();
  const Real base = static_cast<Real>(convention.base);
  const Real exponent_scale = convention.schedule == Schedule::i_over_h_minus_1
                                  ? Real(1) / static_cast<Real>(dim / 2 - 1)
                                  : Real(2) / static_cast<Real>(dim);
  std::vector<Real> w((dim + 1) / 2);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = angle(std::pow(base, -static_cast<Real>(i) * exponent_scale));
  return cache.emplace(key, std::move(w)).first->second;
}

// The formula once, each stage's result passed through `angle` or `value` (a rounding).
template <class Angle, class Value>
Matrix evaluate(int dim, const Positions& positions, const EncodeConvention& convention, Angle angle, Value value,
                int tag) {
  (void)frequency(0, dim, convention);  // refuses what the convention leaves undefined
  Matrix out(static_cast<Eigen::Index>(positions.size()), dim);
  const int pairs = (dim + 1) / 2;
  const std::vector<double>& omegas = frequencies<double>(dim, convention, angle, tag);
  for (int i = 0; i < pairs; ++i) {
    const double w = omegas[static_cast<std::size_t>(i)];
    const int si = sin_index(i, dim, convention.layout), ci = cos_index(i, dim, convention.layout);
    for (size_t r = 0; r < positions.size(); ++r) {
      const auto row = static_cast<Eigen::Index>(r);
      const double theta = angle(angle(static_cast<double>(positions[r] + convention.position_offset)) * w);
      out(row, si) = value(convention.amplitude * value(angle(std::sin(theta))));
      if (ci < dim) {
        out(row, ci) = value(convention.amplitude * value(angle(std::cos(theta))));
      }
    }
  }
  return out;
}

}  // namespace

// The exact form, stored in double: θ = (t + offset)·ω with ω from its long
// double value as hi + lo, θ_hi = fl(t·hi) and its remainder δ = fma(t, hi,
// −θ_hi) + t·lo (fma gives the product's rounding error exactly), so θ_hi + δ
// carries ω's long double accuracy; then sin θ = sin θ_hi + δ·cos θ_hi and
// cos θ = cos θ_hi − δ·sin θ_hi to first order (|δ| ≤ u·|θ|: the second order
// is below 10⁻³⁰ at t = 10⁷). As accurate as the long double formula (whose θ
// rounds at 2⁻⁶⁴ of itself) to within double's sine, an ulp, and stored in
// double as it was, at a fraction of its cost: long double's sine and cosine
// (x87) took 170 ns a pair, most of pe.offset_only_dot's time (stop 47).
Matrix sinusoidal_exact(int dim, const Positions& positions, const EncodeConvention& convention) {
  (void)frequency(0, dim, convention);  // refuses what the convention leaves undefined
  Matrix out(static_cast<Eigen::Index>(positions.size()), dim);
  const auto none = [](long double x) { return x; };
  const std::vector<long double>& omegas = frequencies<long double>(dim, convention, none, -1);
  const double a = convention.amplitude;
  for (int i = 0; i < (dim + 1) / 2; ++i) {
    const long double w = omegas[static_cast<std::size_t>(i)];
    const double hi = static_cast<double>(w), lo = static_cast<double>(w - hi);
    const int si = sin_index(i, dim, convention.layout), ci = cos_index(i, dim, convention.layout);
    for (size_t r = 0; r < positions.size(); ++r) {
      const auto row = static_cast<Eigen::Index>(r);
      const double t = static_cast<double>(positions[r] + convention.position_offset);
      const double theta = t * hi;
      const double delta = std::fma(t, hi, -theta) + t * lo;
      const double sine = std::sin(theta), cosine = std::cos(theta);
      out(row, si) = std::fma(a, sine, a * cosine * delta);
      if (ci < dim) out(row, ci) = std::fma(a, cosine, -a * sine * delta);
    }
  }
  return out;
}

Matrix sinusoidal_rounded(int dim, const Positions& positions, const EncodeConvention& convention, Dtype values,
                          Dtype angles) {
  auto in_angles = [angles](double x) { return round_to(angles, x); };
  auto in_values = [values](double x) { return round_to(values, x); };
  return evaluate(dim, positions, convention, in_angles, in_values, static_cast<int>(angles));
}

}  // namespace pecheck::reference
