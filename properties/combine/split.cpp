// CLAIMS.md §4 — adding versus concatenating token and position embeddings.
#include <fmt/format.h>

#include <Eigen/QR>
#include <cmath>
#include <tuple>

#include "pecheck/gen/matrix.h"
#include "pecheck/property/compare.h"
#include "attention/support.h"
#include "pecheck/property/registry.h"
#include "pecheck/reference/attention.h"
#include "input_checks.h"

namespace pecheck::combine::split {

namespace {

constexpr int kMaxDim = 32;          // d_t, d_p and the projection's output width in [1, 32]
constexpr int kMaxTokens = 8;        // rows of X and P
constexpr double kValueBound = 4.0;  // entries in [-4, 4]

// Widths and token counts are generated before the values (one mapcat level),
// so that a failure shrinks its dimensions first.
rc::Gen<int> widths(int max) { return rc::gen::inRange(1, max + 1); }
rc::Gen<int> token_counts(int min) { return rc::gen::inRange(min, kMaxTokens + 1); }

rc::Gen<Matrix> values(Eigen::Index rows, Eigen::Index cols) {
  return gen::matrix(rows, cols, -kValueBound, kValueBound);
}

Matrix checked(Matrix m, Eigen::Index rows, Eigen::Index cols, std::string_view op) {
  require_shape(m, rows, cols, op);
  return m;
}

// Rows of the compared results are tokens.
void rows_to_tokens(Check& check) {
  if (!check.where.row) return;
  check.where.token = check.where.row;
  check.where.row.reset();
}

// One float64 self-attention against the reference: the error model of
// attention/support.h's output bound for one evaluation.
Bound attention_bound(double width, Eigen::Index tokens, double logit_bound, double value_scale) {
  return attention::output_bound(2, width, tokens, logit_bound, value_scale);
}

// combine.add_subsumes_concat and combine.concat_linear_split -----------------
struct SplitCase {
  int token_dim = 1, position_dim = 1, out_dim = 1;
  Matrix tokens;     // n × d_t
  Matrix positions;  // n × d_p
  Matrix weights;    // out_dim × (d_t + d_p)
  void validate() const {
    input::width("token_dim", token_dim);
    input::width("position_dim", position_dim);
    input::width("out_dim", out_dim);
    input::matrix("tokens", tokens, -1, token_dim);
    input::matrix("positions", positions, tokens.rows(), position_dim);
    input::matrix("weights", weights, out_dim, token_dim + position_dim);
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SplitCase, token_dim, position_dim, out_dim, tokens, positions, weights)

rc::Gen<SplitCase> split_gen(const GenContext& ctx) {
  const int width = ctx.width_limit(kMaxDim);
  using Shape = std::tuple<int, int, int, int>;  // d_t, d_p, output width, tokens
  return rc::gen::mapcat(
      rc::gen::tuple(size_on(ctx, Op::combine, Axis::width, 1, width), widths(width), widths(width),
                     size_on(ctx, Op::combine, Axis::rows, 1, kMaxTokens)),
      [](Shape shape) {
        const auto [dt, dp, m, n] = shape;
        return rc::gen::apply(
            [dt = dt, dp = dp, m = m](Matrix x, Matrix p, Matrix w) {
              return SplitCase{dt, dp, m, std::move(x), std::move(p), std::move(w)};
            },
            values(n, dt), values(n, dp), values(m, dt + dp));
      });
}

// √(Σ t² + Σ s²) of both paths, W [x; p] summed over the d_t + d_p products
// at once and W_x x + W_p p in two parts, for each output (token × row of W).
// The paths share their products and, over the token part, their partial
// sums; over the position part the split path's restart from 0. Every output
// of a token at once (a column of W a step), so that the sums' dependency
// chains run side by side: one output at a time cost as much as the claim.
Matrix split_rounding_scales(const SplitCase& c) {
  const Eigen::Index dt = c.token_dim, dp = c.position_dim, m = c.weights.rows();
  const Eigen::MatrixXd w = c.weights;  // column-major: a column of W is contiguous
  Matrix out(c.tokens.rows(), m);
  Eigen::ArrayXd t(m), whole(m), part(m), squares(m), token_part(m);  // reused: no allocation a step
  for (Eigen::Index i = 0; i < c.tokens.rows(); ++i) {
    whole.setZero();
    part.setZero();
    squares.setZero();
    for (Eigen::Index j = 0; j < dt; ++j) {
      t = w.col(j).array() * c.tokens(i, j);
      whole += t;
      squares += 2 * (t.square() + whole.square());
    }
    token_part = whole;
    for (Eigen::Index j = 0; j < dp; ++j) {
      t = w.col(dt + j).array() * c.positions(i, j);
      whole += t;
      part += t;
      squares += 2 * t.square() + whole.square() + part.square();
    }
    out.row(i) = (squares + (token_part + part).square()).sqrt().matrix().transpose();
  }
  return out;
}

// Three sub-checks, each of which a bug in one op fails on its own: the
// subject's add of the zero-padded halves against its concat (exact); its
// projection of that sum against W_x x + W_p p computed here (the same map on
// the concatenation, summed in another order); its attention over the sum
// against the reference attention over the concatenation built here.
Measurement add_subsumes_concat_measure(Subject& s, const SplitCase& c, const BoundModel&) {
  const Eigen::Index n = c.tokens.rows(), d = c.token_dim + c.position_dim;
  Matrix token_padded = Matrix::Zero(n, d), position_padded = Matrix::Zero(n, d);
  token_padded.leftCols(c.token_dim) = c.tokens;
  position_padded.rightCols(c.position_dim) = c.positions;
  const Matrix added = checked(ask::add(s, token_padded, position_padded), n, d, "add");
  const Matrix joined = checked(ask::concat(s, c.tokens, c.positions), n, d, "concat");
  Matrix exact_join(n, d);
  exact_join << c.tokens, c.positions;

  Measurement m;
  Check same = compare_entries("add equals concat", added, joined, Bound::exact("x + 0 = x in IEEE arithmetic"));
  rows_to_tokens(same);
  same.note = "add of the zero-padded token and position against concat";
  m.checks.push_back(std::move(same));

  // W [x; p] = W_x x + W_p p: each output sums d products in either order.
  const Matrix projected = checked(ask::project(s, c.weights, added), n, c.out_dim, "project");
  const Matrix split = c.tokens * c.weights.leftCols(c.token_dim).transpose() +
                       c.positions * c.weights.rightCols(c.position_dim).transpose();
  const double magnitude = max_abs(exact_join.cwiseAbs() * c.weights.cwiseAbs().transpose());
  Bound projection_bound = Bound::upper(2.0 * static_cast<double>(d) + 1, magnitude,
                                        "(2(d_t + d_p) + 1 roundings) · max Σ_j |W_ij||z_j|");
  // The tight bound: both paths' products and partial sums, apart (sum_rounding.h), each output's own.
  projection_bound.terms.front().typical_work = 1;
  projection_bound.probabilistic(1, "the products and partial sums of both paths at this output, rounding errors "
                                    "apart: u·√Σ(t² + s²)");
  Check through_projection = compare_entries_each("through a projection", projected, split, split_rounding_scales(c),
                                                  std::move(projection_bound));
  rows_to_tokens(through_projection);
  through_projection.note = "project(W, add of the zero-padded halves) against W_x x + W_p p";
  m.checks.push_back(std::move(through_projection));

  if (s.info().supports(Op::attention)) {
    const auto none = AttentionMask::none();
    const Matrix attended = checked(ask::attention(s, added, added, added, none), n, d, "attention");
    const Matrix reference = reference::attention(exact_join, exact_join, exact_join, none);
    const double h = attention::logit_magnitude(exact_join, exact_join, 1);
    Check through_attention = compare_entries("through attention", attended, reference,
                                              attention_bound(static_cast<double>(d), n, h, max_abs(exact_join)));
    rows_to_tokens(through_attention);
    through_attention.note = "self-attention over the sum against the reference's over the concatenation";
    m.checks.push_back(std::move(through_attention));
  }
  return m;
}

Measurement concat_linear_split_measure(Subject& s, const SplitCase& c, const BoundModel&) {
  const Eigen::Index n = c.tokens.rows(), d = c.token_dim + c.position_dim;
  const Matrix joined = checked(ask::concat(s, c.tokens, c.positions), n, d, "concat");
  const Matrix whole = checked(ask::project(s, c.weights, joined), n, c.out_dim, "project");
  const Matrix split =
      checked(ask::project(s, c.weights.leftCols(c.token_dim), c.tokens), n, c.out_dim, "project") +
      checked(ask::project(s, c.weights.rightCols(c.position_dim), c.positions), n, c.out_dim, "project");
  // Both sides accumulate d = d_t + d_p products (W[x;p] at once, W_x x and
  // W_p p in two parts) and the split side adds once more; each rounding is
  // relative to the largest Σ_j |W_ij||z_j|.
  Matrix z(n, d);
  z << c.tokens, c.positions;
  const double magnitude = max_abs(z.cwiseAbs() * c.weights.cwiseAbs().transpose());
  Check check = compare_entries("linear split", whole, split,
                                Bound::upper(2.0 * static_cast<double>(d) + 1, magnitude,
                                             "(2(d_t + d_p) + 1 roundings) · max Σ_j |W_ij||z_j|"));
  rows_to_tokens(check);
  check.note = "project(W, concat(x, p)) against project(W_x, x) + project(W_p, p)";
  return {{std::move(check)}, {}};
}

// combine.orthogonal_recovery ---------------------------------------------------
// x = Q_t a and p = Q_p b for an orthonormal basis Q = [Q_t | Q_p] (the Q of
// a QR factorisation of a random matrix, the identity when that shrinks to 0).
struct RecoveryCase {
  int token_dim = 1, position_dim = 1;
  Matrix token_coordinates;     // n × d_t: the rows a
  Matrix position_coordinates;  // n × d_p: the rows b
  Matrix basis_source;          // d × d, factorised to Q
  void validate() const {
    input::width("token_dim", token_dim);
    input::width("position_dim", position_dim);
    input::matrix("token_coordinates", token_coordinates, -1, token_dim);
    input::matrix("position_coordinates", position_coordinates, token_coordinates.rows(), position_dim);
    input::matrix("basis_source", basis_source, token_dim + position_dim, token_dim + position_dim);
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RecoveryCase, token_dim, position_dim, token_coordinates,
                                   position_coordinates, basis_source)

rc::Gen<RecoveryCase> recovery_gen(const GenContext& ctx) {
  const int width = ctx.width_limit(kMaxDim);
  using Shape = std::tuple<int, int, int>;  // d_t, d_p, tokens
  return rc::gen::mapcat(rc::gen::tuple(widths(width), widths(width), token_counts(1)), [](Shape shape) {
    const auto [dt, dp, n] = shape;
    return rc::gen::apply(
        [dt = dt, dp = dp](Matrix a, Matrix b, Matrix g) {
          return RecoveryCase{dt, dp, std::move(a), std::move(b), std::move(g)};
        },
        values(n, dt), values(n, dp), gen::matrix(dt + dp, dt + dp, -1, 1));
  });
}

Measurement orthogonal_recovery_measure(Subject& s, const RecoveryCase& c, const BoundModel&) {
  const Eigen::Index n = c.token_coordinates.rows(), d = c.token_dim + c.position_dim;
  const Eigen::MatrixXd q = Eigen::HouseholderQR<Eigen::MatrixXd>(c.basis_source).householderQ();
  const Eigen::MatrixXd q_token = q.leftCols(c.token_dim), q_position = q.rightCols(c.position_dim);
  const Matrix x = c.token_coordinates * q_token.transpose();
  const Matrix p = c.position_coordinates * q_position.transpose();
  const Matrix z = checked(ask::add(s, x, p), n, d, "add");
  const Matrix recovered = (z * q_token) * q_token.transpose();
  // The subject's add rounds x, p and x + p (3 roundings, each relative to
  // ‖x_r‖ + ‖p_r‖ and not enlarged by an orthogonal projection); the basis and
  // the projection here accumulate d-term sums 3 times.
  const double magnitude = (x.rowwise().norm() + p.rowwise().norm()).maxCoeff();
  Check check = compare_entries("recovered token", recovered, x,
                                Bound::upper(3.0 + 3.0 * static_cast<double>(d), magnitude,
                                             "(3 roundings of the add + 3d of the basis and projection) · max (‖x_r‖ + ‖p_r‖)"));
  rows_to_tokens(check);
  check.note = "Q_t Q_tᵀ add(x, p) against x, for x in span(Q_t) and p in span(Q_p)";
  return {{std::move(check)}, {}};
}

// combine.add_injective and combine.concat_injective ------------------------
// n (token, position) pairs of small integers, so that sums collide often.
struct PairsCase {
  int token_dim = 1, position_dim = 1;
  Matrix tokens;     // n × d_t, row r is the token of pair r
  Matrix positions;  // n × d_p, row r is the position of pair r
  void validate() const {
    input::width("token_dim", token_dim);
    input::width("position_dim", position_dim);
    input::matrix("tokens", tokens, -1, token_dim);
    input::matrix("positions", positions, tokens.rows(), position_dim);
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PairsCase, token_dim, position_dim, tokens, positions)

constexpr int kMaxPairDim = 8;
constexpr int kPairValue = 2;  // entries in [-2, 2]

// add_injective needs d_t = d_p (same_width); concat_injective draws both.
rc::Gen<PairsCase> pairs_gen(bool same_width) {
  using Shape = std::tuple<int, int, int>;  // d_t, d_p, pairs
  const rc::Gen<int> position_widths = same_width ? rc::gen::just(0) : widths(kMaxPairDim);
  return rc::gen::mapcat(
      rc::gen::tuple(widths(kMaxPairDim), position_widths, token_counts(2)), [](Shape shape) {
        const auto [dt, drawn_dp, n] = shape;
        const int dp = drawn_dp == 0 ? dt : drawn_dp;
        return rc::gen::apply(
            [dt = dt, dp = dp](Matrix x, Matrix p) { return PairsCase{dt, dp, std::move(x), std::move(p)}; },
            gen::integer_matrix(n, dt, -kPairValue, kPairValue), gen::integer_matrix(n, dp, -kPairValue, kPairValue));
      });
}

// The largest input distance max(|x_i − x_j|, |p_i − p_j|) over pairs i, j
// whose combinations are identical: 0 when the combination is injective here.
Check collisions(const PairsCase& c, const Matrix& combined, Bound bound, std::string_view op) {
  Check m;
  m.name = "no collision";
  m.bound = std::move(bound);
  m.expected = fmt::format("different {} rows for different (token, position) pairs", op);
  m.note = fmt::format("largest difference between two pairs whose {} rows are equal", op);
  for (Eigen::Index i = 0; i < combined.rows(); ++i) {
    for (Eigen::Index j = i + 1; j < combined.rows(); ++j) {
      if (combined.row(i) != combined.row(j)) continue;
      const double distance = std::max(max_abs(c.tokens.row(i) - c.tokens.row(j)),
                                       max_abs(c.positions.row(i) - c.positions.row(j)));
      if (distance > m.error) {
        m.error = distance;
        m.where.label = fmt::format("pairs {} and {}", i, j);
        m.where.token = i;
        m.observed = json{{"row", matrix_to_json(combined.row(i))}};
      }
    }
  }
  return m;
}

Measurement add_injective_measure(Subject& s, const PairsCase& c, const BoundModel&) {
  const Matrix sums = checked(ask::add(s, c.tokens, c.positions), c.tokens.rows(), c.token_dim, "add");
  return {{collisions(c, sums, Bound::exact("sums of integers in [-2, 2] are exact in every dtype"), "add")}, {}};
}

Measurement concat_injective_measure(Subject& s, const PairsCase& c, const BoundModel&) {
  const Matrix joined = checked(ask::concat(s, c.tokens, c.positions), c.tokens.rows(),
                                c.token_dim + c.position_dim, "concat");
  return {{collisions(c, joined, Bound::exact("integers in [-2, 2] are exact in every dtype"), "concat")}, {}};
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {
      scaling({Axis::width, Axis::rows},
              define<SplitCase>("combine.add_subsumes_concat",
                                {"add equals concat", "through a projection", "through attention"}, split_gen,
                                add_subsumes_concat_measure)),
      scaling({Axis::width, Axis::rows},
              define<SplitCase>("combine.concat_linear_split", {"linear split"}, split_gen, concat_linear_split_measure)),
      define<RecoveryCase>("combine.orthogonal_recovery", {"recovered token"}, recovery_gen,
                           orthogonal_recovery_measure),
      define<PairsCase>("combine.add_injective", {"no collision"}, [](const GenContext&) { return pairs_gen(true); },
                        add_injective_measure),
      define<PairsCase>("combine.concat_injective", {"no collision"}, [](const GenContext&) { return pairs_gen(false); },
                        concat_injective_measure),
  };
}

}  // namespace pecheck::combine::split
