#include "pecheck/gen/matrix.h"

#include <cmath>

#include "pecheck/gen/fast_random.h"

namespace pecheck::gen {

namespace {

// Lazily enumerates shrink candidates; stages run in order, each over all entries.
class MatrixShrinks {
 public:
  explicit MatrixShrinks(Matrix m) : m_(std::move(m)) {}

  rc::Maybe<Matrix> operator()() {
    while (stage_ < 5) {
      if (auto candidate = step()) return candidate;
    }
    return rc::Nothing;
  }

 private:
  rc::Maybe<Matrix> step() {
    const Eigen::Index n = m_.size();
    switch (stage_) {
      case 0:  // everything zero
        ++stage_;
        if (!m_.isZero(0)) return Matrix(Matrix::Zero(m_.rows(), m_.cols()));
        return rc::Nothing;
      case 1:  // everything a whole number
        ++stage_;
        if (!m_.isApprox(m_.array().round().matrix(), 0) && m_.allFinite()) {
          return Matrix((m_.array().round() + 0.0).matrix());
        }
        return rc::Nothing;
      default: break;
    }
    // Entry-wise stages: 2 → zero, 3 → round, 4 → halve toward zero.
    while (index_ < n) {
      const double x = m_.data()[index_++];
      double y = x;
      if (stage_ == 2) y = 0;
      if (stage_ == 3) y = std::round(x) + 0.0;
      if (stage_ == 4) y = std::trunc(x / 2) + 0.0;  // + 0.0: no "-0" in counterexamples
      if (y != x && std::isfinite(x)) {
        Matrix c = m_;
        c.data()[index_ - 1] = y;
        return c;
      }
    }
    ++stage_;
    index_ = 0;
    return rc::Nothing;
  }

  Matrix m_;
  int stage_ = 0;
  Eigen::Index index_ = 0;
};

template <class Fill>
rc::Gen<Matrix> filled(Eigen::Index rows, Eigen::Index cols, Fill fill) {
  return rc::Gen<Matrix>([=](const rc::Random& random, int) {
    rc::Random r = random;
    FastRandom values(r.next());
    Matrix m(rows, cols);
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = fill(values);
    return rc::shrinkable::shrinkRecur(std::move(m), &shrink_matrix);
  });
}

}  // namespace

rc::Seq<Matrix> shrink_matrix(Matrix m) { return rc::Seq<Matrix>(MatrixShrinks(std::move(m))); }

rc::Gen<Matrix> matrix(Eigen::Index rows, Eigen::Index cols, double lo, double hi) {
  return filled(rows, cols, [lo, hi](FastRandom& r) { return r.uniform(lo, hi); });
}

rc::Gen<Matrix> integer_matrix(Eigen::Index rows, Eigen::Index cols, int lo, int hi) {
  return filled(rows, cols, [lo, hi](FastRandom& r) {
    return static_cast<double>(lo + static_cast<int>(r.next() % static_cast<std::uint64_t>(hi - lo + 1)));
  });
}

rc::Gen<BoolMatrix> bool_matrix(Eigen::Index rows, Eigen::Index cols) {
  return rc::Gen<BoolMatrix>([=](const rc::Random& random, int) {
    rc::Random r = random;
    FastRandom bits(r.next());
    BoolMatrix m(rows, cols);
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = (bits.next() >> 63) != 0;
    // Shrink by allowing more entries, one at a time: the fewest masked entries.
    return rc::shrinkable::shrinkRecur(std::move(m), [](const BoolMatrix& b) {
      std::vector<BoolMatrix> out;
      for (Eigen::Index i = 0; i < b.size(); ++i) {
        if (!b.data()[i]) {
          BoolMatrix c = b;
          c.data()[i] = true;
          out.push_back(std::move(c));
        }
      }
      return rc::seq::fromContainer(std::move(out));
    });
  });
}

}  // namespace pecheck::gen
