// CLAIMS.md §10 — rope.axes_2d: a 2-D rotary (params.rotate.rope_2d: Pixtral,
// Qwen2-VL's vision tower) turns the first half of its pairs by a patch's row
// and the second half by its column, at the declared frequencies
// (core/conventions.h Frequencies2d, reference::rotary_frequency_index), and
// a logit depends only on (Δrow, Δcol). Rotate requests carry positions as
// 2 × n (SUBJECT-PROTOCOL.md "New conventions"). The other rotary claims
// read one position per row, so a 2-D subject is judged here alone
// (property/applicability.h: a rotate claim applies to it only when it names
// rotate.axes_2d).
//
//   rows and columns as declared      every pair against the float64 2-D
//       reference, pair by pair within the bound of one computed rotation
//       (rope/common.h compare_pairs), on an image grid of up to 32 × 32
//       patches (inside every published vision tower's table: Pixtral's
//       max_patches_per_side is 64)
//   logit depends only on (Δrow, Δcol)   (R q)·(R k) for q at (r1, c1) and k at
//       (r2, c2) equals the same with both moved by (a, b), within the error
//       of the rotations (rope.relative_dot's model), at any position — a
//       table built for a grid of fixed size and indexed past it breaks this
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "pecheck/property/compare.h"
#include "pecheck/property/identify.h"
#include "pecheck/reference/rotary.h"
#include "rope/common.h"
#include "input_checks.h"

