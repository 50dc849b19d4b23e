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
    // As properties/combine/split.cpp draws them: d_t, d_p and the projection's
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

namespace pecheck::bench {

namespace {

// The block of subjects/builtin/modules_llama.h, written plainly.
struct BareLlama {
  static constexpr int kWidth = 32, kHeads = 4, kHidden = 64;
  M wq, wk, wv, wo, w_gate, w_up, w_down;
  Eigen::RowVectorXd attention_norm, mlp_norm;

  explicit BareLlama(std::mt19937_64& rng) {
    auto projection = [&](int in, int out) { return uniform(rng, in, out, -1, 1) * std::sqrt(3.0 / in); };
    wq = projection(kWidth, kWidth), wk = projection(kWidth, kWidth), wv = projection(kWidth, kWidth);
    wo = projection(kWidth, kWidth), w_gate = projection(kWidth, kHidden), w_up = projection(kWidth, kHidden);
    w_down = projection(kHidden, kWidth);
    attention_norm = (uniform(rng, 1, kWidth, 0.8, 1.2)).row(0);
    mlp_norm = (uniform(rng, 1, kWidth, 0.8, 1.2)).row(0);
  }

  static M rms_norm(const M& x, const Eigen::RowVectorXd& gain) {
    M out = x;
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
      const double inv = 1.0 / std::sqrt(x.row(r).squaredNorm() / static_cast<double>(x.cols()) + 1e-6);
      out.row(r) = (x.row(r).array() * inv * gain.array()).matrix();
    }
    return out;
  }

  static M rope(const M& x, long from) {
    const int dh = kWidth / kHeads, half = dh / 2;
    M out = x;
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
      for (int h = 0; h < kHeads; ++h) {
        for (int i = 0; i < half; ++i) {
          const double a = static_cast<double>(from + r) * std::pow(10000.0, -2.0 * i / dh);
          const double c = std::cos(a), s = std::sin(a), x1 = x(r, h * dh + i), x2 = x(r, h * dh + half + i);
          out(r, h * dh + i) = x1 * c - x2 * s;
          out(r, h * dh + half + i) = x2 * c + x1 * s;
        }
      }
    }
    return out;
  }

  M forward(const M& x, long from) const {
    const int dh = kWidth / kHeads;
    const M normed = rms_norm(x, attention_norm);
    const M q = rope(normed * wq, from), k = rope(normed * wk, from), v = normed * wv;
    M mixed(x.rows(), kWidth);
    for (int h = 0; h < kHeads; ++h) {
      M s = q.middleCols(h * dh, dh) * k.middleCols(h * dh, dh).transpose() / std::sqrt(static_cast<double>(dh));
      for (Eigen::Index r = 0; r < s.rows(); ++r) {
        for (Eigen::Index c = r + 1; c < s.cols(); ++c) s(r, c) = -INFINITY;
        s.row(r).array() -= s.row(r).maxCoeff();
        s.row(r) = s.row(r).array().exp().matrix();
        s.row(r) /= s.row(r).sum();
      }
      mixed.middleCols(h * dh, dh) = s * v.middleCols(h * dh, dh);
    }
    const M hidden = x + mixed * wo;
    const M n2 = rms_norm(hidden, mlp_norm);
    const M gate = n2 * w_gate;
    const M act = (gate.array() / (1.0 + (-gate.array()).exp())).matrix();
    return hidden + M((act.array() * (n2 * w_up).array()).matrix()) * w_down;
  }
};

}  // namespace

BareResult llama_causality(int cases, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const BareLlama block(rng);
  std::uniform_int_distribution<int> tokens(2, 8), sequences(1, 2);
  std::uniform_int_distribution<long> start(0, 10000);
  return timed(cases, [&] {
    const int n = tokens(rng), b = sequences(rng);
    std::vector<M> x;
    std::vector<long> from;
    for (int s = 0; s < b; ++s) x.push_back(uniform(rng, n, BareLlama::kWidth, -2, 2)), from.push_back(start(rng));
    const int j = std::uniform_int_distribution<int>(1, n - 1)(rng);
    double worst = 0;
    for (int s = 0; s < b; ++s) {
      const M base = block.forward(x[static_cast<size_t>(s)], from[static_cast<size_t>(s)]);
      const M again = block.forward(x[static_cast<size_t>(s)], from[static_cast<size_t>(s)]);
      M changed = x[static_cast<size_t>(s)];
      if (s == 0) changed.row(j) = uniform(rng, 1, BareLlama::kWidth, -2, 2).row(0);
      const M after = block.forward(changed, from[static_cast<size_t>(s)]);
      worst = std::max({worst, (after.topRows(j) - base.topRows(j)).cwiseAbs().maxCoeff(),
                        (again - base).cwiseAbs().maxCoeff()});
    }
    return worst;
  });
}

}  // namespace pecheck::bench
