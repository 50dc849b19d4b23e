// CLAIMS.md §3 — the rotary encoding: R_t x rotates pair i of x by t·ω_i.
//
// Error model of one computed rotation (first order in u, relative to ‖x‖):
// the value path rounds 5 times (x, cos θ, sin θ, a product, the sum) and the
// angle θ = t·ω 3 times (t, ω and their product), each an error of u·|t·ω| in
// θ, where |t·ω| <= |t| because ω_0 = 1 is the largest frequency. An angle
// error δθ moves a pair by δθ times its length, hence rotation_work below.
#include <fmt/format.h>

#include <cmath>

#include "pecheck/gen/matrix.h"
#include "pecheck/property/compare.h"
#include "pecheck/property/registry.h"

namespace pecheck {

namespace {

constexpr int kMaxPairs = 64;        // d = 2h, h in [1, 64]
constexpr double kValueBound = 4.0;  // vector entries in [-4, 4]

double rotation_work(Position t) { return 5.0 + 3.0 * std::fabs(static_cast<double>(t)); }

rc::Gen<int> dims() {
  return rc::gen::map(rc::gen::inRange(1, kMaxPairs + 1), [](int half) { return 2 * half; });
}
rc::Gen<Position> positions_up_to(Position max) { return rc::gen::inRange<Position>(0, max + 1); }
rc::Gen<Matrix> vectors(Eigen::Index rows, int dim) { return gen::matrix(rows, dim, -kValueBound, kValueBound); }

Matrix rotate_checked(Subject& s, const Positions& positions, const Matrix& x) {
  Matrix out = s.rotate(positions, x, std::nullopt);
  require_shape(out, x.rows(), x.cols(), "rotate");
  return out;
}

// rope.relative_dot -------------------------------------------------------------
// Two (query, key) position pairs at the same offset n − m.
struct RelativeDotCase {
  int dim = 2;
  Position query_position = 0, key_position = 0;
  Position shifted_query_position = 0, shifted_key_position = 0;
  Matrix query, key;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RelativeDotCase, dim, query_position, key_position, shifted_query_position,
                                   shifted_key_position, query, key)

rc::Gen<RelativeDotCase> relative_dot_gen(const GenContext& ctx) {
  const Position max = ctx.max_position;
  return rc::gen::mapcat(dims(), [max](int dim) {
    return rc::gen::apply(
        [dim, max](Position offset, Position start, Position shifted_start, bool key_first, Matrix q, Matrix k) {
          // Both pairs stay within [0, max]: the starts are clamped below max − offset.
          start = std::min(start, max - offset);
          shifted_start = std::min(shifted_start, max - offset);
          const Position q_off = key_first ? offset : 0, k_off = key_first ? 0 : offset;
          return RelativeDotCase{dim, start + q_off, start + k_off, shifted_start + q_off, shifted_start + k_off,
                                 std::move(q), std::move(k)};
        },
        positions_up_to(max), positions_up_to(max), positions_up_to(max), rc::gen::arbitrary<bool>(),
        vectors(1, dim), vectors(1, dim));
  });
}

Measurement relative_dot_measure(Subject& s, const RelativeDotCase& c, const BoundModel&) {
  Matrix x(4, c.dim);
  x << c.query, c.key, c.query, c.key;
  const Matrix r = rotate_checked(
      s, {c.query_position, c.key_position, c.shifted_query_position, c.shifted_key_position}, x);
  const double dot = r.row(0).dot(r.row(1)), shifted_dot = r.row(2).dot(r.row(3));
  // Each rotated vector is off by u·rotation_work(t)·‖v‖, which moves a dot
  // product by that times the other vector's norm; forming the dot product
  // itself accumulates d terms.
  const double work = c.dim + rotation_work(c.query_position) + rotation_work(c.key_position) +
                      rotation_work(c.shifted_query_position) + rotation_work(c.shifted_key_position);
  Location where;
  where.label = fmt::format("(R_{} q)·(R_{} k) vs (R_{} q)·(R_{} k)", c.shifted_query_position,
                            c.shifted_key_position, c.query_position, c.key_position);
  where.position = std::max(c.shifted_query_position, c.shifted_key_position);
  Check check = compare_scalars("dot at the same offset", shifted_dot, dot,
                                Bound::upper(work, c.query.norm() * c.key.norm(),
                                             "(d dot-product terms + Σ over the 4 rotations of (5 + 3|t|)) · ‖q‖‖k‖"),
                                std::move(where));
  check.note = fmt::format("dot products of rotated query and key at the same offset n − m = {}",
                           c.key_position - c.query_position);
  return {{std::move(check)}, {}};
}

// rope.norm_preservation ---------------------------------------------------------
struct RotationCase {
  int dim = 2;
  Position position = 0;
  Matrix vector;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RotationCase, dim, position, vector)

rc::Gen<RotationCase> rotation_gen(const GenContext& ctx) {
  const Position max = ctx.max_position;
  return rc::gen::mapcat(dims(), [max](int dim) {
    return rc::gen::apply([dim](Position t, Matrix x) { return RotationCase{dim, t, std::move(x)}; },
                          positions_up_to(max), vectors(1, dim));
  });
}

Measurement norm_measure(Subject& s, const RotationCase& c, const BoundModel&) {
  const Matrix r = rotate_checked(s, {c.position}, c.vector);
  // An angle error is itself a rotation and leaves the norm alone, so only
  // the value path counts (5 roundings), plus d terms of the norm.
  Location where;
  where.label = fmt::format("‖R_{} x‖ vs ‖x‖", c.position);
  where.position = c.position;
  Check check = compare_scalars("norm", r.norm(), c.vector.norm(),
                                Bound::upper(5.0 + c.dim, c.vector.norm(),
                                             "(5 roundings of the value path + d norm terms) · ‖x‖"),
                                std::move(where));
  check.note = "Euclidean norm of the rotated vector against the input's";
  return {{std::move(check)}, {}};
}

// rope.identity_at_zero ----------------------------------------------------------
struct IdentityCase {
  int dim = 2;
  Matrix vector;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(IdentityCase, dim, vector)

rc::Gen<IdentityCase> identity_gen(const GenContext&) {
  return rc::gen::mapcat(dims(), [](int dim) {
    return rc::gen::map(vectors(1, dim), [dim](Matrix x) { return IdentityCase{dim, std::move(x)}; });
  });
}

Measurement identity_measure(Subject& s, const IdentityCase& c, const BoundModel&) {
  const Matrix r = rotate_checked(s, {0}, c.vector);
  Check check = compare_entries("entries", r, c.vector,
                                Bound::upper(rotation_work(0), c.vector.norm(),
                                             "(5 roundings of the value path; the angle is 0) · ‖x‖"));
  check.where.label = "R_0 x";
  check.where.row.reset();
  check.where.position = 0;
  check.note = "R_0 x against x, entry by entry";
  return {{std::move(check)}, {}};
}

// rope.composition ----------------------------------------------------------------
struct CompositionCase {
  int dim = 2;
  Position first = 0, second = 0;  // R_first R_second x = R_{first + second} x
  Matrix vector;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CompositionCase, dim, first, second, vector)

rc::Gen<CompositionCase> composition_gen(const GenContext& ctx) {
  const Position max = ctx.max_position;
  return rc::gen::mapcat(dims(), [max](int dim) {
    return rc::gen::apply(
        [dim, max](Position a, Position b, Matrix x) {
          return CompositionCase{dim, a, std::min(b, max - a), std::move(x)};  // a + b <= max
        },
        positions_up_to(max), positions_up_to(max), vectors(1, dim));
  });
}

Measurement composition_measure(Subject& s, const CompositionCase& c, const BoundModel&) {
  Matrix x(2, c.dim);
  x << c.vector, c.vector;
  const Matrix once = rotate_checked(s, {c.second, c.first + c.second}, x);
  const Matrix twice = rotate_checked(s, {c.first}, once.topRows(1));
  // Three rotations contribute (R_second, R_first and R_{first+second}); the
  // intermediate vector has the norm of x to first order.
  const double work = rotation_work(c.first) + rotation_work(c.second) + rotation_work(c.first + c.second);
  Check check = compare_entries("entries", twice, once.bottomRows(1),
                                Bound::upper(work, c.vector.norm(), "(Σ over the 3 rotations of (5 + 3|t|)) · ‖x‖"));
  check.where.label = fmt::format("R_{} R_{} x vs R_{} x", c.first, c.second, c.first + c.second);
  check.where.row.reset();
  check.where.position = c.first + c.second;
  check.note = "rotating twice against rotating once by the summed position, entry by entry";
  return {{std::move(check)}, {}};
}

}  // namespace

std::vector<PropertyImpl> rope_properties() {
  return {
      define<RelativeDotCase>("rope.relative_dot", {"dot at the same offset"}, relative_dot_gen, relative_dot_measure),
      define<RotationCase>("rope.norm_preservation", {"norm"}, rotation_gen, norm_measure),
      define<IdentityCase>("rope.identity_at_zero", {"entries"}, identity_gen, identity_measure),
      define<CompositionCase>("rope.composition", {"entries"}, composition_gen, composition_measure),
  };
}

}  // namespace pecheck
