// CLAIMS.md §7 — order through a whole module: without a positional encoding
// and without a causal mask, permuting a sequence's tokens permutes its
// output rows (module.permutation_equivariance); with one, the positions are
// really used (module.absolute_position_sensitivity, a claim whose witness
// the harness must find).
//
// absolute_position_sensitivity keeps the tokens in their order and permutes
// the positions they are given. For a module without a causal mask that is
// the claim's "permute the tokens, keep the positions" read back in the
// original row order; for a causal one it is the only permutation that
// tells the positional encoding from the mask (moving tokens changes what
// each row may see whatever the positions do).
#include <fmt/format.h>

#include "module/support.h"
#include "pecheck/gen/permutation.h"
#include "pecheck/property/registry.h"

namespace pecheck::module::order {

namespace {

// B sequences of N ≥ 2 tokens (B in 1..2), a permutation of each.
struct OrderCase {
  Batch x;
  std::vector<Positions> positions;         // empty: the protocol's 0..N−1
  std::vector<Permutation> permutations;    // one per sequence
  void validate() const {
    module::validate_batch(x, "module order case");
    if (permutations.size() != x.size()) throw InvalidInput("one permutation per sequence");
    for (const auto& p : permutations) {
      if (p.size() != x.front().rows()) throw InvalidInput("a permutation of every sequence's tokens");
    }
    if (!positions.empty() && positions.size() != x.size()) throw InvalidInput("one row of positions per sequence");
    for (const auto& row : positions) {
      if (static_cast<Eigen::Index>(row.size()) != x.front().rows()) throw InvalidInput("a position per token");
    }
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(OrderCase, x, positions, permutations)

rc::Gen<OrderCase> order_gen(const GenContext& ctx, bool with_positions) {
  return rc::gen::mapcat(rc::gen::pair(module::width(ctx), module::token_count(ctx, 2)),
                         [ctx, with_positions](std::pair<int, int> shape) {
    const int width = shape.first, n = shape.second;
    using Sequence = std::tuple<Matrix, Permutation, Position>;
    auto sequence = rc::gen::tuple(module::tokens(n, width), gen::permutation(n),
                                   with_positions ? module::start(ctx, n) : rc::gen::just<Position>(0));
    return rc::gen::map(module::sequences<Sequence>(ctx, 1, 2, sequence), [n, with_positions](const std::vector<Sequence>& seqs) {
      OrderCase c;
      for (const auto& [x, p, from] : seqs) {
        c.x.push_back(x);
        c.permutations.push_back(p);
        if (with_positions) c.positions.push_back(module::counting(from, n));
      }
      return c;
    });
  });
}

struct Answers {
  Batch base, repeated, permuted;
};

Measurement judge_rows(const SubjectInfo& info, const OrderCase& c, const Answers& y, const BoundModel& model,
                       Check check, bool rows_follow_tokens) {
  const module::Magnitude scale = module::scale_of(c.x, {&y.base, &y.permuted});
  const double ceiling = module::ceiling_of({&y.base, &y.permuted});
  Position largest = 0;
  for (const auto& row : c.positions) {
    for (Position t : row) largest = std::max(largest, t);
  }
  const auto n = c.x.front().rows();
  for (size_t b = 0; b < c.x.size(); ++b) {
    std::vector<std::pair<Eigen::Index, Eigen::Index>> rows;
    // Row r of f(P X) against row image[r] of f(X) (tokens moved); or row r
    // against row r (the tokens stay, only their positions move).
    for (Eigen::Index r = 0; r < n; ++r) rows.emplace_back(r, rows_follow_tokens ? c.permutations[b].image[r] : r);
    module::worst_row(check, y.permuted[b], y.base[b], rows, static_cast<Eigen::Index>(b));
  }
  check.bound = module::comparison_bound(info, static_cast<int>(c.x.front().cols()), n, largest, scale,
                                         module::spread(y.base, y.repeated), model.factor(), ceiling);
  return {{std::move(check)}, {}};
}

Measurement equivariance_measure(Subject& s, const OrderCase& c, const BoundModel& model) {
  Answers y;
  y.base = module::forward_checked(s, c.x, c.positions);
  y.repeated = module::forward_checked(s, c.x, c.positions);
  Batch permuted;
  for (size_t b = 0; b < c.x.size(); ++b) permuted.push_back(c.permutations[b].apply_rows(c.x[b]));
  y.permuted = module::forward_checked(s, permuted, c.positions);
  Check check{"permuted rows"};
  Measurement m = judge_rows(s.info(), c, y, model, std::move(check), true);
  Check& out = m.checks.front();
  if (out.where.batch) {
    const auto b = static_cast<size_t>(*out.where.batch);
    const auto r = *out.where.token;
    out.where.label = fmt::format("row {} of f(P·X) vs row {} of f(X)", r, c.permutations[b].image[r]);
  }
  out.note = "each sequence's tokens permuted: the output rows must be permuted the same way";
  return m;
}

// A module that derives its positions from the padding (params.forward.positions
// "from_padding", as transformers does when position_ids is None) ignores the
// positions it is given, so its tokens move instead, and only where a module
// without a positional encoding could not tell: without a causal mask, f(P·X)
// against P·f(X) (such a module is permutation-equivariant); with one, the
// tokens before the last are permuted and the last row compared (there such
// a module attends to the same set of tokens with the same query).
Measurement sensitivity_by_tokens(Subject& s, const OrderCase& c, const BoundModel& model) {
  const bool causal = s.info().forward && s.info().forward->causal;
  OrderCase moved = c;
  moved.positions.clear();  // the protocol's 0..N−1: what the padding implies
  const auto n = static_cast<int>(c.x.front().rows());
  if (causal) {
    for (auto& p : moved.permutations) {
      std::vector<int> image;
      for (int r : p.image) {
        if (r != n - 1) image.push_back(r);
      }
      image.push_back(n - 1);
      p.image = std::move(image);
    }
  }
  Answers y;
  y.base = module::forward_checked(s, moved.x, moved.positions);
  y.repeated = module::forward_checked(s, moved.x, moved.positions);
  Batch permuted;
  for (size_t b = 0; b < moved.x.size(); ++b) permuted.push_back(moved.permutations[b].apply_rows(moved.x[b]));
  y.permuted = module::forward_checked(s, permuted, moved.positions);
  Check check{"rows at permuted positions"};
  const module::Magnitude scale = module::scale_of(moved.x, {&y.base, &y.permuted});
  const double ceiling = module::ceiling_of({&y.base, &y.permuted});
  for (size_t b = 0; b < moved.x.size(); ++b) {
    std::vector<std::pair<Eigen::Index, Eigen::Index>> rows;
    if (causal) {
      rows.emplace_back(n - 1, n - 1);
    } else {
      for (Eigen::Index r = 0; r < n; ++r) rows.emplace_back(r, moved.permutations[b].image[static_cast<size_t>(r)]);
    }
    module::worst_row(check, y.permuted[b], y.base[b], rows, static_cast<Eigen::Index>(b));
  }
  check.bound = module::comparison_bound(s.info(), static_cast<int>(moved.x.front().cols()), n, n - 1, scale,
                                         module::spread(y.base, y.repeated), model.factor(), ceiling);
  if (check.where.batch) {
    check.where.label = causal ? "the last row, with the tokens before it permuted"
                               : "row r of f(P·X) vs row image[r] of f(X)";
  }
  check.note = causal ? "positions from the padding (declared): the tokens before the last permuted, the last row "
                        "compared — without a positional encoding it would not change"
                      : "positions from the padding (declared): the tokens permuted, the rows compared after the "
                        "same permutation — without a positional encoding they would match";
  return {{std::move(check)}, {}};
}

Measurement sensitivity_measure(Subject& s, const OrderCase& c, const BoundModel& model) {
  if (s.info().forward && s.info().forward->positions == PositionsSource::from_padding) {
    return sensitivity_by_tokens(s, c, model);
  }
  if (c.positions.empty()) throw InvalidInput("module.absolute_position_sensitivity needs the positions it permutes");
  Answers y;
  y.base = module::forward_checked(s, c.x, c.positions);
  y.repeated = module::forward_checked(s, c.x, c.positions);
  std::vector<Positions> moved;
  for (size_t b = 0; b < c.x.size(); ++b) {
    Positions row(c.positions[b].size());
    for (size_t r = 0; r < row.size(); ++r) row[r] = c.positions[b][static_cast<size_t>(c.permutations[b].image[r])];
    moved.push_back(std::move(row));
  }
  y.permuted = module::forward_checked(s, c.x, moved);
  Check check{"rows at permuted positions"};
  Measurement m = judge_rows(s.info(), c, y, model, std::move(check), false);
  Check& out = m.checks.front();
  if (out.where.batch) {
    const auto b = static_cast<size_t>(*out.where.batch);
    const auto r = static_cast<size_t>(*out.where.token);
    out.where.position = c.positions[b][r];
    out.where.other_position = moved[b][r];
    out.where.label = "the token's row at its own position vs at the permuted one";
  }
  out.note = "the same tokens in the same order at permuted positions: a module that uses its positions answers "
             "differently (a module that derives them from the padding, as transformers does when position_ids is "
             "None, declares params.forward.positions = \"from_padding\")";
  return m;
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {
      scaling({Axis::tokens, Axis::batch},
              define<OrderCase>("module.permutation_equivariance", {"permuted rows"},
                                [](const GenContext& ctx) { return order_gen(ctx, false); }, equivariance_measure)),
      scaling({Axis::tokens, Axis::batch},
              define<OrderCase>("module.absolute_position_sensitivity", {"rows at permuted positions"},
                                [](const GenContext& ctx) { return order_gen(ctx, true); }, sensitivity_measure)),
  };
}

}  // namespace pecheck::module::order
