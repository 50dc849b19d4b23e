#include "pecheck/reference/modules.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace pecheck::reference {

Matrix layer_norm(const Matrix& x, const Vector& gamma, const Vector& beta, double eps) {
  Matrix out(x.rows(), x.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const double mean = x.row(r).mean();
    const double var = (x.row(r).array() - mean).square().mean();
    const double inv = 1.0 / std::sqrt(var + eps);
    out.row(r) = ((x.row(r).array() - mean) * inv * gamma.transpose().array() + beta.transpose().array()).matrix();
  }
  return out;
}

Matrix rms_norm(const Matrix& x, const Vector& weight, double eps) {
  Matrix out(x.rows(), x.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const double inv = 1.0 / std::sqrt(x.row(r).squaredNorm() / static_cast<double>(x.cols()) + eps);
    out.row(r) = (x.row(r).array() * inv * weight.transpose().array()).matrix();
  }
  return out;
}

Matrix relu(const Matrix& x) { return x.cwiseMax(0.0); }

Matrix gelu(const Matrix& x) {
  return x.unaryExpr([](double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); });
}

Matrix silu(const Matrix& x) {
  return x.unaryExpr([](double v) { return v / (1.0 + std::exp(-v)); });
}

Matrix affine(const Matrix& x, const Matrix& w, const Vector& b) {
  if (x.cols() != w.rows()) {
    throw std::invalid_argument(fmt::format("affine: {} features into a {}×{} map", x.cols(), w.rows(), w.cols()));
  }
  Matrix out = x * w;
  if (b.size() > 0) out.rowwise() += b.transpose();
  return out;
}

std::vector<double> rope_frequencies(int dim, double base) {
  if (dim < 2 || dim % 2 != 0) throw std::invalid_argument(fmt::format("a rotary head needs an even width, got {}", dim));
  std::vector<double> omega(static_cast<size_t>(dim / 2));
  for (int i = 0; i < dim / 2; ++i) omega[static_cast<size_t>(i)] = std::pow(base, -2.0 * i / dim);
  return omega;
}

double dynamic_ntk_base(double base, double factor, Position seq_len, Position original_max_position, int dim) {
  if (seq_len <= original_max_position) return base;
  const double ratio = factor * static_cast<double>(seq_len) / static_cast<double>(original_max_position);
  return base * std::pow(ratio - (factor - 1.0), static_cast<double>(dim) / (dim - 2));
}

Matrix rotate_halves(const Matrix& x, const Positions& positions, const std::vector<double>& frequencies) {
  const auto half = static_cast<Eigen::Index>(frequencies.size());
  if (x.cols() != 2 * half || static_cast<Eigen::Index>(positions.size()) != x.rows()) {
    throw std::invalid_argument(fmt::format("rotate_halves: {}×{} rows, {} positions, {} frequencies", x.rows(),
                                            x.cols(), positions.size(), frequencies.size()));
  }
  Matrix out(x.rows(), x.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const double t = static_cast<double>(positions[static_cast<size_t>(r)]);
    for (Eigen::Index i = 0; i < half; ++i) {
      const double theta = t * frequencies[static_cast<size_t>(i)];
      const double c = std::cos(theta), s = std::sin(theta);
      const double a = x(r, i), b = x(r, i + half);
      out(r, i) = a * c - b * s;
      out(r, i + half) = b * c + a * s;
    }
  }
  return out;
}

Matrix masked_attention(const Matrix& q, const Matrix& k, const Matrix& v, const BoolMatrix& allowed) {
  if (q.cols() != k.cols() || k.rows() != v.rows() || allowed.rows() != q.rows() || allowed.cols() != k.rows()) {
    throw std::invalid_argument(fmt::format("masked_attention: q {}×{}, k {}×{}, v {}×{}, mask {}×{}", q.rows(),
                                            q.cols(), k.rows(), k.cols(), v.rows(), v.cols(), allowed.rows(),
                                            allowed.cols()));
  }
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.cols()));
  Matrix out = Matrix::Zero(q.rows(), v.cols());
  std::vector<double> logit(static_cast<size_t>(k.rows()));
  for (Eigen::Index i = 0; i < q.rows(); ++i) {
    double top = -std::numeric_limits<double>::infinity();
    for (Eigen::Index j = 0; j < k.rows(); ++j) {
      if (!allowed(i, j)) continue;
      logit[static_cast<size_t>(j)] = q.row(i).dot(k.row(j)) * scale;
      // Written so that a NaN logit becomes the maximum and spreads to the row.
      if (!(logit[static_cast<size_t>(j)] <= top)) top = logit[static_cast<size_t>(j)];
    }
    if (top == -std::numeric_limits<double>::infinity()) continue;  // no key: a zero row
    double sum = 0;
    for (Eigen::Index j = 0; j < k.rows(); ++j) {
      if (!allowed(i, j)) continue;
      const double w = std::exp(logit[static_cast<size_t>(j)] - top);
      logit[static_cast<size_t>(j)] = w;
      sum += w;
    }
    for (Eigen::Index j = 0; j < k.rows(); ++j) {
      if (allowed(i, j)) out.row(i) += (logit[static_cast<size_t>(j)] / sum) * v.row(j);
    }
  }
  return out;
}

}  // namespace pecheck::reference
