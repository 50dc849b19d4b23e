#include "rope/common.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "pecheck/core/op_table.h"
#include "pecheck/core/size_limits.h"
#include "pecheck/gen/matrix.h"
#include "angle_error.h"
#include "pecheck/reference/rotary.h"

namespace pecheck::rope {

namespace {

// How many widths from the smallest declared one (from 2 where none is) are
// worth searching for the smallest defined one: rotary_dim up to 4096,
// fractions down to 1/2048.
constexpr int kSearchHalves = 2048;

bool defined_at(const RotateConvention& convention, int dim) {
  try {
    const int r = reference::rotary_block(dim, convention);
    // What the frequencies need of a width is ntk's r > 2; the rest (a
    // positive base, a scaling's own fields) holds at every width or none,
    // so it is asked at the smallest width instead of computing r/2 of them.
    // Per-pair lists (freq_factors, LongRoPE's factors, mrope sections) fix
    // r/2 to their length, which only the width itself can be asked about.
    const ScalingType type = convention.scaling.type;
    if ((type == ScalingType::ntk || type == ScalingType::dynamic_ntk) && r <= 2) return false;
    if (const int pairs = convention.fixed_pairs(); pairs > 0) {
      if (r != 2 * pairs) return false;
      reference::rotary_inv_freq(r, convention, std::nullopt);
      return true;
    }
    reference::rotary_inv_freq(std::min(r, 4), convention, std::nullopt);
    return true;
  } catch (const Refusal&) {
    return false;
  }
}

}  // namespace

RotateConvention declared(const SubjectInfo& subject) {
  RotateConvention c = subject.rotate;
  c.layout = subject.rotate_layout();
  return c;
}

std::vector<int> valid_dims(const SubjectInfo& subject) {
  const RotateConvention c = declared(subject);
  // From the smallest declared width: a rotary declaring d = 8192 is searched
  // at its width, not among the first 2048 pairs (which hold none of its
  // widths, so it was sent d = 2 alone: issue 39).
  int from = 1;
  if (const Extent* d = subject.shapes.find(declaring_op(subject.shapes, Op::rotate), ShapeDim::d)) {
    from = static_cast<int>(std::clamp<std::int64_t>(d->smallest() / 2, 1, largest_sendable(ShapeDim::d) / 2));
  }
  int first = 0;
  for (int half = from; half < from + kSearchHalves && first == 0; ++half) {
    if (defined_at(c, 2 * half)) first = half;
  }
  std::vector<int> out;
  if (first == 0) return out;
  for (int half = first; half < first + kMaxPairs; ++half) {
    if (defined_at(c, 2 * half)) out.push_back(2 * half);
  }
  return out;
}

std::vector<int> partial_dims(const SubjectInfo& subject) {
  std::vector<int> out;
  for (int d : valid_dims(subject)) {
    if (rotated_width(subject, d) < d) out.push_back(d);
  }
  return out;
}

std::vector<int> within_gate(std::vector<int> dims, const GenContext& ctx) {
  const AxisLimits limits = axis_limits(ctx.subject, ctx.max_position, ctx.max_width, Op::rotate, Axis::width);
  std::erase_if(dims, [&](int d) { return !limits.allows(d); });
  return dims;
}

ValidSize defined_width(const SubjectInfo& subject) {
  return [c = declared(subject)](std::int64_t d) {
    return d % 2 == 0 && d <= largest_sendable(ShapeDim::d) && defined_at(c, static_cast<int>(d));
  };
}

ValidSize partial_width(const SubjectInfo& subject) {
  return [c = declared(subject)](std::int64_t d) {
    return d % 2 == 0 && d <= largest_sendable(ShapeDim::d) && defined_at(c, static_cast<int>(d)) &&
           reference::rotary_block(static_cast<int>(d), c) < d;
  };
}

rc::Gen<int> width_among(const GenContext& ctx, const std::vector<int>& dims, const ValidSize& valid) {
  const int lo = dims.empty() ? 2 : dims.front(), hi = dims.empty() ? 2 : dims.back();
  if (focused(ctx, Axis::width)) return size_on(ctx, Op::rotate, Axis::width, lo, hi, valid);
  std::vector<int> small = within_gate(dims, ctx);
  // Nothing of the first 64 pairs within the declared widths (a subject built
  // for d = 256): the smallest widths it declares.
  if (small.empty() && !dims.empty()) small = small_sizes(ctx, Op::rotate, Axis::width, lo, hi, valid);
  return dim_among(std::move(small));
}

bool declares_partial(const SubjectInfo& subject) {
  return (subject.rotate.rotary_dim || subject.rotate.rotary_fraction) && !partial_dims(subject).empty();
}

rc::Gen<int> dim_among(std::vector<int> dims) {
  if (dims.empty()) dims = {2};  // nothing defined: the subject's refusal says why
  const int n = static_cast<int>(dims.size());
  return rc::gen::map(rc::gen::inRange(0, n), [dims](int i) { return dims[static_cast<size_t>(i)]; });
}

int rotated_width(const SubjectInfo& subject, int dim) { return reference::rotary_block(dim, declared(subject)); }

rc::Gen<Position> position(const GenContext& ctx, Position max) {
  return gen::position(0, std::max<Position>(max, 0), ctx.subject.angles_dtype());
}

rc::Gen<Position> position(const GenContext& ctx) { return position(ctx, position_limit(ctx, Op::rotate)); }

Position length_of(const GenContext& ctx, Position last, Position extra) {
  return sequence_length(ctx, Op::rotate, last, extra);
}

rc::Gen<Position> extra_length(const GenContext& ctx) {
  return rc::gen::oneOf(rc::gen::inRange<Position>(0, 16), position(ctx));
}

std::optional<Position> sent_length(const SubjectInfo& subject, Position seq_len) {
  if (subject.rotate.length_dependent()) return seq_len;
  return std::nullopt;
}

Position request_length(const SubjectInfo& subject, const Positions& positions, std::optional<Position> seq_len) {
  return reference::rotary_length(positions, seq_len, declared(subject));
}

Position request_length(const SubjectInfo& subject, const std::vector<Positions>& axes,
                        std::optional<Position> seq_len) {
  return reference::rotary_length(axes, seq_len, declared(subject));
}

std::vector<Positions> on_every_axis(const SubjectInfo& subject, const Positions& positions) {
  const size_t axes = subject.rotate.multi_axis() ? subject.rotate.mrope_section.size() : 1;
  return std::vector<Positions>(axes, positions);
}

Matrix rotate_axes(Subject& subject, const std::vector<Positions>& axes, const Matrix& x,
                   std::optional<Position> seq_len) {
  Matrix out = axes.size() == 1 && !subject.info().rotate.multi_axis() ? ask::rotate(subject, axes.front(), x, seq_len)
                                                                         : ask::rotate_axes(subject, axes, x, seq_len);
  require_shape(out, x.rows(), x.cols(), "rotate");
  return out;
}

Matrix rotate_as_answered(Subject& subject, const Positions& positions, const Matrix& x,
                          std::optional<Position> seq_len) {
  return rotate_axes(subject, on_every_axis(subject.info(), positions), x, seq_len);
}

Matrix rotate(Subject& subject, const Positions& positions, const Matrix& x, std::optional<Position> seq_len) {
  Matrix out = rotate_as_answered(subject, positions, x, seq_len);
  const RotateConvention c = declared(subject.info());
  if (c.layout != Layout::interleave_then_halves) return out;
  return reference::rotary_input_order(out, reference::rotary_block(static_cast<int>(x.cols()), c), c.layout);
}

std::optional<SameDtypeRotation> same_dtype_rotation(const SubjectInfo& subject, const Positions& ts, const Matrix& x,
                                                     std::optional<Position> seq_len) {
  const RotateConvention c = declared(subject);
  if (c.decoupled()) return std::nullopt;
  try {
    const auto axes = on_every_axis(subject, ts);
    const int r = reference::rotary_block(static_cast<int>(x.cols()), c);
    auto read = [&](const Matrix& answer) { return reference::rotary_input_order(answer, r, c.layout); };
    return SameDtypeRotation{
        read(reference::rotary_axes_rounded(axes, x, c, seq_len, subject.dtype, subject.angles_dtype())),
        read(reference::rotary_axes(axes, x, c, seq_len))};
  } catch (const Refusal&) {
    return std::nullopt;
  }
}

rc::Gen<Matrix> vectors(Eigen::Index rows, int dim) { return gen::matrix(rows, dim, -kValueBound, kValueBound); }

double magnitude(const SubjectInfo& subject) { return reference::rotary_magnitude(declared(subject)); }

std::vector<double> frequencies(const SubjectInfo& subject, int dim, std::optional<Position> length) {
  const RotateConvention c = declared(subject);
  return reference::rotary_inv_freq(reference::rotary_block(dim, c), c, length);
}

int frequency_roundings(const SubjectInfo& subject) { return frequency_work(declared(subject)); }

Bound rotations_bound(const SubjectInfo& subject, const Positions& ts, const std::vector<double>& omegas,
                      double scale, const std::string& what) {
  // Rotations at one position share its angles' errors; angles at different
  // positions are rounded apart, which the tight bounds add in quadrature.
  std::map<Position, int> rotations_at;
  for (Position t : ts) ++rotations_at[t];
  const int roundings = frequency_roundings(subject);
  double work = 0, squares = 0;
  for (const auto& [t, count] : rotations_at) {
    const double w = count * max_angle_work(static_cast<double>(t), omegas, roundings);
    work += w;
    squares += w * w;
  }
  Bound b = Bound::upper(5.0 * static_cast<double>(ts.size()), scale,
                         fmt::format("{} rotation(s) · 5 value roundings · {}", ts.size(), what));
  b.plus(Stage::angles, work, scale, fmt::format("Σ_t max_i angle work(t, ω_i) · {}", what));
  b.terms.back().typical_work = std::sqrt(squares);
  return b;
}

}  // namespace pecheck::rope

