#include "bias/support.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "pecheck/core/size_limits.h"
#include "pecheck/property/compare.h"
#include "pecheck/reference/bias.h"

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
  // A ladder case raises one side to a rung the request budget sized with
  // the other side at its smallest (property/sizes.cpp); the other side, drawn
  // up to `longest`, is brought down to fit the same budget, so no request
  // carries more numbers than pecheck sends or reads (core/size_limits.h;
  // issue 39: n = 2^23 − 1 queries went out with 3 keys, 25M numbers).
  const AxisLimits queries = axis_limits(ctx.subject, ctx.max_position, ctx.max_width, Op::bias, Axis::queries);
  const AxisLimits keys = axis_limits(ctx.subject, ctx.max_position, ctx.max_width, Op::bias, Axis::keys);
  return rc::gen::apply([q = queries.declared, k = keys.declared](int n, int m, int head) {
    return fitted_to_budget(Shape{n, m, head}, q, k);
  }, side(Axis::queries), side(Axis::keys), rc::gen::inRange(0, heads));
}

Shape fitted_to_budget(Shape s, const std::optional<Extent>& queries, const std::optional<Extent>& keys) {
  const auto numbers = [](std::int64_t n, std::int64_t m) {
    return request_numbers({{ShapeDim::n, n}, {ShapeDim::m, m}});
  };
  if (numbers(s.n, s.m) <= kMostNumbersPerRequest) return s;
  const bool keys_smaller = s.m <= s.n;
  const std::int64_t kept = keys_smaller ? s.n : s.m;
  std::int64_t lo = 1, hi = keys_smaller ? s.m : s.n;  // the largest other side that fits lies in [lo, hi)
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (numbers(keys_smaller ? kept : mid, keys_smaller ? mid : kept) <= kMostNumbersPerRequest ? lo : hi) = mid;
  }
  const std::optional<Extent>& declared = keys_smaller ? keys : queries;
  const int fit = static_cast<int>(declared ? std::max<std::int64_t>(1, declared->nearest_at_most(lo)) : lo);
  (keys_smaller ? s.m : s.n) = fit;
  return s;
}

Matrix bias_checked(Subject& subject, const Shape& s) {
  Matrix b = ask::bias(subject, s.n, s.m, s.head);
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

Eigen::Index query_shift(const SubjectInfo& subject, Eigen::Index n, Eigen::Index m) {
  return subject.bias && subject.bias->alignment == Alignment::bottom_right ? m - n : 0;
}

std::string alignment_words(const SubjectInfo& subject, Eigen::Index n, Eigen::Index m) {
  if (!subject.bias || subject.bias->alignment != Alignment::bottom_right) return "";
  return fmt::format(" (bottom-right: query i at key i {} {})", m >= n ? "+" : "−", std::abs(m - n));
}

std::string alignment_diagnosis(Subject& subject, const Shape& shape) {
  const SubjectInfo& info = subject.info();
  if (!info.bias || info.bias->scheme != BiasScheme::alibi || shape.n == shape.m) return "";
  const int heads = declared_heads(info);
  if (shape.head >= heads) return "";
  Matrix b;
  try {
    b = bias_checked(subject, shape);
  } catch (const std::exception&) {
    return "";
  }
  const Alignment declared = info.bias->alignment;
  const Alignment other = declared == Alignment::top_left ? Alignment::bottom_right : Alignment::top_left;
  const int other_shift = other == Alignment::bottom_right ? shape.m - shape.n : 0;
  const Matrix expected = reference::alibi_bias(shape.n, shape.m, shape.head, heads, other_shift);
  // reference_values' bound (4 + H roundings of the scale) with the default safety factor.
  const double tolerance = 8 * (4.0 + heads) * unit_roundoff(info.dtype) * scale_of(expected);
  if ((b - expected).cwiseAbs().maxCoeff() > tolerance) return "";
  return fmt::format("the bias matches ALiBi under the {} alignment ({}), declared {}: declare "
                     "params.bias.alignment = \"{}\" (SUBJECT-PROTOCOL.md, \"Attention conventions\")",
                     name(other),
                     other == Alignment::bottom_right ? "query i at key i + m − n: the queries are the last n keys, "
                                                        "as after a KV cache"
                                                      : "query i at key i",
                     name(declared), name(other));
}

Location entry(Eigen::Index query, Eigen::Index key, int head) {
  Location where;
  where.query = query;
  where.key = key;
  where.head = head;
  return where;
}

}  // namespace pecheck::bias
