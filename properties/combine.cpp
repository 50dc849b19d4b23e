// CLAIMS.md §4 — adding versus concatenating token and position embeddings.
#include <fmt/format.h>

#include <Eigen/QR>
#include <cmath>
#include <tuple>

#include "pecheck/gen/matrix.h"
#include "pecheck/property/compare.h"
#include "pecheck/property/registry.h"

namespace pecheck {

namespace {

const char* const kSources = "002_06afe167485a615a.txt, 001_2a828f9fd478cad3.txt";
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

// combine.add_subsumes_concat and combine.concat_linear_split -----------------
struct SplitCase {
  int token_dim = 1, position_dim = 1, out_dim = 1;
  Matrix tokens;     // n × d_t
  Matrix positions;  // n × d_p
  Matrix weights;    // out_dim × (d_t + d_p)
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SplitCase, token_dim, position_dim, out_dim, tokens, positions, weights)

rc::Gen<SplitCase> split_gen(const GenContext&) {
  using Shape = std::tuple<int, int, int, int>;  // d_t, d_p, output width, tokens
  return rc::gen::mapcat(
      rc::gen::tuple(widths(kMaxDim), widths(kMaxDim), widths(kMaxDim), token_counts(1)), [](Shape shape) {
        const auto [dt, dp, m, n] = shape;
        return rc::gen::apply(
            [dt, dp, m](Matrix x, Matrix p, Matrix w) {
              return SplitCase{dt, dp, m, std::move(x), std::move(p), std::move(w)};
            },
            values(n, dt), values(n, dp), values(m, dt + dp));
      });
}

Measurement add_subsumes_concat_measure(Subject& s, const SplitCase& c, const ErrorModel& model) {
  const Eigen::Index n = c.tokens.rows(), d = c.token_dim + c.position_dim;
  Matrix token_padded = Matrix::Zero(n, d), position_padded = Matrix::Zero(n, d);
  token_padded.leftCols(c.token_dim) = c.tokens;
  position_padded.rightCols(c.position_dim) = c.positions;
  const Matrix added = checked(s.add(token_padded, position_padded), n, d, "add");
  const Matrix joined = checked(s.concat(c.tokens, c.positions), n, d, "concat");
  const Tolerance exact = model.exact("combine.add_subsumes_concat", "x + 0 = x in IEEE arithmetic");

  Measurement m = compare_entries(added, joined, exact, "token");
  m.where = "add vs concat: " + m.where;
  m.note = "add of the zero-padded halves against concat, then both through project and attention";
  if (!m.ok()) return m;
  Measurement projected = compare_entries(checked(s.project(c.weights, added), n, c.out_dim, "project"),
                                          checked(s.project(c.weights, joined), n, c.out_dim, "project"),
                                          exact, "token");
  projected.where = "project(W, add) vs project(W, concat): " + projected.where;
  projected.note = m.note;
  if (!projected.ok() || !s.info().supports(Op::attention)) return projected;
  const auto none = AttentionMask::none();
  Measurement attended = compare_entries(checked(s.attention(added, added, added, none), n, d, "attention"),
                                         checked(s.attention(joined, joined, joined, none), n, d, "attention"),
                                         exact, "token");
  attended.where = "attention over add vs over concat: " + attended.where;
  attended.note = m.note;
  return attended;
}

Measurement concat_linear_split_measure(Subject& s, const SplitCase& c, const ErrorModel& model) {
  const Eigen::Index n = c.tokens.rows(), d = c.token_dim + c.position_dim;
  const Matrix joined = checked(s.concat(c.tokens, c.positions), n, d, "concat");
  const Matrix whole = checked(s.project(c.weights, joined), n, c.out_dim, "project");
  const Matrix split =
      checked(s.project(c.weights.leftCols(c.token_dim), c.tokens), n, c.out_dim, "project") +
      checked(s.project(c.weights.rightCols(c.position_dim), c.positions), n, c.out_dim, "project");
  // Both sides accumulate d = d_t + d_p products (W[x;p] at once, W_x x and
  // W_p p in two parts) and the split side adds once more; each rounding is
  // relative to the largest Σ_j |W_ij||z_j|.
  Matrix z(n, d);
  z << c.tokens, c.positions;
  const double magnitude = max_abs(z.cwiseAbs() * c.weights.cwiseAbs().transpose());
  Tolerance tol = model.bound("combine.concat_linear_split", 2.0 * static_cast<double>(d) + 1, magnitude,
                              "(2(d_t + d_p) + 1 roundings) · max Σ_j |W_ij||z_j|");
  Measurement m = compare_entries(whole, split, std::move(tol), "token");
  m.note = "project(W, concat(x, p)) against project(W_x, x) + project(W_p, p)";
  return m;
}

// combine.orthogonal_recovery ---------------------------------------------------
// x = Q_t a and p = Q_p b for an orthonormal basis Q = [Q_t | Q_p] (the Q of
// a QR factorisation of a random matrix, the identity when that shrinks to 0).
struct RecoveryCase {
  int token_dim = 1, position_dim = 1;
  Matrix token_coordinates;     // n × d_t: the rows a
  Matrix position_coordinates;  // n × d_p: the rows b
  Matrix basis_source;          // d × d, factorised to Q
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RecoveryCase, token_dim, position_dim, token_coordinates,
                                   position_coordinates, basis_source)

rc::Gen<RecoveryCase> recovery_gen(const GenContext&) {
  using Shape = std::tuple<int, int, int>;  // d_t, d_p, tokens
  return rc::gen::mapcat(rc::gen::tuple(widths(kMaxDim), widths(kMaxDim), token_counts(1)), [](Shape shape) {
    const auto [dt, dp, n] = shape;
    return rc::gen::apply(
        [dt, dp](Matrix a, Matrix b, Matrix g) {
          return RecoveryCase{dt, dp, std::move(a), std::move(b), std::move(g)};
        },
        values(n, dt), values(n, dp), gen::matrix(dt + dp, dt + dp, -1, 1));
  });
}

Measurement orthogonal_recovery_measure(Subject& s, const RecoveryCase& c, const ErrorModel& model) {
  const Eigen::Index n = c.token_coordinates.rows(), d = c.token_dim + c.position_dim;
  const Eigen::MatrixXd q = Eigen::HouseholderQR<Eigen::MatrixXd>(c.basis_source).householderQ();
  const Eigen::MatrixXd q_token = q.leftCols(c.token_dim), q_position = q.rightCols(c.position_dim);
  const Matrix x = c.token_coordinates * q_token.transpose();
  const Matrix p = c.position_coordinates * q_position.transpose();
  const Matrix z = checked(s.add(x, p), n, d, "add");
  const Matrix recovered = (z * q_token) * q_token.transpose();
  // The subject's add rounds x, p and x + p (3 roundings, each relative to
  // ‖x_r‖ + ‖p_r‖ and not enlarged by an orthogonal projection); the basis and
  // the projection here accumulate d-term sums 3 times.
  const double magnitude = (x.rowwise().norm() + p.rowwise().norm()).maxCoeff();
  Tolerance tol = model.bound("combine.orthogonal_recovery", 3.0 + 3.0 * static_cast<double>(d), magnitude,
                              "(3 roundings of the add + 3d of the basis and projection) · max (‖x_r‖ + ‖p_r‖)");
  Measurement m = compare_entries(recovered, x, std::move(tol), "token");
  m.note = "Q_t Q_tᵀ add(x, p) against x, for x in span(Q_t) and p in span(Q_p)";
  return m;
}

// combine.add_injective and combine.concat_injective ------------------------
// n (token, position) pairs of small integers, so that sums collide often.
struct PairsCase {
  int token_dim = 1, position_dim = 1;
  Matrix tokens;     // n × d_t, row r is the token of pair r
  Matrix positions;  // n × d_p, row r is the position of pair r
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
            [dt, dp](Matrix x, Matrix p) { return PairsCase{dt, dp, std::move(x), std::move(p)}; },
            gen::integer_matrix(n, dt, -kPairValue, kPairValue), gen::integer_matrix(n, dp, -kPairValue, kPairValue));
      });
}

