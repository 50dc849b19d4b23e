// CLAIMS.md §5 — rope.reference_values: R_t x equals the declared reference
// rotation (base, schedule, rotary width, layout, direction, scaling; the
// reference in reference/rotary.h). An identity map, a wrong base, exponent
// i/d, an inverse rotation, a partial rotary declared full or a wrong scaling
// formula each pass every structural claim and fail here, with a diagnosis of
// which one it is (pecheck/property/identify.h).
//
// Compared on the rotated block, pair by pair, each entry against the bound of
// one computed rotation at its own position and frequency (rope_common.h):
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
#include "rope_common.h"
#include "rope_family.h"
#include "input_checks.h"

namespace pecheck::rope {

namespace {

struct ReferenceCase {
  int dim = 2;
  Positions positions;
  Position seq_len = 1;
  Matrix x;  // one row per position
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
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ReferenceCase, dim, positions, seq_len, x)

rc::Gen<ReferenceCase> reference_gen(const GenContext& ctx) {
  return positioned_rows<ReferenceCase>(ctx, valid_dims(ctx.subject), 8, defined_width(ctx.subject));
}

Measurement reference_measure(Subject& s, const ReferenceCase& c, const BoundModel& model) {
  const SubjectInfo& info = s.info();
  const RotateConvention convention = declared(info);
  const Matrix answer = rotate(s, c.positions, c.x, c.seq_len);
  const Matrix expected = reference::rotary(c.positions, c.x, convention, c.seq_len);
  const int r = rotated_width(info, c.dim);
  const auto omegas = frequencies(info, c.dim, c.seq_len);
  PairComparison compared = compare_pairs(info, model, c.positions, c.x, answer, expected, omegas, convention.layout,
                                          magnitude(info), "entries");
  if (!compared.worst && !compared.any_unresolved) throw std::logic_error("rope.reference_values compared no pair");
  Check check = compared.worst ? std::move(*compared.worst) : std::move(*compared.any_unresolved);
  check.note = fmt::format("R_t x against the declared reference ({}) on the rotated block, features 0..{} of {}, "
                           "each pair against its own angle's bound",
                           identify::describe(convention), r - 1, c.dim);
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

}  // namespace pecheck::rope