namespace pecheck::rope {

PairComparison compare_pairs(const SubjectInfo& subject, const BoundModel& model, const Positions& ts,
                             const Matrix& x, const Matrix& answer, const Matrix& expected,
                             const std::vector<double>& omegas, const RotateConvention& convention, double m,
                             const std::string& check) {
  return compare_pairs(subject, model, on_every_axis(subject, ts), x, answer, expected, omegas, convention, m, check);
}

PairComparison compare_pairs(const SubjectInfo& subject, const BoundModel& model, const std::vector<Positions>& axes,
                             const Matrix& x, const Matrix& answer, const Matrix& expected,
                             const std::vector<double>& omegas, const RotateConvention& convention, double m,
                             const std::string& check) {
  PairComparison out;
  const int r = 2 * static_cast<int>(omegas.size());
  const Layout layout = convention.layout;
  const double factor = model.factor(), u_values = model.u(Stage::values), u_angles = model.u(Stage::angles);
  const int roundings = frequency_roundings(subject);
  // The entry a check is made of: its bound built once, for the one reported.
  auto make = [&](Eigen::Index row, Position t, int i, int column, double s, double work, double error) {
    Check c;
    c.name = check;
    c.error = error;
    c.bound = Bound::upper(5, s, "5 value roundings · m(|x_a| + |x_b|)");
    c.bound.plus(Stage::angles, work, s, "angle work(t, ω_i) · m(|x_a| + |x_b|)");
    if (s > 0) c.bound.at_most(2 * s);  // a zero pair must come back zero: no ceiling
    c.where.row = row;
    c.where.position = t;
    c.where.pair = i;
    c.where.column = column;
    c.observed = number_to_json(answer(row, column));
    c.expected = number_to_json(expected(row, column));
    return c;
  };
  for (Eigen::Index row = 0; row < x.rows(); ++row) {
    for (int i = 0; i < r / 2; ++i) {
      const auto axis = static_cast<size_t>(reference::rotary_axis(i, r, convention));
      const Position t = axes[std::min(axis, axes.size() - 1)][static_cast<size_t>(row)];
      const int a = reference::rotary_first_column(i, r, layout), b = reference::rotary_second_column(i, r, layout);
      const int oa = reference::rotary_output_first_column(i, r, layout);
      const int ob = reference::rotary_output_second_column(i, r, layout);
      const double s = m * (std::fabs(x(row, a)) + std::fabs(x(row, b)));
      const double work = angle_work(static_cast<double>(t), omegas[static_cast<size_t>(i)], roundings);
      const double tolerance = factor * (u_values * 5 + u_angles * work) * s;
      int column = oa;
      double error = std::fabs(answer(row, oa) - expected(row, oa));
      const double other = std::fabs(answer(row, ob) - expected(row, ob));
      if (other > error || std::isnan(other)) {
        error = other;
        column = ob;
      }
      if (std::isnan(answer(row, oa)) || std::isnan(answer(row, ob))) error = INFINITY;
      if (s > 0 && tolerance >= 2 * s) {
        ++out.unresolved;
        if (out.first_unresolved < 0 || t < out.first_unresolved) out.first_unresolved = t;
        if (!out.any_unresolved) out.any_unresolved = make(row, t, i, column, s, work, error);
        continue;
      }
      const double ratio = tolerance > 0 ? error / tolerance : (error > 0 ? INFINITY : 0.0);
      if (ratio > out.worst_ratio) {
        out.worst_ratio = ratio;
        out.worst = make(row, t, i, column, s, work, error);
      }
    }
  }
  return out;
}

}  // namespace pecheck::rope
