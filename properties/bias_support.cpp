#include "bias_support.h"

#include <fmt/format.h>

#include <algorithm>

#include "pecheck/property/compare.h"

namespace pecheck::bias {

namespace {
constexpr int kSmallSide = 16;     // most requests: small enough to read in a witness
constexpr int kAlibiSide = 64;
constexpr int kLargestSide = 4096; // a recorded request beyond this is not a case pecheck generates
}  // namespace

int declared_heads(const SubjectInfo& subject) { return subject.bias ? std::max(1, subject.bias->heads) : 1; }

int longest_side(const SubjectInfo& subject) {
  if (subject.bias && subject.bias->scheme == BiasScheme::t5) return subject.bias->max_distance + 16;
  return kAlibiSide;
}

rc::Gen<Shape> shape(const GenContext& ctx) {
  const int longest = longest_side(ctx.subject), heads = declared_heads(ctx.subject);
  // Mostly small sides; inside params.bias.shapes where the subject declares
  // them; a ladder case's side at its rung (up to 4096 keys).
  auto side = [&ctx, longest](Axis axis) {
    if (focused(ctx, axis) || axis_limits(ctx.subject, ctx.max_position, ctx.max_width, Op::bias, axis).declared) {
      return size_on(ctx, Op::bias, axis, 1, longest);
    }
    return rc::gen::weightedOneOf<int>({{3, rc::gen::inRange(1, kSmallSide + 1)},
                                        {1, rc::gen::inRange(1, longest + 1)}});
  };
  return rc::gen::apply([](int n, int m, int head) { return Shape{n, m, head}; }, side(Axis::queries),
                        side(Axis::keys), rc::gen::inRange(0, heads));
}

Matrix bias_checked(Subject& subject, const Shape& s) {
  Matrix b = subject.bias(s.n, s.m, s.head);
  require_shape(b, s.n, s.m, "bias");
  return b;
}

void Shape::validate() const {
  if (n < 1 || m < 1 || n > kLargestSide || m > kLargestSide || head < 0) {
    throw InvalidInput(fmt::format("a bias of {}×{} for head {}: sides must be in 1..{}, the head ≥ 0", n, m, head,
                                   kLargestSide));
  }
}

double scale_of(const Matrix& b) { return std::max(1.0, max_abs(b)); }

Location entry(Eigen::Index query, Eigen::Index key, int head) {
  Location where;
  where.query = query;
  where.key = key;
  where.head = head;
  return where;
}

}  // namespace pecheck::bias