namespace pecheck::rope::axes_2d {

namespace {

constexpr const char* kValues = "rows and columns as declared";
constexpr const char* kRelative = "logit depends only on (Δrow, Δcol)";
constexpr Position kGrid = 32;  // the value check's grid side

struct Case2d {
  int dim = 4;
  Positions rows, cols;  // the value check: one (row, column) per row of x
  Matrix x;
  Position q_row = 0, q_col = 0, k_row = 0, k_col = 0, shift_row = 0, shift_col = 0;  // the relative check
  Matrix query, key;
  void validate() const {
    input::width("dim", dim);
    if (dim % 4 != 0) input::invalid("dim", "a 2-D rotary needs a multiple of 4 features");
    if (rows.size() != cols.size() || rows.empty()) input::invalid("cols", "one column per row, at least one");
    for (Position t : rows) input::position("rows", t, input::kMaxPosition);
    for (Position t : cols) input::position("cols", t, input::kMaxPosition);
    input::matrix("x", x, static_cast<Eigen::Index>(rows.size()), dim);
    for (Position t : {q_row, q_col, k_row, k_col, q_row + shift_row, q_col + shift_col, k_row + shift_row,
                       k_col + shift_col}) {
      input::position("relative positions", t, input::kMaxPosition);
    }
    input::matrix("query", query, 1, dim);
    input::matrix("key", key, 1, dim);
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Case2d, dim, rows, cols, x, q_row, q_col, k_row, k_col, shift_row, shift_col,
                                   query, key)

std::vector<int> dims_2d(const GenContext& ctx) {
  std::vector<int> out;
  for (int d : within_gate(valid_dims(ctx.subject), ctx)) {
    if (rotated_width(ctx.subject, d) % 4 == 0) out.push_back(d);
  }
  if (out.empty()) throw Refusal("no width the gate allows splits its rotated pairs between rows and columns");
  return out;
}

// (row, column) streams in the request's order (axes ["w", "h"]: the column first).
std::vector<Positions> streams(const SubjectInfo& info, const Positions& rows, const Positions& cols) {
  const bool columns_first = info.rotate.rope_2d && info.rotate.rope_2d->columns_first;
  return columns_first ? std::vector<Positions>{cols, rows} : std::vector<Positions>{rows, cols};
}

rc::Gen<Case2d> gen_2d(const GenContext& ctx) {
  const Position max = position_limit(ctx, Op::rotate);
  return rc::gen::mapcat(dim_among(dims_2d(ctx)), [ctx, max](int dim) {
    const auto grid = rc::gen::inRange<Position>(0, std::min(kGrid, max + 1));
    return rc::gen::mapcat(rc::gen::inRange(1, 5), [=](int n) {
      return rc::gen::apply(
          [dim, max](Positions rows, Positions cols, Matrix x, std::vector<Position> at, Matrix q, Matrix k) {
            Case2d c;
            c.dim = dim;
            c.rows = std::move(rows);
            c.cols = std::move(cols);
            c.x = std::move(x);
            // Both pairs inside [0, max]: starts clamped below max − shift.
            c.shift_row = at[4];
            c.shift_col = at[5];
            c.q_row = std::min(at[0], max - c.shift_row);
            c.q_col = std::min(at[1], max - c.shift_col);
            c.k_row = std::min(at[2], max - c.shift_row);
            c.k_col = std::min(at[3], max - c.shift_col);
            c.query = std::move(q);
            c.key = std::move(k);
            return c;
          },
          rc::gen::container<Positions>(static_cast<size_t>(n), grid),
          rc::gen::container<Positions>(static_cast<size_t>(n), grid), vectors(n, dim),
          rc::gen::container<std::vector<Position>>(6, position(ctx, max)), vectors(1, dim), vectors(1, dim));
    });
  });
}

// ω of each pair of the rotated block, in pair order (compare_pairs reads omegas[i]).
std::vector<double> pair_frequencies(const SubjectInfo& info, int dim) {
  const int r = rotated_width(info, dim);
  const std::vector<double> omegas = frequencies(info, dim, std::nullopt);
  std::vector<double> out(static_cast<size_t>(r / 2));
  for (int i = 0; i < r / 2; ++i) {
    out[static_cast<size_t>(i)] = omegas[static_cast<size_t>(reference::rotary_frequency_index(i, r, info.rotate))];
  }
  return out;
}

Check value_check(Subject& s, const Case2d& c, const BoundModel& model) {
  const SubjectInfo& info = s.info();
  const auto axes = streams(info, c.rows, c.cols);
  const Matrix answer = rotate_axes(s, axes, c.x, std::nullopt);
  const Matrix expected = reference::rotary_axes(axes, c.x, info.rotate, std::nullopt);
  PairComparison compared = compare_pairs(info, model, axes, c.x, answer, expected, pair_frequencies(info, c.dim),
                                          info.rotate, magnitude(info), kValues);
  if (!compared.worst && !compared.any_unresolved) throw std::logic_error("rope.axes_2d compared no pair");
  Check check = compared.worst ? std::move(*compared.worst) : std::move(*compared.any_unresolved);
  const int r = rotated_width(info, c.dim);
  check.note = fmt::format("every pair against the 2-D reference ({} frequencies: pairs 0..{} by the row, {}..{} by "
                           "the column; base {:g}, {} layout)",
                           name(info.rotate.rope_2d->frequencies), r / 4 - 1, r / 4, r / 2 - 1, info.rotate.base,
                           name(info.rotate_layout()));
  return check;
}

Check relative_check(Subject& s, const Case2d& c) {
  const SubjectInfo& info = s.info();
  const Positions rows = {c.q_row, c.k_row, c.q_row + c.shift_row, c.k_row + c.shift_row};
  const Positions cols = {c.q_col, c.k_col, c.q_col + c.shift_col, c.k_col + c.shift_col};
  Matrix x(4, c.dim);
  x << c.query, c.key, c.query, c.key;
  const int r = rotated_width(info, c.dim);
  const Matrix out = reference::rotary_input_order(rotate_axes(s, streams(info, rows, cols), x, std::nullopt), r,
                                                   info.rotate_layout())
                         .leftCols(r);
  const double dot = out.row(0).dot(out.row(1)), moved = out.row(2).dot(out.row(3));
  const double m = magnitude(info);
  const double qk = c.query.leftCols(r).norm() * c.key.leftCols(r).norm() * m * m;
  // The rotations' error at the largest angle either axis reaches (rope.relative_dot's model).
  Positions every = rows;
  every.insert(every.end(), cols.begin(), cols.end());
  Bound bound = rotations_bound(info, every, frequencies(info, c.dim, std::nullopt), qk, "m²‖q‖‖k‖ of the rotated block");
  bound.at_most(2 * qk);
  Location where;
  where.label = fmt::format("q at (row {}, column {}), k at ({}, {}), both moved by ({}, {})", c.q_row, c.q_col,
                            c.k_row, c.k_col, c.shift_row, c.shift_col);
  where.position = std::max({rows[2], rows[3], cols[2], cols[3]});
  Check check = compare_scalars(kRelative, moved, dot, std::move(bound), std::move(where));
  check.note = fmt::format("dot products of the rotated blocks of a query and a key at the same (Δrow, Δcol) = ({}, "
                           "{})",
                           c.k_row - c.q_row, c.k_col - c.q_col);
  return check;
}

Measurement measure_2d(Subject& s, const Case2d& c, const BoundModel& model) {
  if (!s.info().rotate.rope_2d) throw InvalidInput("rope.axes_2d: the subject declares no rope_2d");
  Measurement m;
  m.checks.push_back(value_check(s, c, model));
  m.checks.push_back(relative_check(s, c));
  return m;
}

// Which arrangement the answers are: the rotary diagnosis
// (pecheck/property/identify.h) re-queries the subject with a row and a
// column apart at the case's positions and more, and ranks the usual
// suspects of a 2-D rotary (rows and columns swapped, the other frequency
// split, a 64-patch table indexed past its end) with every rotary's.
std::string diagnose_2d(Subject& s, const Case2d& c, const BoundModel& model) {
  Positions at = c.rows;
  at.insert(at.end(), c.cols.begin(), c.cols.end());
  for (Position t : {c.q_row, c.q_col, c.k_row, c.k_col, c.q_row + c.shift_row, c.q_col + c.shift_col,
                     c.k_row + c.shift_row, c.k_col + c.shift_col}) {
    at.push_back(t);
  }
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  return identify::diagnose_rotary(s, model, c.dim, at, at.back() + 1);
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {define<Case2d>("rope.axes_2d", {kValues, kRelative}, gen_2d, measure_2d, diagnose_2d)};
}

}  // namespace pecheck::rope::axes_2d
