// CLAIMS.md §7 — module.shift_invariance: for `positional: relative` (a
// rotary embedding or a relative bias inside), adding one constant k to every
// position leaves the output unchanged: only differences of positions reach
// the logits. Positions that lose precision (angles or positions in a 16-bit
// type) or a base that follows the absolute length (dynamic NTK past its
// original length) break it.
#include <fmt/format.h>

#include "module/support.h"
#include "pecheck/property/registry.h"
#include "pecheck/reference/attention.h"

namespace pecheck::module::shift {

namespace {

struct ShiftCase {
  Batch x;                     // B sequences of N tokens
  std::vector<Position> starts;  // sequence b is at starts[b], starts[b] + 1, …
  Position shift = 1;          // k, added to every position
  void validate() const {
    module::validate_batch(x, "module.shift_invariance case");
    if (starts.size() != x.size()) throw InvalidInput("one start per sequence");
    for (Position s : starts) {
      if (s < 0 || shift < 1 || s + shift > (Position{1} << 40)) throw InvalidInput("positions from 0, shift ≥ 1");
    }
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ShiftCase, x, starts, shift)

// The positions over which the module is relative: all, but below the first
// temperature step of a tuned layer (Llama 4: queries at p ≥ floor_scale − 1
// are scaled by their absolute position; attention.temperature_tuning judges those).
Position relative_limit(const SubjectInfo& s, Position max) {
  if (!s.forward) return max;
  for (const auto& layer : s.forward->layers) {
    if (layer.temperature_tuning) max = std::min(max, reference::temperature_step(*layer.temperature_tuning, 1) - 1);
  }
  return max;
}

rc::Gen<ShiftCase> shift_gen(const GenContext& given) {
  GenContext ctx = given;
  ctx.max_position = relative_limit(given.subject, given.max_position);
  const Position max = ctx.max_position;
  return rc::gen::mapcat(rc::gen::pair(module::width(ctx), module::token_count(ctx, 1)),
                         [ctx, max](std::pair<int, int> shape) {
    const int width = shape.first, n = shape.second;
    using Sequence = std::pair<Matrix, Position>;
    return rc::gen::apply(
        [n, max](const std::vector<Sequence>& seqs, Position shift) {
          ShiftCase c;
          Position last = 0;
          for (const auto& [x, from] : seqs) {
            c.x.push_back(x);
            c.starts.push_back(from);
            last = std::max(last, from + n - 1);
          }
          // Every shifted position stays within max_position.
          c.shift = std::clamp<Position>(shift, 1, std::max<Position>(1, max - last));
          return c;
        },
        module::sequences<Sequence>(ctx, 1, 2, rc::gen::pair(module::tokens(n, width), module::start(ctx, n + 1))),
        rc::gen::map(module::start(ctx, 0), [](Position k) { return k + 1; }));
  });
}

std::vector<Positions> at(const ShiftCase& c, Position shift) {
  std::vector<Positions> out;
  for (Position from : c.starts) out.push_back(module::counting(from + shift, c.x.front().rows()));
  return out;
}

Measurement shift_measure(Subject& s, const ShiftCase& c, const BoundModel& model) {
  const auto before = at(c, 0), after = at(c, c.shift);
  const Batch base = module::forward_checked(s, c.x, before);
  const Batch repeated = module::forward_checked(s, c.x, before);
  const Batch shifted = module::forward_checked(s, c.x, after);
  Check check{"rows after the shift"};
  const auto n = c.x.front().rows();
  std::vector<std::pair<Eigen::Index, Eigen::Index>> rows;
  for (Eigen::Index r = 0; r < n; ++r) rows.emplace_back(r, r);
  for (size_t b = 0; b < c.x.size(); ++b) module::worst_row(check, shifted[b], base[b], rows, static_cast<Eigen::Index>(b));
  Position largest = 0;
  for (const auto& row : after) largest = std::max(largest, row.back());
  check.bound = module::comparison_bound(s.info(), static_cast<int>(c.x.front().cols()), n, largest,
                                         module::scale_of(c.x, {&base, &shifted}), module::spread(base, repeated),
                                         model.factor(), module::ceiling_of({&base, &shifted}));
  if (check.where.batch && check.where.token) {
    const auto b = static_cast<size_t>(*check.where.batch);
    check.where.position = before[b][static_cast<size_t>(*check.where.token)];
    check.where.other_position = after[b][static_cast<size_t>(*check.where.token)];
  }
  check.where.label = fmt::format("every position + {}", c.shift);
  check.note = fmt::format("each sequence at its positions and at its positions + {}", c.shift);
  return {{std::move(check)}, {}};
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {scaling({Axis::tokens, Axis::batch},
                  define<ShiftCase>("module.shift_invariance", {"rows after the shift"}, shift_gen, shift_measure))};
}

}  // namespace pecheck::module::shift
