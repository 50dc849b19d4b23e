// CLAIMS.md §6 — attention biases: b[i][j] is added to the logit of query i
// and key j. Structural claims here (offset only, monotone decay); the
// declared scheme's values in bias_reference.cpp.
//
// Error model: a bias entry is a few roundings of its own magnitude (a slope
// times a distance, or a table entry looked up), so two entries that are
// equal in exact arithmetic are at most 2 roundings of the largest entry
// apart, whichever way the subject computes them (slope·|i−j| directly, or
// slope·j − slope·i).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "bias_support.h"
#include "pecheck/property/registry.h"

namespace pecheck {

namespace {

Bound two_roundings(double scale) { return Bound::upper(2, scale, "2 roundings · max(1, |b|)"); }

// bias.offset_only ----------------------------------------------------------------
// Two requests of different shapes: within each, every diagonal j − i = δ
// must hold one value; across them, the same δ the same value (a bias that
// depends on n or m, e.g. one that aligns queries with the last keys, is
// constant along each diagonal of one matrix and still not offset-only).
struct OffsetCase {
  bias::Shape first, second;
  void validate() const {
    first.validate();
    second.validate();
    if (first.head != second.head) throw InvalidInput("both bias requests must ask for the same head");
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(OffsetCase, first, second)

rc::Gen<OffsetCase> offset_gen(const GenContext& ctx) {
  return rc::gen::map(rc::gen::pair(bias::shape(ctx), bias::shape(ctx)), [](std::pair<bias::Shape, bias::Shape> p) {
    p.second.head = p.first.head;
    return OffsetCase{p.first, p.second};
  });
}

// The first entry of diagonal δ: (max(0, −δ), max(0, δ)).
std::pair<Eigen::Index, Eigen::Index> diagonal_start(Eigen::Index delta) {
  return {std::max<Eigen::Index>(0, -delta), std::max<Eigen::Index>(0, delta)};
}

Check same_offset(const Matrix& b, int head, double scale, Check worst) {
  for (Eigen::Index i = 0; i < b.rows(); ++i) {
    for (Eigen::Index j = 0; j < b.cols(); ++j) {
      const auto [i0, j0] = diagonal_start(j - i);
      double error = std::fabs(b(i, j) - b(i0, j0));
      if (std::isnan(error)) error = std::numeric_limits<double>::infinity();
      if (error <= worst.error) continue;
      worst.error = error;
      worst.where = bias::entry(i, j, head);
      worst.where.label = fmt::format("b[{}][{}] vs b[{}][{}], both at j − i = {} in a {}×{} bias", i, j, i0, j0,
                                      j - i, b.rows(), b.cols());
      worst.observed = number_to_json(b(i, j));
      worst.expected = number_to_json(b(i0, j0));
    }
  }
  worst.bound = two_roundings(scale);
  return worst;
}

Measurement offset_measure(Subject& s, const OffsetCase& c, const BoundModel&) {
  const Matrix a = bias::bias_checked(s, c.first), b = bias::bias_checked(s, c.second);
  const double scale = std::max(bias::scale_of(a), bias::scale_of(b));
  Check within{"same offset"};
  within = same_offset(b, c.first.head, scale, same_offset(a, c.first.head, scale, within));
  within.note = "entries on one diagonal j − i of one bias matrix";

  Check across{"across sizes"};
  across.bound = two_roundings(scale);
  const Eigen::Index lo = std::max(-(a.rows() - 1), -(b.rows() - 1)), hi = std::min(a.cols() - 1, b.cols() - 1);
  for (Eigen::Index delta = lo; delta <= hi; ++delta) {
    const auto [i, j] = diagonal_start(delta);
    double error = std::fabs(a(i, j) - b(i, j));
    if (std::isnan(error)) error = std::numeric_limits<double>::infinity();
    if (error <= across.error) continue;
    across.error = error;
    across.where = bias::entry(i, j, c.first.head);
    across.where.label = fmt::format("b[{}][{}] (j − i = {}) in a {}×{} and in a {}×{} bias", i, j, delta, a.rows(),
                                     a.cols(), b.rows(), b.cols());
    across.observed = number_to_json(b(i, j));
    across.expected = number_to_json(a(i, j));
  }
  across.note = "the same offset j − i in bias matrices of two shapes";
  return {{std::move(within), std::move(across)}, {}};
}

// bias.monotone_decay ---------------------------------------------------------------
// Along each row, one key further from the query must not raise the bias:
// toward earlier keys (j < i) and toward later ones (j > i) separately, since
// a sign slip on one side (slope·(j − i) without the absolute value) spares
// the other.
Measurement decay_measure(Subject& s, const bias::Shape& c, const BoundModel&) {
  const Matrix b = bias::bias_checked(s, c);
  const double scale = bias::scale_of(b);
  Check earlier{"decay toward earlier keys"}, later{"decay toward later keys"};
  auto step = [&](Check& check, Eigen::Index i, Eigen::Index near, Eigen::Index far) {
    double rise = b(i, far) - b(i, near);
    if (std::isnan(rise)) rise = std::numeric_limits<double>::infinity();
    if (rise <= check.error) return;
    check.error = rise;
    check.where = bias::entry(i, far, c.head);
    check.where.label = fmt::format("b[{}][{}] vs b[{}][{}]: distance {} vs {}", i, far, i, near,
                                    std::abs(far - i), std::abs(near - i));
    check.observed = number_to_json(b(i, far));
    check.expected = fmt::format("at most {}", b(i, near));
  };
  for (Eigen::Index i = 0; i < b.rows(); ++i) {
    for (Eigen::Index j = 1; j < b.cols(); ++j) {
      if (j <= i) step(earlier, i, j, j - 1);  // key j − 1 is one further back than j
      if (j - 1 >= i) step(later, i, j - 1, j); // key j is one further ahead than j − 1
    }
  }
  earlier.bound = two_roundings(scale);
  later.bound = two_roundings(scale);
  earlier.note = "the rise of the bias one key further back from the query (none: 0)";
  later.note = "the rise of the bias one key further ahead of the query (none: 0)";
  return {{std::move(earlier), std::move(later)}, {}};
}

rc::Gen<bias::Shape> decay_gen(const GenContext& ctx) { return bias::shape(ctx); }

}  // namespace

std::vector<PropertyImpl> bias_reference_properties();  // bias_reference.cpp

std::vector<PropertyImpl> bias_properties() {
  std::vector<PropertyImpl> out = {
      scaling({Axis::queries, Axis::keys},
              define<OffsetCase>("bias.offset_only", {"same offset", "across sizes"}, offset_gen, offset_measure)),
      scaling({Axis::queries, Axis::keys},
              define<bias::Shape>("bias.monotone_decay", {"decay toward earlier keys", "decay toward later keys"},
                                  decay_gen, decay_measure)),
  };
  for (auto& p : bias_reference_properties()) out.push_back(std::move(p));
  return out;
}

}  // namespace pecheck