// The largest input distance max(|x_i − x_j|, |p_i − p_j|) over pairs i, j
// whose combinations are identical: 0 when the combination is injective here.
Measurement collisions(const PairsCase& c, const Matrix& combined, Tolerance tol, std::string_view op) {
  Measurement m;
  m.tolerance = std::move(tol);
  m.expected = fmt::format("different {} rows for different (token, position) pairs", op);
  m.note = fmt::format("largest difference between two pairs whose {} rows are equal", op);
  for (Eigen::Index i = 0; i < combined.rows(); ++i) {
    for (Eigen::Index j = i + 1; j < combined.rows(); ++j) {
      if (combined.row(i) != combined.row(j)) continue;
      const double distance = std::max(max_abs(c.tokens.row(i) - c.tokens.row(j)),
                                       max_abs(c.positions.row(i) - c.positions.row(j)));
      if (distance > m.error) {
        m.error = distance;
        m.where = fmt::format("pairs {} and {}", i, j);
        m.observed = json{{"row", matrix_to_json(combined.row(i))}};
      }
    }
  }
  return m;
}

Measurement add_injective_measure(Subject& s, const PairsCase& c, const ErrorModel& model) {
  const Matrix sums = checked(s.add(c.tokens, c.positions), c.tokens.rows(), c.token_dim, "add");
  return collisions(c, sums,
                    model.exact("combine.add_injective", "sums of integers in [-2, 2] are exact in every dtype"),
                    "add");
}

