// CLAIMS.md §7 — module.causality: with `causal: true`, output row i is
// unchanged when any token j > i changes, through every layer of the module
// (a mask that leaks one future token anywhere in the stack shows in the
// rows before it). One token is changed per case, so the witness is one
// future token and the rows that saw it.
#include <fmt/format.h>

#include "module/support.h"
#include "pecheck/property/registry.h"

namespace pecheck::module::causality {

namespace {

struct CausalityCase {
  Batch x;                           // B sequences of N ≥ 2 tokens
  std::vector<Positions> positions;  // one row per sequence
  int sequence = 0;                  // the sequence whose token changes
  int changed = 1;                   // the token that changes (≥ 1: some rows come before it)
  Matrix replacement;                // 1×d: its new value
  void validate() const {
    module::validate_batch(x, "module.causality case");
    const auto n = x.front().rows();
    if (positions.size() != x.size()) throw InvalidInput("one row of positions per sequence");
    for (const auto& row : positions) {
      if (static_cast<Eigen::Index>(row.size()) != n) throw InvalidInput("a position per token");
    }
    if (sequence < 0 || sequence >= static_cast<int>(x.size())) throw InvalidInput("no such sequence");
    if (changed < 1 || changed >= n) throw InvalidInput("the changed token must have tokens before it");
    if (replacement.rows() != 1 || replacement.cols() != x.front().cols()) throw InvalidInput("one token of width d");
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CausalityCase, x, positions, sequence, changed, replacement)

rc::Gen<CausalityCase> causality_gen(const GenContext& ctx) {
  return rc::gen::mapcat(rc::gen::pair(module::width(ctx), module::token_count(ctx, 2)),
                         [ctx](std::pair<int, int> shape) {
    const int width = shape.first, n = shape.second;
    using Sequence = std::pair<Matrix, Position>;
    const auto sequences =
        module::sequences<Sequence>(ctx, 1, 2, rc::gen::pair(module::tokens(n, width), module::start(ctx, n)));
    return rc::gen::apply(
        [n](const std::vector<Sequence>& seqs, int which, int changed, Matrix replacement) {
          CausalityCase c;
          for (const auto& [x, from] : seqs) {
            c.x.push_back(x);
            c.positions.push_back(module::counting(from, n));
          }
          c.sequence = which % static_cast<int>(seqs.size());
          c.changed = changed;
          c.replacement = std::move(replacement);
          return c;
        },
        sequences, rc::gen::inRange(0, 2), rc::gen::inRange(1, n), module::tokens(1, width));
  });
}

Measurement causality_measure(Subject& s, const CausalityCase& c, const BoundModel& model) {
  const Batch base = module::forward_checked(s, c.x, c.positions);
  const Batch repeated = module::forward_checked(s, c.x, c.positions);
  Batch changed = c.x;
  changed[static_cast<size_t>(c.sequence)].row(c.changed) = c.replacement.row(0);
  const Batch after = module::forward_checked(s, changed, c.positions);

  Check check{"rows before the changed token"};
  std::vector<std::pair<Eigen::Index, Eigen::Index>> rows;
  for (Eigen::Index r = 0; r < c.changed; ++r) rows.emplace_back(r, r);
  const auto b = static_cast<size_t>(c.sequence);
  module::worst_row(check, after[b], base[b], rows, c.sequence);
  Position largest = 0;
  for (const auto& row : c.positions) {
    for (Position t : row) largest = std::max(largest, t);
  }
  check.bound = module::comparison_bound(s.info(), static_cast<int>(c.x.front().cols()), c.x.front().rows(), largest,
                                         module::scale_of(c.x, {&base, &after}), module::spread(base, repeated),
                                         model.factor(), module::ceiling_of({&base, &after}));
  check.where.batch = c.sequence;
  check.where.other_position = c.positions[b][static_cast<size_t>(c.changed)];
  if (check.where.token) check.where.position = c.positions[b][static_cast<size_t>(*check.where.token)];
  check.where.label = fmt::format("token {} changed", c.changed);
  check.note = fmt::format("rows 0..{} of sequence {} before and after token {} (a later one) changed", c.changed - 1,
                           c.sequence, c.changed);
  return {{std::move(check)}, {}};
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {scaling({Axis::tokens, Axis::batch}, define<CausalityCase>("module.causality",
                                                                    {"rows before the changed token"}, causality_gen,
                                                                    causality_measure))};
}

}  // namespace pecheck::module::causality
