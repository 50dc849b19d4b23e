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

#include "pecheck/property/identify.h"
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

// Which cause fits the answers (issue 40): a convention of another rotary
// width (the whole head rotated, a partial_rotary_factor never read) is told
// by the rotary diagnosis's fits; a tail that comes back zero by its own
// re-queried answer; anything else is left to the counterexample.
std::string pass_through_diagnose(Subject& s, const PassThroughCase& c, const BoundModel& model) {
  std::string fit = identify::diagnose_rotary(s, model, c.dim, c.positions, c.seq_len);
  if (fit.find("it explains every re-queried answer") != std::string::npos) return fit;
  const SubjectInfo& info = s.info();
  const int r = rotated_width(info, c.dim);
  Matrix x = Matrix::Constant(static_cast<Eigen::Index>(c.positions.size()), c.dim, 0.5);
  const Matrix answer = rotate(s, c.positions, x, c.seq_len);
  if (answer.rightCols(c.dim - r).isZero(0)) {
    return fmt::format("the pass-through features {}..{} come back 0 for inputs of 0.5: an output buffer of zeros "
                       "filled only in the rotated block (torch.zeros_like where torch.cat((rotated, x_pass)) "
                       "belongs)",
                       r, c.dim - 1);
  }
  return {};
}

}  // namespace

PropertyImpl pass_through() {
  return scaling({Axis::width, Axis::rows}, define<PassThroughCase>("rope.pass_through", {"pass-through features"},
                                                                   pass_through_gen, pass_through_measure,
                                                                   pass_through_diagnose));
}

std::vector<PropertyImpl> properties() { return {pass_through()}; }

}  // namespace pecheck::rope::pass_through
