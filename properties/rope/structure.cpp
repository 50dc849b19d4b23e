// CLAIMS.md §3 — the rotary encoding: R_t x rotates pair i of x by t·ω_i.
// The structural claims, judged on the rotated block under the declared
// convention (rope/common.h: widths, YaRN's factor m, the length a dynamic
// scaling depends on, the error model per stage), and the family's registry.
// CLAIMS.md §5's rope claims live in rope/reference_values.cpp, rope/pass_through.cpp
// and rope/distinct.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "pecheck/property/registry.h"
#include "rope/common.h"
#include "input_checks.h"

namespace pecheck::rope::structure {

namespace {

// rope.relative_dot -------------------------------------------------------------
// Two (query, key) position pairs at the same offset n − m, in one sequence.
struct RelativeDotCase {
  int dim = 2;
  Position query_position = 0, key_position = 0;
  Position shifted_query_position = 0, shifted_key_position = 0;
  Position seq_len = 1;
  Matrix query, key;
  void validate() const {
    input::width("dim", dim);
    input::length("seq_len", seq_len);
    for (Position t : {query_position, key_position, shifted_query_position, shifted_key_position}) {
      input::position("positions", t, seq_len);
    }
    input::matrix("query", query, 1, dim);
    input::matrix("key", key, 1, dim);
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RelativeDotCase, dim, query_position, key_position, shifted_query_position,
                                   shifted_key_position, seq_len, query, key)

rc::Gen<RelativeDotCase> relative_dot_gen(const GenContext& ctx) {
  const Position max = position_limit(ctx, Op::rotate);
  return rc::gen::mapcat(width_among(ctx, valid_dims(ctx.subject), defined_width(ctx.subject)), [max, ctx](int dim) {
    return rc::gen::apply(
        [dim, max, ctx](Position offset, Position start, Position shifted_start, bool key_first, Position extra,
                        Matrix q, Matrix k) {
          // Both pairs stay within [0, max]: the starts are clamped below max − offset.
          start = std::min(start, max - offset);
          shifted_start = std::min(shifted_start, max - offset);
          const Position q_off = key_first ? offset : 0, k_off = key_first ? 0 : offset;
          const Position last = std::max(start, shifted_start) + offset;
          return RelativeDotCase{dim, start + q_off, start + k_off, shifted_start + q_off, shifted_start + k_off,
                                 length_of(ctx, last, extra), std::move(q), std::move(k)};
        },
        position(ctx), position(ctx), position(ctx), rc::gen::arbitrary<bool>(), extra_length(ctx), vectors(1, dim),
        vectors(1, dim));
  });
}

Measurement relative_dot_measure(Subject& s, const RelativeDotCase& c, const BoundModel&) {
  const SubjectInfo& info = s.info();
  const Positions ts = {c.query_position, c.key_position, c.shifted_query_position, c.shifted_key_position};
  Matrix x(4, c.dim);
  x << c.query, c.key, c.query, c.key;
  const auto length = sent_length(info, c.seq_len);
  const int r = rotated_width(info, c.dim);
  const Matrix out = block(rotate(s, ts, x, length), r);
  const double dot = out.row(0).dot(out.row(1)), shifted_dot = out.row(2).dot(out.row(3));
  // Each rotated vector is off by its rotation's error times m‖v‖, which
  // moves a dot product by that times the other's m‖w‖ (the harness forms the
  // dot products in double). Two dot products of vectors of length m‖q‖ and
  // m‖k‖ differ by at most 2m²‖q‖‖k‖.
  const double m = magnitude(info);
  const double qk = block(c.query, r).norm() * block(c.key, r).norm() * m * m;
  Bound bound = rotations_bound(info, ts, frequencies(info, c.dim, request_length(info, ts, length)), qk,
                                "m²‖q‖‖k‖ of the rotated block");
  bound.at_most(2 * qk);
  // The same dot products of pecheck's rotations in the subject's dtypes: each off the exact one by what
  // rounding in those dtypes costs at these positions and vectors.
  if (const auto ref = same_dtype_rotation(info, ts, x, length)) {
    const Matrix rounded = block(ref->rounded, r), exact = block(ref->exact, r);
    auto dot_error = [&](int a, int b) {
      return std::fabs(rounded.row(a).dot(rounded.row(b)) - exact.row(a).dot(exact.row(b)));
    };
    bound.same_dtype(dot_error(0, 1) + dot_error(2, 3),
                     fmt::format("the {} rotation's own errors in the two dot products", name(info.dtype)));
  }
  Location where;
  where.label = fmt::format("(R_{} q)·(R_{} k) vs (R_{} q)·(R_{} k)", c.shifted_query_position,
                            c.shifted_key_position, c.query_position, c.key_position);
  where.position = std::max(c.shifted_query_position, c.shifted_key_position);
  Check check = compare_scalars("dot at the same offset", shifted_dot, dot, std::move(bound), std::move(where));
  check.note = fmt::format("dot products of the rotated blocks (features 0..{}) of query and key at the same offset "
                           "n − m = {}{}",
                           r - 1, c.key_position - c.query_position,
                           length ? fmt::format(", in one sequence of {}", *length) : "");
  return {{std::move(check)}, {}};
}

// rope.norm_preservation ---------------------------------------------------------
struct RotationCase {
  int dim = 2;
  Position position = 0;
  Position seq_len = 1;
  Matrix vector;
  void validate() const {
    input::width("dim", dim);
    input::length("seq_len", seq_len);
    input::position("position", position, seq_len);
    input::matrix("vector", vector, 1, dim);
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RotationCase, dim, position, seq_len, vector)

rc::Gen<RotationCase> rotation_gen(const GenContext& ctx) {
  return rc::gen::mapcat(width_among(ctx, valid_dims(ctx.subject), defined_width(ctx.subject)), [ctx](int dim) {
    return rc::gen::apply(
        [dim, ctx](Position t, Position extra, Matrix x) {
          return RotationCase{dim, t, length_of(ctx, t, extra), std::move(x)};
        },
        position(ctx), extra_length(ctx), vectors(1, dim));
  });
}

Measurement norm_measure(Subject& s, const RotationCase& c, const BoundModel&) {
  const SubjectInfo& info = s.info();
  const int r = rotated_width(info, c.dim);
  const Matrix out = block(rotate(s, {c.position}, c.vector, sent_length(info, c.seq_len)), r);
  const double m = magnitude(info), expected = m * block(c.vector, r).norm();
  // An angle error is itself a rotation and leaves the norm alone: only the
  // value path counts (and YaRN's factor, rounded in the angle precision).
  Bound bound = Bound::upper(5, expected, "5 value roundings · m‖x‖ of the rotated block");
  bound.plus(Stage::angles, 1, expected, "the factor m's rounding · m‖x‖");
  bound.at_most(expected);  // at that size even a zero vector would pass
  Location where;
  where.label = fmt::format("‖R_{} x‖ vs {}‖x‖", c.position, m == 1 ? "" : "m·");
  where.position = c.position;
  Check check = compare_scalars("norm", out.norm(), expected, std::move(bound), std::move(where));
  check.note = fmt::format("Euclidean norm of the rotated block (features 0..{}) against {}the input's", r - 1,
                           m == 1 ? "" : fmt::format("m = {:.6g} times ", m));
  return {{std::move(check)}, {}};
}

// rope.identity_at_zero ----------------------------------------------------------
struct IdentityCase {
  int dim = 2;
  Position seq_len = 1;
  Matrix vector;
  void validate() const {
    input::width("dim", dim);
    input::length("seq_len", seq_len);
    input::matrix("vector", vector, 1, dim);
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(IdentityCase, dim, seq_len, vector)

rc::Gen<IdentityCase> identity_gen(const GenContext& ctx) {
  return rc::gen::mapcat(width_among(ctx, valid_dims(ctx.subject), defined_width(ctx.subject)), [ctx](int dim) {
    return rc::gen::apply([dim, ctx](Position extra, Matrix x) { return IdentityCase{dim, length_of(ctx, 0, extra), std::move(x)}; },
                          extra_length(ctx), vectors(1, dim));
  });
}

Measurement identity_measure(Subject& s, const IdentityCase& c, const BoundModel&) {
  const SubjectInfo& info = s.info();
  const int r = rotated_width(info, c.dim);
  const Matrix out = block(rotate(s, {0}, c.vector, sent_length(info, c.seq_len)), r);
  const double m = magnitude(info);
  const Matrix expected = m * block(c.vector, r);
  // The angle is 0: cos 0 = 1 and sin 0 = 0 exactly; only m rounds on that path.
  Bound bound = rotations_bound(info, {0}, {}, expected.norm(), "m‖x‖ of the rotated block");
  bound.at_most(2 * expected.norm());
  if (const auto ref = same_dtype_rotation(info, {0}, c.vector, sent_length(info, c.seq_len))) {
    bound.same_dtype((block(ref->rounded, r) - block(ref->exact, r)).cwiseAbs().maxCoeff(),
                     fmt::format("the {} rotation's own error", name(info.dtype)));
  }
  Check check = compare_entries("entries", out, expected, std::move(bound));
  check.where.label = m == 1 ? "R_0 x" : "R_0 x against m·x";
  check.where.row.reset();
  check.where.position = 0;
  check.note = fmt::format("R_0 x against {}x on the rotated block (features 0..{}), entry by entry",
                           m == 1 ? "" : fmt::format("m = {:.6g} times ", m), r - 1);
  return {{std::move(check)}, {}};
}

// rope.composition ----------------------------------------------------------------
struct CompositionCase {
  int dim = 2;
  Position first = 0, second = 0;  // R_first R_second x = R_{first + second} x
  Position seq_len = 1;
  Matrix vector;
  void validate() const {
    input::width("dim", dim);
    input::length("seq_len", seq_len);
    input::position("first", first, seq_len);
    input::position("second", second, seq_len);
    input::position("first + second", first + second, seq_len);
    input::matrix("vector", vector, 1, dim);
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CompositionCase, dim, first, second, seq_len, vector)

rc::Gen<CompositionCase> composition_gen(const GenContext& ctx) {
  const Position max = position_limit(ctx, Op::rotate);
  return rc::gen::mapcat(width_among(ctx, valid_dims(ctx.subject), defined_width(ctx.subject)), [max, ctx](int dim) {
    return rc::gen::apply(
        [dim, max, ctx](Position a, Position b, Position extra, Matrix x) {
          b = std::min(b, max - a);  // a + b <= max
          return CompositionCase{dim, a, b, length_of(ctx, a + b, extra), std::move(x)};
        },
        position(ctx), position(ctx), extra_length(ctx), vectors(1, dim));
  });
}

// The same two paths through pecheck's rotations in the subject's dtypes
// (issue 36): R_a of the rounded R_b x, and R_{a+b} x, each against the exact
// m·R_{a+b} x; their errors summed, as the two answers compared.
void with_same_dtype_composition(Bound& bound, const SubjectInfo& info, const Positions& first_request,
                                 const Positions& second_request, const Matrix& x, std::optional<Position> length) {
  const auto once = same_dtype_rotation(info, first_request, x, length);
  if (!once || !once->rounded.allFinite()) return;
  const Matrix again = second_request.size() == 1 ? Matrix(once->rounded.topRows(1)) : once->rounded;
  const auto twice = same_dtype_rotation(info, second_request, again, length);
  if (!twice || !twice->rounded.allFinite()) return;
  const int r = rotated_width(info, static_cast<int>(x.cols()));
  const double m = magnitude(info);
  const Matrix exact = m * block(once->exact.bottomRows(1), r);
  const double error = (block(twice->rounded.topRows(1), r) - exact).cwiseAbs().maxCoeff() +
                       (m * block(once->rounded.bottomRows(1), r) - exact).cwiseAbs().maxCoeff();
  bound.same_dtype(error, fmt::format("the {} rotations' own errors on the two paths", name(info.dtype)));
}

Measurement composition_measure(Subject& s, const CompositionCase& c, const BoundModel&) {
  const SubjectInfo& info = s.info();
  const auto length = sent_length(info, c.seq_len);
  const int r = rotated_width(info, c.dim);
  Matrix x(2, c.dim);
  x << c.vector, c.vector;
  const Positions first_request = {c.second, c.first + c.second};
  const Matrix once = rotate(s, first_request, x, length);
  // A convention whose factor set follows the request's own positions
  // (LongRoPE's `position` rule) sees the second request at the first's
  // largest position too, so both turn with one factor set.
  Positions second_request = {c.first};
  Matrix again = once.topRows(1);
  if (request_length(info, second_request, length) != request_length(info, first_request, length)) {
    second_request.push_back(c.first + c.second);
    again = once;
  }
  const Matrix twice = block(rotate(s, second_request, again, length), r).topRows(1);
  // R_a (m R_b x) = m·(m R_{a+b} x): the rotated-once answer times m.
  const double m = magnitude(info);
  const Matrix expected = m * block(once.bottomRows(1), r);
  const double scale = m * m * block(c.vector, r).norm();
  Bound bound = rotations_bound(info, {c.first, c.second, c.first + c.second},
                                frequencies(info, c.dim, request_length(info, first_request, length)), scale,
                                "m²‖x‖ of the rotated block");
  bound.at_most(2 * scale);
  with_same_dtype_composition(bound, info, first_request, second_request, x, length);
  Check check = compare_entries("entries", twice, expected, std::move(bound));
  check.where.label = fmt::format("R_{} R_{} x vs {}R_{} x", c.first, c.second, m == 1 ? "" : "m·", c.first + c.second);
  check.where.row.reset();
  check.where.position = c.first + c.second;
  check.note = fmt::format("rotating twice against rotating once by the summed position{}, on the rotated block "
                           "(features 0..{}), entry by entry{}",
                           m == 1 ? "" : " (times m)", r - 1,
                           length ? fmt::format(", all in one sequence of {}", *length) : "");
  return {{std::move(check)}, {}};
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {
      scaling({Axis::width}, define<RelativeDotCase>("rope.relative_dot", {"dot at the same offset"},
                                                     relative_dot_gen, relative_dot_measure)),
      scaling({Axis::width}, define<RotationCase>("rope.norm_preservation", {"norm"}, rotation_gen, norm_measure)),
      scaling({Axis::width}, define<IdentityCase>("rope.identity_at_zero", {"entries"}, identity_gen, identity_measure)),
      scaling({Axis::width},
              define<CompositionCase>("rope.composition", {"entries"}, composition_gen, composition_measure)),
  };
}


}  // namespace pecheck::rope::structure
