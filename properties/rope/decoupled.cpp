// CLAIMS.md §10 — rope.decoupled: with qk_rope_head_dim r and
// qk_nope_head_dim (DeepSeek-V2/V3 MLA), a head of nope + r features turns
// only its last r (interleaved unless another layout is declared); the first
// nope pass through unchanged. The other rotary claims read the rotated block
// at the head's start (rotary_dim), so a decoupled subject is judged here
// alone (property/applicability.h: a rotate claim applies to it only when it
// names rotate.decoupled).
//
// "nope features pass through" is exact (a copy of values the subject's dtype
// represents); "rope features against the reference" compares the last r
// features pair by pair with reference::rotary of the slice's convention
// (reference::rope_slice), each within the bound of one computed rotation as
// rope.reference_values does (rope/common.h compare_pairs).
#include <fmt/format.h>

#include <limits>
#include <stdexcept>

#include "pecheck/property/compare.h"
#include "pecheck/property/identify.h"
#include "pecheck/reference/rotary.h"
#include "rope/common.h"
#include "input_checks.h"

namespace pecheck::rope::decoupled {

namespace {

struct DecoupledCase {
  int dim = 2;
  Positions positions;
  Position seq_len = 1;
  Matrix x;  // one row per position, nope + rope features
  void validate() const {
    input::width("dim", dim);
    input::length("seq_len", seq_len);
    input::positions("positions", positions, seq_len);
    input::matrix("x", x, static_cast<Eigen::Index>(positions.size()), dim);
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(DecoupledCase, dim, positions, seq_len, x)

int rope_dim(const SubjectInfo& info) { return *info.rotate.qk_rope_head_dim; }
int nope_dim(const SubjectInfo& info) { return info.rotate.qk_nope_head_dim.value_or(0); }

// The subject's info as the rope slice's: the convention it turns those features by.
SubjectInfo slice_info(const SubjectInfo& info) {
  SubjectInfo slice = info;
  slice.rotate = reference::rope_slice(declared(info));
  return slice;
}

rc::Gen<DecoupledCase> decoupled_gen(const GenContext& ctx) {
  const int d = rope_dim(ctx.subject) + nope_dim(ctx.subject);
  return positioned_rows<DecoupledCase>(ctx, {d}, 6, [d](std::int64_t w) { return w == d; });
}

Measurement decoupled_measure(Subject& s, const DecoupledCase& c, const BoundModel& model) {
  const SubjectInfo& info = s.info();
  const int r = rope_dim(info), nope = nope_dim(info);
  if (c.dim != r + nope) {
    throw InvalidInput(fmt::format("rope.decoupled: a head has {} + {} features, the case {}", nope, r, c.dim));
  }
  // Values the subject's dtype represents: the pass-through copies them exactly.
  const Matrix x = c.x.unaryExpr([&info](double v) { return round_to(info.dtype, v); });
  const Matrix answer = rotate_as_answered(s, c.positions, x, c.seq_len);
  Measurement m;
  if (nope > 0) {
    Check copy = compare_entries("nope features pass through", answer.leftCols(nope), x.leftCols(nope),
                                 Bound::exact("a copy of values the subject's dtype represents"));
    const auto row = static_cast<size_t>(copy.where.row.value_or(0));
    copy.where.position = c.positions[row];
    copy.where.label = fmt::format("feature {} of the head (the first {} pass through)", copy.where.column.value_or(0),
                                   nope);
    copy.note = fmt::format("features 0..{} (qk_nope_head_dim) of the answer against x's, which they must copy",
                            nope - 1);
    m.checks.push_back(std::move(copy));
  }
  const SubjectInfo slice = slice_info(info);
  const Matrix xs = x.rightCols(r), got = answer.rightCols(r);
  const Matrix expected = reference::rotary(c.positions, xs, slice.rotate, c.seq_len);
  const auto omegas = frequencies(slice, r, request_length(slice, c.positions, c.seq_len));
  PairComparison compared = compare_pairs(slice, model, c.positions, xs, got, expected, omegas, slice.rotate,
                                          magnitude(slice), "rope features against the reference");
  if (!compared.worst && !compared.any_unresolved) throw std::logic_error("rope.decoupled compared no pair");
  Check turned = compared.worst ? std::move(*compared.worst) : std::move(*compared.any_unresolved);
  if (turned.where.column) *turned.where.column += nope;
  turned.note = fmt::format("features {}..{} (the last qk_rope_head_dim = {}) against R_t of the slice, {} layout, "
                            "base {:g}",
                            nope, nope + r - 1, r, name(slice.rotate.layout), slice.rotate.base);
  m.checks.push_back(std::move(turned));
  if (compared.unresolved > 0) {
    m.note = fmt::format("{} pair(s) not checkable in {} angles", compared.unresolved, name(model.dtype(Stage::angles)));
  }
  return m;
}

// Which slice turned, in which layout, at which base…: the rotary
// diagnosis (pecheck/property/identify.h) re-queries the head around the
// witness and ranks the usual suspects of a decoupled head (the rotary on the
// nope slice, the nope features zeroed) with every rotary's.
std::string decoupled_diagnose(Subject& s, const DecoupledCase& c, const BoundModel& model) {
  return identify::diagnose_rotary(s, model, c.dim, c.positions, c.seq_len);
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {define<DecoupledCase>("rope.decoupled", {"nope features pass through", "rope features against the reference"},
                                decoupled_gen, decoupled_measure, decoupled_diagnose)};
}

}  // namespace pecheck::rope::decoupled
