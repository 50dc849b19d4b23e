// CLAIMS.md §5 — rope.pass_through: the features at and beyond the rotary
// width (rotary_dim, or 2·⌊fraction·d/2⌋) come back unchanged. Exactly: the
// vectors sent are representable in the subject's dtype, so copying them is
// exact at any precision, and any difference is a defect (a zero-filled
// output buffer, a cos/sin table tiled across the head).
//
// It applies to subjects whose declared convention leaves features to pass
// through; the generator sends only those widths.
#include <fmt/format.h>

#include <algorithm>

#include "rope/common.h"
#include "input_checks.h"

namespace pecheck::rope::pass_through {

namespace {

struct PassThroughCase {
  int dim = 4;
  Positions positions;
  Position seq_len = 1;
  Matrix x;  // one row per position
  void validate() const {
    input::width("dim", dim);
    input::length("seq_len", seq_len);
    input::positions("positions", positions, seq_len);
    input::matrix("x", x, static_cast<Eigen::Index>(positions.size()), dim);
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PassThroughCase, dim, positions, seq_len, x)

// At most 4 rows: the features past the rotary width need few to be seen.
rc::Gen<PassThroughCase> pass_through_gen(const GenContext& ctx) {
  return positioned_rows<PassThroughCase>(ctx, partial_dims(ctx.subject), 4, partial_width(ctx.subject));
}

Measurement pass_through_measure(Subject& s, const PassThroughCase& c, const BoundModel&) {
  const SubjectInfo& info = s.info();
  const int r = rotated_width(info, c.dim);
  if (r >= c.dim) {
    throw Refusal(fmt::format("the declared convention rotates all {} features: none pass through", c.dim));
  }
  // Values the subject's dtype represents: a copy of them is exact.
  const Matrix x = c.x.unaryExpr([&info](double v) { return round_to(info.dtype, v); });
  const Matrix answer = rotate(s, c.positions, x, c.seq_len);
  Check check = compare_entries("pass-through features", answer.rightCols(c.dim - r), x.rightCols(c.dim - r),
                                Bound::exact("a copy of values the subject's dtype represents"));
  const auto row = static_cast<size_t>(check.where.row.value_or(0));
  check.where.position = c.positions[row];
  check.where.column = check.where.column.value_or(0) + r;
  check.where.label = fmt::format("feature {} of R_{} x (rotary width {} of {})", *check.where.column,
                                  c.positions[row], r, c.dim);
  check.note = fmt::format("features {}..{} of R_t x against x's, which they must copy", r, c.dim - 1);
  return {{std::move(check)}, {}};
}

}  // namespace

PropertyImpl pass_through() {
  return scaling({Axis::width, Axis::rows}, define<PassThroughCase>("rope.pass_through", {"pass-through features"},
                                                                   pass_through_gen, pass_through_measure));
}

std::vector<PropertyImpl> properties() { return {pass_through()}; }

}  // namespace pecheck::rope::pass_through
