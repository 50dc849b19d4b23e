// CLAIMS.md §5 — rope.reference_values: R_t x equals the declared reference
// rotation (base, schedule, rotary width, layout, direction, scaling; the
// reference in reference/rotary.h). An identity map, a wrong base, exponent
// i/d, an inverse rotation, a partial rotary declared full or a wrong scaling
// formula each pass every structural claim and fail here, with a diagnosis of
// which one it is (pecheck/property/identify.h).
//
// CLAIMS.md §9 extends it to the schemes of 2024–2026 models: LongRoPE's
// factor lists and their switch, YaRN's mscale, per-pair freq_factors, the
// interleave_then_halves layout, and multi-axis positions — a subject that
// declares mrope_section gets distinct positions on each axis (t, h, w: an
// image patch's), each pair judged at its own axis's position.
//
// Compared on the rotated block, pair by pair, each entry against the bound of
// one computed rotation at its own position and frequency (rope/common.h):
// where a correct subject's declared angle precision cannot resolve a pair at
// all (the bound reaches twice the pair's size), that pair is not judged, and
// a case with nothing left to judge is not checkable. The pass-through
// features are rope.pass_through's. Every request carries its sequence length
// (what real code derives its cache and dynamic scaling from).
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "pecheck/property/identify.h"
#include "pecheck/reference/rotary.h"
#include "rope/common.h"
#include "input_checks.h"

namespace pecheck::rope::reference_values {

namespace {

struct ReferenceCase {
  int dim = 2;
  Positions positions;
  Position seq_len = 1;
  Matrix x;  // one row per position
  // Multi-axis conventions: the rows' positions per axis (positions is axis t's).
  std::vector<Positions> axes;
  void validate() const {
    input::width("dim", dim);
    input::length("seq_len", seq_len);
    input::positions("positions", positions, seq_len);
    input::matrix("x", x, static_cast<Eigen::Index>(positions.size()), dim);
    if (positions.empty() || static_cast<Eigen::Index>(positions.size()) != x.rows() || x.cols() != dim) {
      throw InvalidInput("rope.reference_values: one vector of width dim per position");
    }
    for (Position t : positions) {
      if (t < 0 || t >= seq_len) throw InvalidInput("rope.reference_values: positions lie in [0, seq_len)");
    }
    if (axes.size() > 3) throw InvalidInput("rope.reference_values: at most 3 axes of positions");
    for (const auto& axis : axes) input::positions("axes", axis, seq_len);
    for (const auto& axis : axes) {
      if (axis.size() != positions.size()) throw InvalidInput("rope.reference_values: one position per row on each axis");
    }
  }
  // The positions each axis sends (the one-axis positions on every axis when none are given).
  std::vector<Positions> per_axis(const SubjectInfo& subject) const {
    return axes.empty() ? on_every_axis(subject, positions) : axes;
  }
};
// axes is written only for multi-axis cases, and optional on reading (inputs
// recorded before it existed); every other field is required.
void to_json(json& j, const ReferenceCase& c) {
  j = json{{"dim", c.dim}, {"positions", c.positions}, {"seq_len", c.seq_len}, {"x", c.x}};
  if (!c.axes.empty()) j["axes"] = c.axes;
}
void from_json(const json& j, ReferenceCase& c) {
  j.at("dim").get_to(c.dim);
  j.at("positions").get_to(c.positions);
  j.at("seq_len").get_to(c.seq_len);
  j.at("x").get_to(c.x);
  c.axes.clear();
  if (j.contains("axes")) j.at("axes").get_to(c.axes);
}

rc::Gen<ReferenceCase> reference_gen(const GenContext& ctx) {
  auto rows = positioned_rows<ReferenceCase>(ctx, valid_dims(ctx.subject), 8, defined_width(ctx.subject));
  if (!ctx.subject.rotate.multi_axis()) return rows;
  // Axis t keeps the drawn positions; h and w get their own, below seq_len.
  const auto axes = ctx.subject.rotate.mrope_section.size();
  return rc::gen::mapcat(rows, [ctx, axes](ReferenceCase c) {
    const auto n = c.positions.size();
    const Position top = std::min(c.seq_len - 1, ctx.max_position);  // within the gate and the sequence
    return rc::gen::map(rc::gen::container<std::vector<Position>>((axes - 1) * n, position(ctx, top)),
                        [c, axes, n](const std::vector<Position>& others) {
                          ReferenceCase out = c;
                          out.axes.assign(axes, c.positions);
                          for (size_t a = 1; a < axes; ++a) {
                            std::copy_n(others.begin() + static_cast<std::ptrdiff_t>((a - 1) * n), n, out.axes[a].begin());
                          }
                          return out;
                        });
  });
}

Measurement reference_measure(Subject& s, const ReferenceCase& c, const BoundModel& model) {
  const SubjectInfo& info = s.info();
  const RotateConvention convention = declared(info);
  const auto axes = c.per_axis(info);
  const Matrix answer = rotate_axes(s, axes, c.x, c.seq_len);
  const Matrix expected = reference::rotary_axes(axes, c.x, convention, c.seq_len);
  const int r = rotated_width(info, c.dim);
  const auto omegas = frequencies(info, c.dim, request_length(info, axes, c.seq_len));
  PairComparison compared =
      compare_pairs(info, model, axes, c.x, answer, expected, omegas, convention, magnitude(info), "entries");
  if (!compared.worst && !compared.any_unresolved) throw std::logic_error("rope.reference_values compared no pair");
  Check check = compared.worst ? std::move(*compared.worst) : std::move(*compared.any_unresolved);
  check.note = fmt::format("R_t x against the declared reference ({}) on the rotated block, features 0..{} of {}, "
                           "each pair against its own angle's bound{}",
                           identify::describe(convention), r - 1, c.dim,
                           convention.scaling.type == ScalingType::longrope
                               ? fmt::format(" ({} factors at length {})",
                                             reference::longrope_long(convention, request_length(info, axes, c.seq_len))
                                                 ? "long"
                                                 : "short",
                                             request_length(info, axes, c.seq_len))
                               : std::string());
  Measurement m;
  if (compared.unresolved > 0) {
    m.note = fmt::format("{} pair(s) not checkable in {} angles (from position {} on: the bound reaches the largest "
                         "possible error)",
                         compared.unresolved, name(model.dtype(Stage::angles)), compared.first_unresolved);
  }
  m.checks.push_back(std::move(check));
  return m;
}

std::string reference_diagnose(Subject& s, const ReferenceCase& c, const BoundModel& model) {
  return identify::diagnose_rotary(s, model, c.dim, c.positions, c.seq_len);
}

}  // namespace

PropertyImpl reference_values() {
  return scaling({Axis::width, Axis::rows}, define<ReferenceCase>("rope.reference_values", {"entries"}, reference_gen,
                                                                 reference_measure, reference_diagnose));
}

std::vector<PropertyImpl> properties() { return {reference_values()}; }

}  // namespace pecheck::rope::reference_values
