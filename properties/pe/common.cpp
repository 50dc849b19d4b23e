#include "pe/common.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "angle_error.h"
#include "pecheck/gen/fast_random.h"
#include "pecheck/gen/positions.h"
#include "pecheck/reference/sinusoidal.h"

namespace pecheck::pe {

EncodeConvention declared(const SubjectInfo& subject) {
  EncodeConvention c = subject.encode;
  c.layout = subject.encode_layout() == Layout::halves ? Layout::halves : Layout::interleaved;
  return c;
}

double omega(const SubjectInfo& subject, int pair, int dim) { return reference::frequency(pair, dim, declared(subject)); }

namespace {

// The angle work of each pair of p_t (t + the declared offset).
std::vector<double> pair_works(const SubjectInfo& subject, int dim, Position t) {
  const EncodeConvention c = declared(subject);
  const double at = static_cast<double>(t + c.position_offset);
  std::vector<double> out;
  for (double w : reference::frequencies(dim, c)) out.push_back(angle_work(at, w));
  return out;
}

// Summed over the pairs' angle works: each pair's two components.
Work summed_of(const std::vector<double>& works) {
  Work out;
  for (double w : works) out = out + Work{2, 2 * w};
  return out;
}

}  // namespace

Work component_work(const SubjectInfo& subject, int dim, Position t) {
  const auto works = pair_works(subject, dim, t);
  return {1, works.empty() ? 0.0 : *std::max_element(works.begin(), works.end())};
}

Work summed_work(const SubjectInfo& subject, int dim, Position t) { return summed_of(pair_works(subject, dim, t)); }

Work row_work(const SubjectInfo& subject, int dim, Position t) {
  double values = 0, angles = 0;
  for (double w : pair_works(subject, dim, t)) {
    values += 2;
    angles += 2 * w * w;
  }
  return {std::sqrt(values), std::sqrt(angles)};
}

Bound bound_of(const Work& work, double scale, const std::string& what) {
  Bound b = Bound::upper(work.values, scale, what + " (values)");
  b.plus(Stage::angles, work.angles, scale, what + " (angles)");
  return b;
}

Bound summed_bound(const SubjectInfo& subject, int dim, Position t, int copies, double scale, const std::string& what) {
  const std::vector<double> works = pair_works(subject, dim, t);
  Bound b = bound_of(summed_of(works) * copies, scale, what);
  double squares = 0;
  for (double w : works) squares += 4 * w * w;
  b.terms.back().typical_work = std::sqrt(copies * squares);
  return b;
}

double split_angle_work(const SubjectInfo& subject, int dim, Position t) {
  const EncodeConvention c = declared(subject);
  const double at = std::fabs(static_cast<double>(t + c.position_offset));
  double squares = 0;
  for (double w : reference::frequencies(dim, c)) {
    const double apart = at * std::fabs(w) + 2;
    squares += apart * apart / 2;
  }
  return std::sqrt(squares);
}

rc::Gen<int> even_dim(const SubjectInfo& subject, int max_half) {
  const int min_half = declared(subject).schedule == Schedule::i_over_h_minus_1 ? 2 : 1;
  return rc::gen::map(rc::gen::inRange(min_half, std::max(max_half, min_half) + 1), [](int half) { return 2 * half; });
}

rc::Gen<int> even_dim(const GenContext& ctx, int max_half) {
  // The same draws as even_dim(subject, …) where nothing is declared; inside
  // params.encode.shapes.d where it is; a ladder case's width at its rung.
  const int min_dim = declared(ctx.subject).schedule == Schedule::i_over_h_minus_1 ? 4 : 2;
  const int top = 2 * std::max(min_dim / 2, std::max(1, ctx.width_limit(2 * max_half) / 2));
  return size_on(ctx, Op::encode, Axis::width, min_dim, top, [](std::int64_t d) { return d % 2 == 0; });
}

Position largest_position(const GenContext& ctx) { return position_limit(ctx, Op::encode); }

Position length_of(const GenContext& ctx, Position last, Position extra) {
  return sequence_length(ctx, Op::encode, last, extra);
}

rc::Gen<Position> position(const SubjectInfo& subject, Position max_position) {
  return gen::position(0, max_position, subject.angles_dtype());
}

rc::Gen<Position> offset(Position max_position) {
  return rc::gen::inRange<Position>(1, std::max<Position>(max_position, 1) + 1);
}

rc::Gen<Position> extra_length(Position max_position) { return rc::gen::inRange<Position>(0, max_position + 1); }

Positions sample_distinct(std::uint64_t seed, int count, Position span) {
  Positions out;
  if (span + 1 <= count) {
    for (Position t = 0; t <= span; ++t) out.push_back(t);
    return out;
  }
  // Floyd's algorithm: `count` distinct values without a table of size span.
  gen::FastRandom random(seed);
  std::unordered_set<Position> chosen;
  for (Position j = span + 1 - count; j <= span; ++j) {
    const Position r = static_cast<Position>(random.next() % static_cast<std::uint64_t>(j + 1));
    chosen.insert(chosen.count(r) ? j : r);
  }
  out.assign(chosen.begin(), chosen.end());
  std::sort(out.begin(), out.end());
  return out;
}

Matrix encode(Subject& subject, int dim, const Positions& positions, Position seq_len) {
  Matrix p = ask::encode(subject, dim, positions, seq_len);
  require_shape(p, static_cast<Eigen::Index>(positions.size()), dim, "encode");
  return p;
}

std::optional<SameDtypeEncoding> same_dtype_encoding(const SubjectInfo& subject, int dim, const Positions& positions) {
  EncodeConvention c = declared(subject);
  c.amplitude = subject.amplitude;
  try {
    return SameDtypeEncoding{reference::sinusoidal_rounded(dim, positions, c, subject.dtype, subject.angles_dtype()),
                             reference::sinusoidal_exact(dim, positions, c)};
  } catch (const Refusal&) {
    return std::nullopt;
  }
}

}  // namespace pecheck::pe
