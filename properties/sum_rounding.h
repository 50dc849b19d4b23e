#pragma once
// The size a sum's rounding errors are relative to, for the tight bounds
// (BoundTerm::typical_scale). Each addition of a sum rounds relative to the
// partial sum it forms and each product relative to itself, so their errors,
// apart, add to u·√(Σ_k t_k² + Σ_k s_k²): Higham & Mary's (2019) model before
// it bounds every |s_k| by Σ|t_k|, which only a sum whose terms share one sign
// reaches. A sum with cancellation (a projection of random signs, a logit)
// has partial sums about √n times smaller, and so does its error.
#include <Eigen/Core>

namespace pecheck::rounding {

// Σ_k (t_k² + s_k²) for the terms t_k = a_k·b_k added in order to `sum`,
// which ends as the sum (s_k: each partial sum formed).
template <class A, class B>
double product_squares(const A& a, const B& b, double& sum) {
  double squares = 0;
  for (Eigen::Index k = 0; k < a.size(); ++k) {
    const double t = a(k) * b(k);
    sum += t;
    squares += t * t + sum * sum;
  }
  return squares;
}

}  // namespace pecheck::rounding
