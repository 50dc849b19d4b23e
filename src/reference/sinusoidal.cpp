#include "pecheck/reference/sinusoidal.h"

#include <cmath>

namespace pecheck::reference {

double frequency(int pair, int dim) {
  return std::pow(10000.0, -2.0 * pair / static_cast<double>(dim));
}

int sin_index(int pair, int /*dim*/, Layout layout) {
  return layout == Layout::halves ? pair : 2 * pair;
}

int cos_index(int pair, int dim, Layout layout) {
  return layout == Layout::halves ? dim / 2 + pair : 2 * pair + 1;
}

Matrix sinusoidal(int dim, const Positions& positions, Layout layout, double amplitude) {
  Matrix out = Matrix::Zero(static_cast<Eigen::Index>(positions.size()), dim);
  const int pairs = (dim + 1) / 2;
  for (int i = 0; i < pairs; ++i) {
    const double w = frequency(i, dim);
    const int si = sin_index(i, dim, layout), ci = cos_index(i, dim, layout);
    for (size_t r = 0; r < positions.size(); ++r) {
      const double angle = static_cast<double>(positions[r]) * w;
      out(static_cast<Eigen::Index>(r), si) = amplitude * std::sin(angle);
      if (ci < dim && (layout != Layout::halves || 2 * i + 1 < dim)) {
        out(static_cast<Eigen::Index>(r), ci) = amplitude * std::cos(angle);
      }
    }
  }
  return out;
}

}  // namespace pecheck::reference
