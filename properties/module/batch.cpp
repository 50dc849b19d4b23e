// CLAIMS.md §7 — module.batch_invariance: a sequence's output does not
// depend on the other sequences in its batch, nor on its index in it. Two
// sub-checks, because the bugs split that way: statistics or a length taken
// over the whole batch change a sequence beside others (at any index), while
// a per-row setting taken from row 0 (its positions, its mask) changes it
// only away from index 0. Each sequence has its own positions.
#include <fmt/format.h>

#include "module/support.h"
#include "pecheck/property/registry.h"

namespace pecheck::module::batch {

namespace {

struct BatchCase {
  Matrix sequence;                     // the sequence observed, N×d
  Position start = 0;                  // its first position
  Batch companions;                    // the others, each N×d
  std::vector<Position> companion_starts;
  int index = 1;                       // where it moves among them (1..companions)
  void validate() const {
    Batch all = companions;
    all.push_back(sequence);
    module::validate_batch(all, "module.batch_invariance case");
    if (companions.empty() || companion_starts.size() != companions.size()) {
      throw InvalidInput("at least one companion, each with its start");
    }
    if (index < 1 || index > static_cast<int>(companions.size())) throw InvalidInput("index in 1..companions");
    if (start < 0) throw InvalidInput("positions from 0");
    for (Position s : companion_starts) {
      if (s < 0) throw InvalidInput("positions from 0");
    }
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(BatchCase, sequence, start, companions, companion_starts, index)

rc::Gen<BatchCase> batch_gen(const GenContext& ctx) {
  return rc::gen::mapcat(rc::gen::pair(module::width(ctx), module::token_count(ctx, 1)),
                         [ctx](std::pair<int, int> shape) {
    const auto [width, n] = shape;
    using Sequence = std::pair<Matrix, Position>;
    const auto sequence = rc::gen::pair(module::tokens(n, width), module::start(ctx, n));
    return rc::gen::apply(
        [](const Sequence& observed, const std::vector<Sequence>& others, int index) {
          BatchCase c;
          c.sequence = observed.first;
          c.start = observed.second;
          for (const auto& [x, from] : others) {
            c.companions.push_back(x);
            c.companion_starts.push_back(from);
          }
          c.index = 1 + (index - 1) % static_cast<int>(others.size());
          return c;
        },
        sequence,
        // The observed sequence and its companions: a batch of 2 to kMaxCompanions + 1 (up to 8 in the ladder).
        rc::gen::mapcat(size_on(ctx, module::kOp, Axis::batch, 2, module::kMaxCompanions + 1),
                        [sequence](int batch) {
                          return rc::gen::container<std::vector<Sequence>>(static_cast<size_t>(batch - 1), sequence);
                        }),
        rc::gen::inRange(1, module::kMaxCompanions + 1));
  });
}

Measurement batch_measure(Subject& s, const BatchCase& c, const BoundModel& model) {
  const auto n = c.sequence.rows();
  const Batch alone{c.sequence};
  const std::vector<Positions> alone_at{module::counting(c.start, n)};
  const Batch base = module::forward_checked(s, alone, alone_at);
  const Batch repeated = module::forward_checked(s, alone, alone_at);
  const double noise = module::spread(base, repeated);

  // The sequence first, then the companions; then the companions with the
  // sequence inserted at `index` (the same sequences, another order).
  Batch first{c.sequence}, moved = c.companions;
  std::vector<Positions> first_at{alone_at[0]}, moved_at;
  for (size_t k = 0; k < c.companions.size(); ++k) {
    first.push_back(c.companions[k]);
    first_at.push_back(module::counting(c.companion_starts[k], n));
  }
  moved_at.assign(first_at.begin() + 1, first_at.end());
  moved.insert(moved.begin() + c.index, c.sequence);
  moved_at.insert(moved_at.begin() + c.index, alone_at[0]);
  const Batch beside = module::forward_checked(s, first, first_at);
  const Batch elsewhere = module::forward_checked(s, moved, moved_at);

  Position largest = c.start + n - 1;
  for (Position from : c.companion_starts) largest = std::max(largest, from + n - 1);
  const module::Magnitude scale = module::scale_of(first, {&base, &beside, &elsewhere});
  const double ceiling = module::ceiling_of({&base, &beside, &elsewhere});
  const int width = static_cast<int>(c.sequence.cols());
  std::vector<std::pair<Eigen::Index, Eigen::Index>> rows;
  for (Eigen::Index r = 0; r < n; ++r) rows.emplace_back(r, r);

  Check with_others{"beside other sequences"};
  module::worst_row(with_others, beside[0], base[0], rows, 0);
  with_others.bound = module::comparison_bound(s.info(), width, n, largest, scale, noise, model.factor(), ceiling);
  with_others.where.label = fmt::format("alone vs first of {} sequences", first.size());
  with_others.note = fmt::format("the sequence alone against the same sequence at index 0 of a batch of {}",
                                 first.size());

  Check index{"at another index"};
  module::worst_row(index, elsewhere[static_cast<size_t>(c.index)], beside[0], rows, c.index);
  index.bound = module::comparison_bound(s.info(), width, n, largest, scale, noise, model.factor(), ceiling);
  index.where.label = fmt::format("index 0 vs index {} of the same {} sequences", c.index, first.size());
  index.note = fmt::format("the same sequence at index 0 and at index {} of a batch of the same sequences", c.index);
  for (Check* check : {&with_others, &index}) {
    if (check->where.token) check->where.position = c.start + *check->where.token;
  }
  return {{std::move(with_others), std::move(index)}, {}};
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {scaling({Axis::tokens, Axis::batch},
                  define<BatchCase>("module.batch_invariance", {"beside other sequences", "at another index"},
                                    batch_gen, batch_measure))};
}

}  // namespace pecheck::module::batch
