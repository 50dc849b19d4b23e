// CLAIMS.md §6 — attention biases: b[i][j] is added to the logit of query i
// and key j. Structural claims here (offset only, monotone decay); the
// declared scheme's values in bias/reference_values.cpp.
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
#include <optional>

#include "bias/support.h"
#include "pecheck/property/registry.h"

namespace pecheck::bias::structure {

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
  // The relative position of (i, j) is j − (i + shift), shift the key of query 0 under the declared
  // alignment (0 top-left, m − n bottom-right): compare each relative position both matrices hold.
  const SubjectInfo& info = s.info();
  const Eigen::Index shift_a = bias::query_shift(info, a.rows(), a.cols());
  const Eigen::Index shift_b = bias::query_shift(info, b.rows(), b.cols());
  auto first_at = [](const Matrix& m, Eigen::Index shift, Eigen::Index delta) -> std::optional<std::pair<Eigen::Index, Eigen::Index>> {
    const auto [i, j] = diagonal_start(delta + shift);
    if (i >= m.rows() || j >= m.cols()) return std::nullopt;
    return std::pair{i, j};
  };
  const Eigen::Index lo = std::max(-(a.rows() - 1) - shift_a, -(b.rows() - 1) - shift_b);
  const Eigen::Index hi = std::min(a.cols() - 1 - shift_a, b.cols() - 1 - shift_b);
  for (Eigen::Index delta = lo; delta <= hi; ++delta) {
    const auto at_a = first_at(a, shift_a, delta), at_b = first_at(b, shift_b, delta);
    if (!at_a || !at_b) continue;
    double error = std::fabs(a(at_a->first, at_a->second) - b(at_b->first, at_b->second));
    if (std::isnan(error)) error = std::numeric_limits<double>::infinity();
    if (error <= across.error) continue;
    across.error = error;
    across.where = bias::entry(at_b->first, at_b->second, c.first.head);
    across.where.label = fmt::format("relative position {}: b[{}][{}] of a {}×{} bias{} and b[{}][{}] of a {}×{}{}",
                                     delta, at_b->first, at_b->second, b.rows(), b.cols(),
                                     bias::alignment_words(info, b.rows(), b.cols()), at_a->first, at_a->second,
                                     a.rows(), a.cols(), bias::alignment_words(info, a.rows(), a.cols()));
    across.observed = number_to_json(b(at_b->first, at_b->second));
    across.expected = number_to_json(a(at_a->first, at_a->second));
  }
  across.note = info.bias && info.bias->alignment == Alignment::bottom_right
                    ? "the same relative position j − (i + m − n) in bias matrices of two shapes (bottom-right "
                      "alignment, declared)"
                    : "the same offset j − i in bias matrices of two shapes (top-left alignment: query i at key i; a "
                      "bias whose queries are the last n keys declares params.bias.alignment = \"bottom_right\")";
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
  // Query i sits at key i + shift (its declared alignment).
  const Eigen::Index shift = bias::query_shift(s.info(), b.rows(), b.cols());
  Check earlier{"decay toward earlier keys"}, later{"decay toward later keys"};
  auto step = [&](Check& check, Eigen::Index i, Eigen::Index near, Eigen::Index far) {
    double rise = b(i, far) - b(i, near);
    if (std::isnan(rise)) rise = std::numeric_limits<double>::infinity();
    if (rise <= check.error) return;
    check.error = rise;
    check.where = bias::entry(i, far, c.head);
    check.where.label = fmt::format("b[{}][{}] vs b[{}][{}]: distance {} vs {}{}", i, far, i, near,
                                    std::abs(far - i - shift), std::abs(near - i - shift),
                                    bias::alignment_words(s.info(), b.rows(), b.cols()));
    check.observed = number_to_json(b(i, far));
    check.expected = fmt::format("at most {}", b(i, near));
  };
  for (Eigen::Index i = 0; i < b.rows(); ++i) {
    for (Eigen::Index j = 1; j < b.cols(); ++j) {
      if (j <= i + shift) step(earlier, i, j, j - 1);  // key j − 1 is one further back than j
      if (j - 1 >= i + shift) step(later, i, j - 1, j); // key j is one further ahead than j − 1
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

std::vector<PropertyImpl> properties() {
  std::vector<PropertyImpl> out = {
      scaling({Axis::queries, Axis::keys},
              define<OffsetCase>("bias.offset_only", {"same offset", "across sizes"}, offset_gen, offset_measure,
                                 DiagnoseFn<OffsetCase>([](Subject& s, const OffsetCase& c, const BoundModel&) {
                                   const std::string first = bias::alignment_diagnosis(s, c.first);
                                   return first.empty() ? bias::alignment_diagnosis(s, c.second) : first;
                                 }))),
      scaling({Axis::queries, Axis::keys},
              define<bias::Shape>("bias.monotone_decay", {"decay toward earlier keys", "decay toward later keys"},
                                  decay_gen, decay_measure,
                                  DiagnoseFn<bias::Shape>([](Subject& s, const bias::Shape& c, const BoundModel&) {
                                    return bias::alignment_diagnosis(s, c);
                                  }))),
  };
  return out;
}

}  // namespace pecheck::bias::structure
