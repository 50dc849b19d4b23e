#pragma once
// Yardsticks for the gradient tests (test_grad, test_grad_modules): a
// deterministic matrix, a VJP by central differences, and the largest
// entrywise gap. The tests' own check of pecheck's analytic references —
// never a reference pecheck judges by.
#include <cmath>
#include <functional>

#include "pecheck/core/matrix.h"

namespace pecheck::testing {

// rows × cols entries 0.9·sin(seed + 1.37·i), i in storage order.
inline Matrix filled(Eigen::Index rows, Eigen::Index cols, double seed) {
  Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = std::sin(seed + 1.37 * static_cast<double>(i)) * 0.9;
  return m;
}

// ⟨g, f(x + h e) − f(x − h e)⟩ / 2h for each entry e of x: the VJP by central differences.
inline Matrix numeric_vjp(const std::function<Matrix(const Matrix&)>& f, const Matrix& x, const Matrix& g) {
  const double h = 1e-6;
  Matrix out(x.rows(), x.cols());
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    Matrix up = x, down = x;
    up.data()[i] += h;
    down.data()[i] -= h;
    out.data()[i] = (g.cwiseProduct(f(up) - f(down))).sum() / (2 * h);
  }
  return out;
}

inline double gap(const Matrix& a, const Matrix& b) { return (a - b).cwiseAbs().maxCoeff(); }

}  // namespace pecheck::testing
