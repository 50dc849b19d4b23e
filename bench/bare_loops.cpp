#include "bare_loops.h"

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

namespace pecheck::bench {

namespace {

using M = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

template <class Body>
BareResult timed(int cases, Body body) {
  BareResult r;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < cases; ++i) r.checksum += body();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.cases_per_second = cases / s;
  return r;
}

M uniform(std::mt19937_64& rng, Eigen::Index rows, Eigen::Index cols, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  M m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = u(rng);
  return m;
}

M attention(const M& q, const M& k, const M& v) {
  M s = (q * k.transpose()) / std::sqrt(static_cast<double>(q.cols()));
  for (Eigen::Index r = 0; r < s.rows(); ++r) {
    s.row(r).array() -= s.row(r).maxCoeff();
    s.row(r) = s.row(r).array().exp().matrix();
    s.row(r) /= s.row(r).sum();
  }
  return s * v;
}

Eigen::VectorXd encode(int d, long t) {
  Eigen::VectorXd p(d);
  for (int i = 0; i < d / 2; ++i) {
    const double a = static_cast<double>(t) * std::pow(10000.0, -2.0 * i / d);
    p(2 * i) = std::sin(a);
    p(2 * i + 1) = std::cos(a);
  }
  return p;
}

}  // namespace

BareResult attention_equivariance(int cases, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return timed(cases, [&] {
    const int n = std::uniform_int_distribution<int>(1, 16)(rng);
    const int d = std::uniform_int_distribution<int>(1, 32)(rng);
    const M x = uniform(rng, n, d, -4, 4), wq = uniform(rng, d, d, -4, 4), wk = uniform(rng, d, d, -4, 4),
            wv = uniform(rng, d, d, -4, 4);
    std::vector<int> perm(static_cast<size_t>(n));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    M px(n, d);
    for (int r = 0; r < n; ++r) px.row(r) = x.row(perm[static_cast<size_t>(r)]);
    const M y = attention(x * wq, x * wk, x * wv);
    const M py = attention(px * wq, px * wk, px * wv);
    double err = 0;
    for (int r = 0; r < n; ++r) err = std::max(err, (py.row(r) - y.row(perm[static_cast<size_t>(r)])).cwiseAbs().maxCoeff());
    return err;
  });
}

BareResult offset_only_dot(int cases, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return timed(cases, [&] {
    const int d = 2 * std::uniform_int_distribution<int>(1, 256)(rng);
    std::uniform_int_distribution<long> pos(0, 10000), off(0, 1000);
    const long t = pos(rng), s = pos(rng), k = off(rng);
    return std::fabs(encode(d, t).dot(encode(d, t + k)) - encode(d, s).dot(encode(d, s + k)));
  });
}

BareResult bounded_norm(int cases, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return timed(cases, [&] {
    const int d = 2 * std::uniform_int_distribution<int>(1, 256)(rng);
    const long t = std::uniform_int_distribution<long>(0, 100000)(rng);
    const Eigen::VectorXd p = encode(d, t);
    return std::max(p.cwiseAbs().maxCoeff() - 1.0, 0.0) + std::fabs(p.squaredNorm() - d / 2.0);
  });
}

BareResult add_subsumes_concat(int cases, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return timed(cases, [&] {
    // As properties/combine.cpp draws them: d_t, d_p and the projection's
    // output width m in [1, 32], n in [1, 8] tokens, values in [-4, 4].
    std::uniform_int_distribution<int> size(1, 32), tokens(1, 8);
    const int dt = size(rng), dp = size(rng), m = size(rng), n = tokens(rng), d = dt + dp;
    const M x = uniform(rng, n, dt, -4, 4), p = uniform(rng, n, dp, -4, 4), w = uniform(rng, m, d, -4, 4);
    M padded_x = M::Zero(n, d), padded_p = M::Zero(n, d), concat(n, d);
    padded_x.leftCols(dt) = x;
    padded_p.rightCols(dp) = p;
    concat << x, p;
    const M added = padded_x + padded_p;
    double err = (added - concat).cwiseAbs().maxCoeff();
    err = std::max(err, (added * w.transpose() - concat * w.transpose()).cwiseAbs().maxCoeff());
    err = std::max(err, (attention(added, added, added) - attention(concat, concat, concat)).cwiseAbs().maxCoeff());
    return err;
  });
}

}  // namespace pecheck::bench
