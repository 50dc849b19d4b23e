#include "grad/support.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "input_checks.h"
#include "module/support.h"
#include "pecheck/gen/matrix.h"
#include "pecheck/property/compare.h"
#include "pecheck/subjects/typed_subject.h"
#include "rope/common.h"

namespace pecheck::grad {

void RotateCase::validate() const {
  input::length("seq_len", seq_len);
  input::positions("positions", positions, seq_len);
  input::matrix("x", x, static_cast<Eigen::Index>(positions.size()));
  input::matrix("g", g, x.rows(), x.cols());
  input::width("x", x.cols(), 2);
}

rc::Gen<RotateCase> rotate_case(const GenContext& ctx) {
  const auto dims = rope::within_gate(rope::valid_dims(ctx.subject), ctx);
  if (dims.empty()) return rc::gen::just(RotateCase{{0}, 1, Matrix::Zero(1, 2), Matrix::Zero(1, 2)});
  const Position top = std::min<Position>(ctx.max_position, 511);
  // Small positions mostly (every angle precision resolves them), now and then up to 511.
  auto at = rc::gen::weightedOneOf<Position>({{4, rc::gen::inRange<Position>(0, std::min<Position>(top, 15) + 1)},
                                               {1, rc::gen::inRange<Position>(0, top + 1)}});
  return rc::gen::mapcat(rc::gen::pair(rope::dim_among(dims), rc::gen::inRange(1, 9)), [at](std::pair<int, int> shape) {
    const auto [dim, rows] = shape;
    return rc::gen::apply(
        [](Positions ts, Matrix x, Matrix g) {
          const Position last = *std::max_element(ts.begin(), ts.end());
          return RotateCase{std::move(ts), last + 1, std::move(x), std::move(g)};
        },
        rc::gen::container<Positions>(static_cast<std::size_t>(rows), at), rope::vectors(rows, dim),
        rope::vectors(rows, dim));
  });
}

Matrix rotate_vjp(Subject& subject, const RotateCase& c) {
  const Batch answer = ask::rotate_backward(subject, RotateCall{c.positions, c.x, rope::sent_length(subject.info(), c.seq_len)}, c.g);
  if (answer.size() != 1) throw SubjectFailure(fmt::format("a backward of rotate answered {} arrays, not 1", answer.size()));
  require_shape(answer[0], c.x.rows(), c.x.cols(), "backward of rotate (dx)");
  return answer[0];
}

Bound rotation_bound(const SubjectInfo& subject, const RotateCase& c, Eigen::Index row, int rotations,
                     const std::string& what) {
  const auto omegas = rope::frequencies(subject, static_cast<int>(c.x.cols()),
                                        rope::request_length(subject, Positions{c.positions[static_cast<size_t>(row)]},
                                                             rope::sent_length(subject, c.seq_len)));
  const double m = rope::magnitude(subject);
  const double scale = 2 * std::max(m, m * m) * std::max(1.0, c.g.row(row).cwiseAbs().maxCoeff());
  const Positions ts(static_cast<size_t>(rotations), c.positions[static_cast<size_t>(row)]);
  return rope::rotations_bound(subject, ts, omegas, scale, what);
}

std::optional<Eigen::VectorXd> same_dtype_vjp_rows(const SubjectInfo& subject, const RotateCase& c,
                                                   const Matrix* turned_back_to) {
  const auto length = rope::sent_length(subject, c.seq_len);
  Positions back;
  for (Position t : c.positions) back.push_back(-t);
  const auto dx = rope::same_dtype_rotation(subject, back, c.g, length);  // m·R(−θ)·g: θ negated exactly
  if (!dx) return std::nullopt;
  Matrix rounded = dx->rounded, exact = dx->exact;
  if (turned_back_to != nullptr) {
    const auto forward = rope::same_dtype_rotation(subject, c.positions, dx->rounded, length);
    if (!forward) return std::nullopt;
    rounded = forward->rounded;
    exact = *turned_back_to;
  }
  if (!rounded.allFinite()) return std::nullopt;
  return (rounded - exact).cwiseAbs().rowwise().maxCoeff();
}

Check worst_rotation_row(const SubjectInfo& subject, const RotateCase& c, const BoundModel& model,
                         const std::string& name, const Matrix& observed, const Matrix& expected, int rotations,
                         const std::string& bound_what, const std::optional<Eigen::VectorXd>& same_dtype) {
  std::optional<Check> worst;
  double worst_ratio = -1;
  for (Eigen::Index row = 0; row < observed.rows(); ++row) {
    Bound row_bound = rotation_bound(subject, c, row, rotations, bound_what);
    if (same_dtype) {
      row_bound.same_dtype((*same_dtype)(row),
                           fmt::format("the {} reference's own error on the row", pecheck::name(subject.dtype)));
    }
    Check check = compare_entries(name, observed.row(row), expected.row(row), std::move(row_bound));
    const double bound = model.value(check.bound);
    const double ratio = std::isnan(check.error) ? INFINITY : check.error / std::max(bound, 1e-300);
    if (ratio <= worst_ratio) continue;
    worst_ratio = ratio;
    check.where.row = row;
    check.where.position = c.positions[static_cast<size_t>(row)];
    worst = std::move(check);
  }
  return std::move(*worst);
}

void AttentionCase::validate() const {
  attention::validate_grouped(q, k, v, heads);
  input::matrix("g", g, q.rows(), attention::output_width(q, k, v, heads));
  if (mask == "causal") {
    if (q.rows() != k.rows()) input::invalid("mask", "a causal case has as many queries as keys");
  } else if (mask == "boolean") {
    if (allowed.rows() != q.rows() || allowed.cols() != k.rows()) input::invalid("allowed", "expected n×m booleans");
  } else if (mask != "none") {
    input::invalid("mask", "expected \"none\", \"causal\" or \"boolean\"");
  }
}

AttentionMask AttentionCase::attention_mask() const {
  if (mask == "causal") return AttentionMask::causal();
  if (mask == "boolean") return AttentionMask::boolean(allowed);
  return AttentionMask::none();
}

rc::Gen<AttentionCase> attention_case(const GenContext& ctx, int n, int m, std::string mask) {
  return rc::gen::mapcat(attention::grouped_dims(ctx), [n, m, mask](const attention::GroupedDims& d) {
    return rc::gen::apply(
        [mask, n, m](attention::Grouped in, Matrix g) {
          AttentionCase c{std::move(in.q), std::move(in.k), std::move(in.v), std::move(g), in.heads, mask, {}};
          if (mask == "boolean") c.allowed = BoolMatrix::Constant(n, m, true);
          return c;
        },
        attention::grouped(d, n, m), gen::matrix(n, d.heads * d.d_value, -2, 2));
  });
}

rc::Gen<int> lengths(bool tile_remainders) {
  if (!tile_remainders) return rc::gen::inRange(1, 13);
  return rc::gen::weightedOneOf<int>(
      {{2, rc::gen::inRange(1, 13)}, {1, rc::gen::element(63, 64, 65, 127, 128, 129, 191, 192, 193)}});
}

Grads attention_vjp(Subject& subject, const attention::Grouped& in, const AttentionMask& mask, const Matrix& g) {
  Batch answer = ask::attention_backward(subject, AttentionCall{in.q, in.k, in.v, mask, in.heads}, g);
  if (answer.size() != 3) {
    throw SubjectFailure(fmt::format("a backward of attention answered {} arrays, not 3 (dq, dk, dv)", answer.size()));
  }
  require_shape(answer[0], in.q.rows(), in.q.cols(), "backward of attention (dq)");
  require_shape(answer[1], in.k.rows(), in.k.cols(), "backward of attention (dk)");
  require_shape(answer[2], in.v.rows(), in.v.cols(), "backward of attention (dv)");
  return {std::move(answer[0]), std::move(answer[1]), std::move(answer[2])};
}

Grads attention_vjp(Subject& subject, const AttentionCase& c) {
  return attention_vjp(subject, c.inputs(), c.attention_mask(), c.g);
}

AttentionBounds vjp_bounds(const SubjectInfo& subject, const attention::Grouped& in, const Matrix& g,
                           int evaluations) {
  const double n = static_cast<double>(in.q.rows()), m = static_cast<double>(in.k.rows());
  const double d_h = static_cast<double>(in.d_head()), d_v = static_cast<double>(in.d_value());
  const double group = static_cast<double>(in.heads) / std::max(1, in.kv_heads());
  const double h = attention::logit_bound(subject, in);
  const double lambda = attention::logit_scale(subject, in.d_head());
  auto largest = [](const Matrix& x) { return x.size() == 0 ? 0.0 : x.cwiseAbs().maxCoeff(); };
  const double G = std::max(largest(g), 1e-300), V = largest(in.v), Q = largest(in.q), K = largest(in.k);
  const double weights = 2 * (d_h + 6) * h + 2 * m + 4;
  const double e = evaluations;
  const double dp = d_v * G * V;
  AttentionBounds b;
  b.dv = Bound::upper(e * group * (weights + n + 2), n * G,
                      fmt::format("{}·{:g}·(w + n + 2), w = 2(d_h + 6)·H + 2m + 4 = {:.4g} (d_h {:g}, H {:.4g}, m "
                                  "{:g}, n {:g}) · n·max|g|",
                                  e, group, weights, d_h, h, m, n));
  b.dq = Bound::upper(e * (weights + d_v + 2 * m + 6), 2 * lambda * dp * K + 1e-300,
                      fmt::format("{}·(w + d_v + 2m + 6), w = {:.4g} · 2λ·d_v·max|g|·max|v|·max|k| (λ {:.4g})", e,
                                  weights, lambda));
  b.dk = Bound::upper(e * group * (weights + d_v + m + n + 6), 2 * lambda * n * dp * Q + 1e-300,
                      fmt::format("{}·{:g}·(w + d_v + m + n + 6), w = {:.4g} · 2λ·n·d_v·max|g|·max|v|·max|q| (λ "
                                  "{:.4g})",
                                  e, group, weights, lambda));
  return b;
}

void ForwardCase::validate() const {
  module::validate_batch(x, "x");
  if (g.size() != x.size()) input::invalid("g", "expected one upstream gradient per sequence");
  for (size_t b = 0; b < x.size(); ++b) input::matrix("g", g[b], x[b].rows(), x[b].cols());
}

rc::Gen<ForwardCase> forward_case(const GenContext& ctx, int least_tokens) {
  return rc::gen::mapcat(
      rc::gen::tuple(module::width(ctx), module::token_count(ctx, least_tokens), rc::gen::inRange(1, 3)),
      [](const std::tuple<int, int, int>& shape) {
        const auto [width, n, batch] = shape;
        return rc::gen::apply([](Batch x, Batch g) { return ForwardCase{std::move(x), std::move(g)}; },
                              rc::gen::container<Batch>(static_cast<size_t>(batch), module::tokens(n, width)),
                              rc::gen::container<Batch>(static_cast<size_t>(batch), gen::matrix(n, width, -2, 2)));
      });
}

Batch forward_vjp(Subject& subject, const ForwardCase& c) {
  Batch dx = ask::forward_backward(subject, ForwardCall{c.x, {}, {}, std::nullopt, {}}, c.g);
  for (size_t b = 0; b < dx.size(); ++b) require_shape(dx[b], c.x[b].rows(), c.x[b].cols(), "backward of forward (dx)");
  return dx;
}

}  // namespace pecheck::grad
