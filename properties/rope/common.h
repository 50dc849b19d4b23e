#pragma once
// What the rope family's files share: the widths a declared convention
// defines, positions with their edges, the sequence length a request carries,
// the reference under the declared convention, and the error model of one
// computed rotation, per precision stage.
//
// Error model of one computed rotation R_t x (first order in u), per pair i
// of the rotated block, relative to the pair's size s_i = m·(|x_a| + |x_b|)
// (m: YaRN's attention factor, 1 otherwise):
//   values  (the subject's dtype): 5 roundings — x_a, x_b, the cos/sin table
//           cast to the values' precision, the two products and their sum;
//   angles  (compute.angles): θ_i = t·ω_i and its sine and cosine, the work of
//           angle_error.h (t, ω_i as real code forms it, the product, a
//           scaling family's blend), which moves the pair by that times its
//           size.
// The structural claims (relative dot, norm, identity, composition) are
// about the rotated block, features [0, r); the features at and beyond r are
// rope.pass_through's, so one cause fails one claim.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "pecheck/gen/positions.h"
#include "pecheck/property/compare.h"
#include "pecheck/property/property.h"

namespace pecheck::rope {

constexpr int kMaxPairs = 64;        // widths span 64 pairs from the smallest the convention defines
constexpr double kValueBound = 4.0;  // vector entries in [-4, 4]

// The convention a subject is judged against: params.rotate, its layout
// resolved (params.rotate.layout, else the v1 top-level layout).
RotateConvention declared(const SubjectInfo& subject);

// The even widths d the declared convention defines (a rotary block of
// rotary_width(d) in [2, d], and ntk's r > 2), from the smallest for 64 pairs
// on: a declared rotary_dim of 64 is reached and passed.
std::vector<int> valid_dims(const SubjectInfo& subject);
// Those of them that leave features to pass through (rotary_width(d) < d).
std::vector<int> partial_dims(const SubjectInfo& subject);
// Those of them within the gate's --max-width and the declared widths
// (params.rotate.shapes.d; all when there are none).
std::vector<int> within_gate(std::vector<int> dims, const GenContext& ctx);
// Widths the declared convention defines (as valid_dims, without its 64-pair
// cap), and those that leave features to pass through: what a ladder case's
// width is drawn from.
ValidSize defined_width(const SubjectInfo& subject);
ValidSize partial_width(const SubjectInfo& subject);
// A width of `dims` within the gate (dim_among); one of the declared widths
// when none of `dims` is; in a ladder case focused on the width, its rung's
// width among those `valid` accepts (property/sizes.h).
rc::Gen<int> width_among(const GenContext& ctx, const std::vector<int>& dims, const ValidSize& valid);
// One of `dims`, shrinking toward the first (the smallest).
rc::Gen<int> dim_among(std::vector<int> dims);
// The rotated width r for a width d the convention defines.
int rotated_width(const SubjectInfo& subject, int dim);
// True when the convention leaves features to pass through at some width.
bool declares_partial(const SubjectInfo& subject);

// A position in [0, max] with its edges mixed in (gen/positions.h), at the
// subject's angle precision; without `max`, up to the largest a rotate
// request may carry (--max-position, a declared sequence length).
rc::Gen<Position> position(const GenContext& ctx, Position max);
rc::Gen<Position> position(const GenContext& ctx);
// The sequence length of a rotate request whose last position is `last`, with
// `extra` tokens after it (property/sizes.h: sequence_length).
Position length_of(const GenContext& ctx, Position last, Position extra);
// How far a sequence runs past the largest position of a case: small, or up
// to the gate's maximum (so that dynamic scalings see lengths on both sides of
// their original context).
rc::Gen<Position> extra_length(const GenContext& ctx);

// The length the structural claims' requests carry: seq_len when the
// convention depends on it (dynamic NTK, LongRoPE: every request of a case at
// the same length), else none (a version-1 subject never sees the field).
std::optional<Position> sent_length(const SubjectInfo& subject, Position seq_len);
// The length the declared convention compares with its original context for
// a request (reference::rotary_length).
Position request_length(const SubjectInfo& subject, const Positions& positions, std::optional<Position> seq_len);
Position request_length(const SubjectInfo& subject, const std::vector<Positions>& axes,
                        std::optional<Position> seq_len);
// The subject's answer to a rotate request, its shape checked (a wrong shape
// is a subject failure): one-axis positions, which a multi-axis subject gets
// on every axis (text tokens), or one list per axis.
Matrix rotate_as_answered(Subject& subject, const Positions& positions, const Matrix& x,
                          std::optional<Position> seq_len);
Matrix rotate_axes(Subject& subject, const std::vector<Positions>& axes, const Matrix& x,
                   std::optional<Position> seq_len);
// rotate_as_answered, its rotated block put back in the input's column order
// (interleave_then_halves writes pair i to (i, i + r/2)): what the structural
// claims compose and compare.
Matrix rotate(Subject& subject, const Positions& positions, const Matrix& x, std::optional<Position> seq_len);
// One position per row on every axis of the declared convention (one axis, or three).
std::vector<Positions> on_every_axis(const SubjectInfo& subject, const Positions& positions);
// Vectors with entries uniform in [-4, 4].
rc::Gen<Matrix> vectors(Eigen::Index rows, int dim);

// A case of 1 to max_rows vectors, each at its own position, at a width
// drawn from `dims`, in a sequence that runs extra_length past the largest
// position: fills a Case with `dim`, `positions`, `seq_len` and `x` (one row
// per position), as rope.reference_values and rope.pass_through ask. A
// ladder case (property/sizes.h) raises the width (among those `valid`
// accepts) or the row count — a prefill of thousands of rows, which shrinks
// by halving its count.
template <class Case>
rc::Gen<Case> positioned_rows(const GenContext& ctx, std::vector<int> dims, int max_rows, ValidSize valid) {
  struct Row {
    Position position = 0;
    Matrix x;
  };
  auto fill = [ctx](int dim, const Positions& ts, Matrix x, Position extra) {
    Case c;
    c.dim = dim;
    c.positions = ts;
    c.x = std::move(x);
    c.seq_len = length_of(ctx, ts.empty() ? 0 : *std::max_element(ts.begin(), ts.end()), extra);
    return c;
  };
  if (focused(ctx, Axis::rows)) {
    return rc::gen::mapcat(
        rc::gen::pair(width_among(ctx, dims, valid), size_on(ctx, Op::rotate, Axis::rows, 1, max_rows)),
        [ctx, fill](const std::pair<int, int>& shape) {
          const auto [dim, rows] = shape;
          return rc::gen::apply([dim = dim, fill](Positions ts, Matrix x, Position extra) { return fill(dim, ts, std::move(x), extra); },
                                rc::gen::container<Positions>(static_cast<std::size_t>(rows), position(ctx)),
                                vectors(rows, dim), extra_length(ctx));
        });
  }
  return rc::gen::mapcat(width_among(ctx, dims, valid), [ctx, max_rows, fill](int dim) {
    auto row = rc::gen::apply([](Position t, Matrix x) { return Row{t, std::move(x)}; }, position(ctx),
                              vectors(1, dim));
    auto rows = rc::gen::resize(max_rows, rc::gen::nonEmpty(rc::gen::container<std::vector<Row>>(row)));
    return rc::gen::apply(
        [dim, fill](std::vector<Row> rs, Position extra) {
          Positions ts;
          Matrix x(static_cast<Eigen::Index>(rs.size()), dim);
          for (size_t k = 0; k < rs.size(); ++k) {
            ts.push_back(rs[k].position);
            x.row(static_cast<Eigen::Index>(k)) = rs[k].x.row(0);
          }
          return fill(dim, ts, std::move(x), extra);
        },
        rows, extra_length(ctx));
  });
}

// The magnitude m on the rotated features under the declared convention
// (YaRN's and LongRoPE's attention factors; 1 otherwise).
double magnitude(const SubjectInfo& subject);
// ω_i of the rotated block at a width and request length (refused where undefined).
std::vector<double> frequencies(const SubjectInfo& subject, int dim, std::optional<Position> length);
// The roundings the declared convention adds to each ω_i (angle_error.h).
int frequency_roundings(const SubjectInfo& subject);

// The error bound of rotations of a vector at positions ts, in norm,
// relative to `scale` (the rotated block's norm times m): values 5 per
// rotation, angles the largest angle work over the block's frequencies.
Bound rotations_bound(const SubjectInfo& subject, const Positions& ts, const std::vector<double>& omegas,
                      double scale, const std::string& what);

// pecheck's rotation of x at one-axis positions ts (on every axis), in the
// subject's dtypes as real code rounds it and exactly, each read as the
// structural claims read an answer (rope::rotate: input column order, every
// feature): the same-dtype reference of a claim (issue 36,
// result/tight_bound.h). nullopt where the reference refuses the request or
// the convention is one the structural claims do not rotate whole (MLA's
// decoupled head).
struct SameDtypeRotation {
  Matrix rounded, exact;
};
std::optional<SameDtypeRotation> same_dtype_rotation(const SubjectInfo& subject, const Positions& ts, const Matrix& x,
                                                     std::optional<Position> seq_len);

// The rotated block [0, r) of each row.
inline Matrix block(const Matrix& x, int r) { return x.leftCols(r); }

// An answer against an expected rotation, pair by pair of the rotated block:
// entry a or b of pair i in row k is within the bound of one computed
// rotation at pair i's position in row k (axes[axis of i][k]; one axis for a
// one-axis convention) and frequency omegas[i], relative to the pair's size s
// = m·(|x_a| + |x_b|); two vectors of pair size s differ by at most 2s there
// (the ceiling). The answer and the expectation are in the output's column
// order (the layout's), x in the input's. `worst` is the failing or closest
// entry among those a correct subject's precision can resolve; `unresolved`
// counts the pairs whose bound reaches the ceiling (not checkable at this size).
struct PairComparison {
  std::optional<Check> worst;
  double worst_ratio = -1;
  int unresolved = 0;
  Position first_unresolved = -1;  // the smallest position with an unresolved pair
  std::optional<Check> any_unresolved;  // an unresolved pair's check, when nothing else is checkable
};
PairComparison compare_pairs(const SubjectInfo& subject, const BoundModel& model, const std::vector<Positions>& axes,
                             const Matrix& x, const Matrix& answer, const Matrix& expected,
                             const std::vector<double>& omegas, const RotateConvention& convention, double m,
                             const std::string& check);
// One-axis positions (on every axis).
PairComparison compare_pairs(const SubjectInfo& subject, const BoundModel& model, const Positions& ts,
                             const Matrix& x, const Matrix& answer, const Matrix& expected,
                             const std::vector<double>& omegas, const RotateConvention& convention, double m,
                             const std::string& check);

}  // namespace pecheck::rope
