// CLAIMS.md §7 — module.padding_invariance: a sequence's real tokens answer
// the same with and without pad tokens, on the left and on the right, with
// the positions the padding implies (SUBJECT-PROTOCOL v2: counted from 0 at
// the first real token, whatever the side; pads get position 0 and their
// rows are not compared). Each side is its own sub-check: bugs that count
// positions from the row start break left padding only, bugs that assume
// the pads come first break right padding only.
#include <fmt/format.h>

#include "module/support.h"
#include "pecheck/property/registry.h"

namespace pecheck::module::padding {

namespace {

struct PaddingCase {
  Matrix x;                   // the real tokens, N×d
  Matrix pads;                // the pad tokens (their values must not matter), P×d, P ≥ 1
  std::string side = "left";  // "left", "right" or "both"
  void validate() const {
    module::validate_batch({x}, "module.padding_invariance case");
    if (pads.rows() < 1 || pads.rows() > 64 || pads.cols() != x.cols()) throw InvalidInput("1..64 pads of width d");
    if (side != "left" && side != "right" && side != "both") throw InvalidInput("side is left, right or both");
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PaddingCase, x, pads, side)

rc::Gen<PaddingCase> padding_gen(const GenContext& ctx) {
  return rc::gen::mapcat(module::width(ctx), [ctx](int width) {
    return rc::gen::apply(
        [](Matrix x, Matrix pads, std::string side) { return PaddingCase{std::move(x), std::move(pads), side}; },
        rc::gen::mapcat(module::token_count(ctx, 1), [width](int n) { return module::tokens(n, width); }),
        rc::gen::mapcat(rc::gen::inRange(1, 4), [width](int p) { return module::tokens(p, width); }),
        rc::gen::elementOf(std::vector<std::string>{"left", "right", "both"}));
  });
}

// The sequence with its pads on one side, the positions and the padding row.
struct Padded {
  Batch x;
  std::vector<Positions> positions;
  BoolMatrix padding;
  Eigen::Index first = 0;  // the row of the first real token
};

Padded pad(const PaddingCase& c, bool left) {
  const Eigen::Index n = c.x.rows(), p = c.pads.rows();
  Padded out;
  out.first = left ? p : 0;
  Matrix x(n + p, c.x.cols());
  x.middleRows(out.first, n) = c.x;
  x.middleRows(left ? 0 : n, p) = c.pads;
  out.x = {x};
  Positions positions(static_cast<size_t>(n + p), 0);
  out.padding = BoolMatrix::Constant(1, n + p, false);
  for (Eigen::Index r = 0; r < n; ++r) {
    positions[static_cast<size_t>(out.first + r)] = r;
    out.padding(0, out.first + r) = true;
  }
  out.positions = {positions};
  return out;
}

Measurement padding_measure(Subject& s, const PaddingCase& c, const BoundModel& model) {
  const Batch x{c.x};
  const std::vector<Positions> counting{module::counting(0, c.x.rows())};
  const Batch base = module::forward_checked(s, x, counting);
  const Batch repeated = module::forward_checked(s, x, counting);
  const double noise = module::spread(base, repeated);
  Measurement m;
  for (const bool left : {true, false}) {
    if (c.side != "both" && c.side != (left ? "left" : "right")) continue;
    const Padded padded = pad(c, left);
    const Batch y = module::forward_checked(s, padded.x, padded.positions, padded.padding);
    Check check{left ? "real rows with left padding" : "real rows with right padding"};
    std::vector<std::pair<Eigen::Index, Eigen::Index>> rows;
    for (Eigen::Index r = 0; r < c.x.rows(); ++r) rows.emplace_back(padded.first + r, r);
    module::worst_row(check, y[0], base[0], rows, 0);
    check.bound = module::comparison_bound(s.info(), static_cast<int>(c.x.cols()), c.x.rows() + c.pads.rows(),
                                           c.x.rows(), module::scale_of(x, {&base, &y}), noise, model.factor(),
                                           module::ceiling_of({&base, &y}));
    if (check.where.token) {
      check.where.position = *check.where.token - padded.first;
      check.where.label = fmt::format("{} pad(s) on the {}", c.pads.rows(), left ? "left" : "right");
    }
    check.note = fmt::format("the real tokens' rows with {} pad token(s) on the {} against the sequence alone",
                             c.pads.rows(), left ? "left" : "right");
    m.checks.push_back(std::move(check));
  }
  return m;
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {scaling({Axis::tokens}, define<PaddingCase>("module.padding_invariance",
                                                     {"real rows with left padding", "real rows with right padding"},
                                                     padding_gen, padding_measure))};
}

}  // namespace pecheck::module::padding
