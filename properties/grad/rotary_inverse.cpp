// CLAIMS.md §11 — grad.rotary_inverse: the backward of a rotation is the
// inverse rotation of the upstream gradient, pair by pair in the declared
// layout: dx = m·R(−θ)·g, so the subject's own forward turns it back,
// R(θ)·dx = m²·g on the rotated block (g itself on the features that pass
// through). Judged with the subject's forward alone, no reference: a
// backward turning by +θ (R(θ)R(θ)g = R(2θ)g) or pairing (i, i + r/2) where the
// forward pairs (2i, 2i+1) is caught even where the forward is exact.
#include <fmt/format.h>

#include <cmath>

#include "grad/support.h"
#include "pecheck/property/compare.h"
#include "pecheck/property/registry.h"
#include "rope/common.h"

namespace pecheck::grad::rotary_inverse {

namespace {

Measurement measure(Subject& s, const RotateCase& c, const BoundModel& model) {
  const SubjectInfo& info = s.info();
  const Matrix dx = rotate_vjp(s, c);
  const Matrix back = rope::rotate(s, c.positions, dx, rope::sent_length(info, c.seq_len));
  require_shape(back, c.x.rows(), c.x.cols(), "rotate");
  const int r = rope::rotated_width(info, static_cast<int>(c.x.cols()));
  const double m = rope::magnitude(info);
  Matrix expected = c.g;
  expected.leftCols(r) *= m * m;
  Check worst = worst_rotation_row(info, c, model, "R(θ)·dx = m²·g", back, expected, 2,
                                   "2·max(m, m²)·max|g| of the row", same_dtype_vjp_rows(info, c, &expected));
  worst.note = fmt::format("the subject's rotation of its own dx at the same position against m²·g (m = {:.6g}; the "
                           "{} features past the rotary width {} against g): the backward must undo the turn",
                           m, c.x.cols() - r, r);
  return {{std::move(worst)}, {}};
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {define<RotateCase>("grad.rotary_inverse", {"R(θ)·dx = m²·g"}, rotate_case, measure)};
}

}  // namespace pecheck::grad::rotary_inverse