Measurement concat_injective_measure(Subject& s, const PairsCase& c, const ErrorModel& model) {
  const Matrix joined = checked(s.concat(c.tokens, c.positions), c.tokens.rows(),
                                c.token_dim + c.position_dim, "concat");
  return collisions(c, joined,
                    model.exact("combine.concat_injective", "integers in [-2, 2] are exact in every dtype"),
                    "concat");
}

PropertyInfo combine_property(std::string id, std::string claim, Expect expect = Expect::holds) {
  return {.id = std::move(id),
          .family = "combine",
          .claim = std::move(claim),
          .sources = kSources,
          .op = Op::combine,
          .expect = expect,
          .expect_for = {}};
}

}  // namespace

std::vector<PropertyDef> combine_properties() {
  std::vector<PropertyDef> out;
  out.push_back(define<SplitCase>(
      combine_property("combine.add_subsumes_concat",
                       "for any split d = d_t + d_p and any weights, adding the token zero-padded into the first "
                       "d_t coordinates and the position into the last d_p gives exactly the concatenation "
                       "(x + 0 = x), also through a linear projection and through attention"),
      split_gen, add_subsumes_concat_measure));
  out.push_back(define<SplitCase>(combine_property("combine.concat_linear_split", "W[x; p] = W_x x + W_p p"),
                                  split_gen, concat_linear_split_measure));
  out.push_back(define<RecoveryCase>(
      combine_property("combine.orthogonal_recovery",
                       "when token and position embeddings lie in orthogonal subspaces, projecting x + p onto "
                       "the token subspace recovers x"),
      recovery_gen, orthogonal_recovery_measure));
  out.push_back(define<PairsCase>(
      combine_property("combine.add_injective",
                       "adding is injective on (token, position) pairs: false in general, two different pairs "
                       "can add to the same vector",
                       Expect::violated),
      [](const GenContext&) { return pairs_gen(true); }, add_injective_measure));
  out.push_back(define<PairsCase>(
      combine_property("combine.concat_injective",
                       "concatenation of injective token and position embeddings is injective"),
      [](const GenContext&) { return pairs_gen(false); }, concat_injective_measure));
  return out;
}

}  // namespace pecheck
