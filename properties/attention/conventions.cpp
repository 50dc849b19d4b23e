#include "attention/conventions.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "pecheck/gen/fast_random.h"
#include "pecheck/gen/matrix.h"
#include "pecheck/reference/attention.h"
#include "input_checks.h"

namespace pecheck::attention {

rc::Gen<GroupedDims> grouped_dims(const GenContext& ctx) {
  return rc::gen::mapcat(heads(ctx.subject), [&subject = ctx.subject](int h) {
    const int g = kv_heads(subject, h);
    return rc::gen::apply([h, g](int dk, int dv) { return GroupedDims{h, g, dk, dv}; }, rc::gen::inRange(1, 9),
                          rc::gen::inRange(1, 9));
  });
}

rc::Gen<Grouped> grouped(const GroupedDims& d, Eigen::Index n, Eigen::Index m) {
  return rc::gen::apply([heads = d.heads](Matrix q, Matrix k, Matrix v) { return Grouped{q, k, v, heads}; },
                        gen::matrix(n, d.heads * d.d_head, -1, 1), gen::matrix(m, d.kv_heads * d.d_head, -1, 1),
                        gen::matrix(m, d.kv_heads * d.d_value, -1, 1));
}

void validate_grouped(const Matrix& q, const Matrix& k, const Matrix& v, int heads) { validate_qkv(q, k, v, heads); }

Matrix answer(Subject& s, const Grouped& g, const AttentionMask& mask) {
  Matrix y = ask::attention(s, g.q, g.k, g.v, mask, g.heads);
  require_shape(y, g.q.rows(), g.heads * g.d_value(), "attention");
  return y;
}

std::optional<Matrix> reference_answer(const SubjectInfo& subject, const Grouped& g, const AttentionMask& mask) {
  try {
    return reference::attention(g.q, g.k, g.v, mask, g.heads, Dtype::float64, declared(subject));
  } catch (const Refusal&) {
    return std::nullopt;
  }
}

namespace {

// scale·max ‖q_i‖·‖k_j‖ over query heads and the kv heads (any) they may read.
double norm_bound(const Grouped& g, double scale) {
  const Eigen::Index dh = g.d_head();
  double q_most = 0, k_most = 0;
  for (int h = 0; h < g.heads; ++h) q_most = std::max(q_most, g.q.middleCols(h * dh, dh).rowwise().norm().maxCoeff());
  for (int kv = 0; kv < g.kv_heads(); ++kv) {
    k_most = std::max(k_most, g.k.middleCols(kv * dh, dh).rowwise().norm().maxCoeff());
  }
  return q_most * k_most * scale;
}

}  // namespace

double rounding_width(const SubjectInfo& subject, const Grouped& g) {
  const double dh = static_cast<double>(g.d_head());
  const auto& dc = declared(subject).dual_chunk;
  if (!dc) return dh;
  const Eigen::Index n = g.q.rows(), m = g.k.rows();
  const Position offset = declared(subject).offset(n, m);
  Position most = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < m; ++j) {
      const auto [pq, pk] = reference::dual_chunk_positions(*dc, offset + static_cast<Position>(i), static_cast<Position>(j));
      most = std::max({most, pq, pk});
    }
  }
  return dh + static_cast<double>(most) + 3;
}

double logit_bound(const SubjectInfo& subject, const Grouped& g) {
  const double scale = logit_scale(subject, g.d_head());
  const double h = declared(subject).dual_chunk ? norm_bound(g, scale) : logit_magnitude(g.q, g.k, g.heads, scale);
  const auto& cap = declared(subject).softcap;
  return cap ? std::min(h, *cap) : h;
}

Bound evaluations_bound(const SubjectInfo& subject, const Grouped& g, int evaluations, double value_scale) {
  return output_bound(evaluations, static_cast<double>(g.d_head()), g.k.rows(), logit_bound(subject, g), value_scale);
}

double head_move(const Matrix& a, const Matrix& b, int heads, int h, const std::function<bool(Eigen::Index)>& row) {
  const Eigen::Index width = a.cols() / heads;
  double worst = 0;
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    if (!row(i)) continue;
    for (Eigen::Index c = h * width; c < (h + 1) * width; ++c) {
      const double d = std::fabs(a(i, c) - b(i, c));
      if (std::isnan(d)) return std::numeric_limits<double>::infinity();
      worst = std::max(worst, d);
    }
  }
  return worst;
}

Grouped with_dominant_key(const SubjectInfo& subject, const Grouped& g, Eigen::Index i, Eigen::Index j,
                          const Matrix& shift, double target) {
  Grouped out = g;
  const Eigen::Index dh = g.d_head();
  const int groups = g.kv_heads();
  const double scale = logit_scale(subject, dh);
  for (int kv = 0; kv < groups; ++kv) {
    int reader = -1;
    for (int h = 0; h < g.heads && reader < 0; ++h) {
      if (AttentionConvention::kv_head_of(h, g.heads, groups, declared(subject).grouping) == kv) reader = h;
    }
    if (reader < 0) continue;
    const auto qi = g.q.row(i).segment(reader * dh, dh);
    const double norm2 = qi.squaredNorm();
    if (norm2 > 0) out.k.row(j).segment(kv * dh, dh) = qi * (target / (scale * norm2));
  }
  out.v.row(j) += shift.row(0);
  return out;
}

void KeyChangeCase::validate() const {
  validate_qkv(q, k, v, heads);
  input::matrix("shift", shift, 1, v.cols());
  if (changed < 0 || changed >= k.rows()) input::invalid("changed", fmt::format("expected a key row of 0..{}", k.rows() - 1));
}

rc::Gen<KeyChangeCase> key_change_case(const GenContext& ctx, std::function<rc::Gen<std::pair<int, int>>()> sizes,
                                       std::function<rc::Gen<int>(int n, int m)> changed) {
  return rc::gen::mapcat(rc::gen::pair(grouped_dims(ctx), sizes()), [changed](const auto& drawn) {
    const auto& [d, nm] = drawn;
    const auto [n, m] = nm;
    return rc::gen::apply(
        [heads = d.heads](Grouped g, int j, Matrix magnitude, Matrix sign) {
          Matrix shift = magnitude;
          for (Eigen::Index c = 0; c < shift.cols(); ++c) shift(0, c) *= sign(0, c) < 0 ? -1 : 1;
          return KeyChangeCase{std::move(g.q), std::move(g.k), std::move(g.v), heads, j, std::move(shift)};
        },
        grouped(d, n, m), changed(n, m), gen::matrix(1, d.kv_heads * d.d_value, 1, 2),
        gen::matrix(1, d.kv_heads * d.d_value, -1, 1));
  });
}

Measurement visibility(Subject& s, const KeyChangeCase& c, Eigen::Index probe,
                       const std::function<bool(Eigen::Index)>& unseen, const std::string& unseen_name,
                       const std::string& seen_name, const std::string& what) {
  const SubjectInfo& info = s.info();
  const Grouped g = c.inputs();
  const Grouped changed = with_dominant_key(info, g, probe, c.changed, c.shift);
  // The raw dot products (scale 1) must stay in the subject's range.
  require_representable(info.dtype,
                        std::max(logit_magnitude(g.q, g.k, g.heads, 1.0), logit_magnitude(changed.q, changed.k, g.heads, 1.0)));
  const AttentionMask causal = AttentionMask::causal();
  const Matrix y = answer(s, g, causal), moved = answer(s, changed, causal);

  Check hidden{unseen_name};
  hidden.bound = Bound::exact("a key the convention hides has weight exactly 0, so the row's output is computed from "
                              "the same numbers in both calls");
  for (Eigen::Index r = 0; r < y.rows(); ++r) {
    if (!unseen(r)) continue;
    for (Eigen::Index col = 0; col < y.cols(); ++col) {
      double d = std::fabs(moved(r, col) - y(r, col));
      if (std::isnan(d)) d = std::numeric_limits<double>::infinity();
      if (d <= hidden.error) continue;
      hidden.error = d;
      hidden.where.query = r;
      hidden.where.column = col;
      hidden.observed = number_to_json(moved(r, col));
      hidden.expected = number_to_json(y(r, col));
    }
  }
  hidden.where.key = c.changed;
  hidden.where.label = fmt::format("key and value row {} changed, {} queries over {} keys", c.changed, y.rows(),
                                   c.k.rows());
  hidden.note = fmt::format("the rows that must not see key {} ({}), after it changed, against before", c.changed, what);

  Check seen{seen_name};
  const double value_scale = std::max(max_abs(g.v), max_abs(changed.v));
  seen.bound = evaluations_bound(info, changed, 2, value_scale);
  seen.bound.kind = Bound::Kind::lower;
  const auto at_probe = [probe](Eigen::Index r) { return r == probe; };
  int best_head = 0;
  for (int h = 0; h < g.heads; ++h) {
    const double d = head_move(y, moved, g.heads, h, at_probe);
    if (d > seen.error || h == 0) seen.error = d, best_head = h;
  }
  // The reference of the probe row alone, under that row of the declared
  // causal mask (the same keys, the same sums): the whole n × m reference at a
  // real window (4,097 tokens) is seconds a case, the row is milliseconds.
  const auto probe_only = [&](const Grouped& x) {
    BoolMatrix row(1, x.k.rows());
    for (Eigen::Index j = 0; j < x.k.rows(); ++j) row(0, j) = declared(info).causal_sees(probe, j, x.q.rows(), x.k.rows());
    return reference_answer(info, Grouped{x.q.middleRows(probe, 1), x.k, x.v, x.heads}, AttentionMask::boolean(row));
  };
  const auto ref = probe_only(g), ref_moved = probe_only(changed);
  if (ref && ref_moved) {
    double expected_move = 0;
    const auto first = [](Eigen::Index r) { return r == 0; };
    for (int h = 0; h < g.heads; ++h) expected_move = std::max(expected_move, head_move(*ref, *ref_moved, g.heads, h, first));
    seen.bound.at_most(expected_move);
    seen.expected = fmt::format("a move of about {:.6g} (the reference's under the declared convention), at least "
                                "the rounding bound", expected_move);
  } else {
    seen.expected = "a move larger than the rounding bound";
  }
  seen.observed = number_to_json(seen.error);
  seen.where.query = probe;
  seen.where.key = c.changed;
  seen.where.head = best_head;
  seen.note = fmt::format("how far query {}'s output moved when key {} ({}) changed to dominate it", probe, c.changed,
                          what);
  return {{std::move(hidden), std::move(seen)}, {}};
}

std::vector<bool> probe_row(Subject& s, const SubjectInfo& subject, Eigen::Index n, Eigen::Index m, int heads,
                            Eigen::Index d_head, Eigen::Index r, Eigen::Index from, Eigen::Index to) {
  gen::FastRandom random(0x5eed);
  auto draw = [&](Eigen::Index rows, Eigen::Index cols) {
    Matrix x(rows, cols);
    for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = 2 * random.unit() - 1;
    return x;
  };
  const int groups = subject.attention.heads ? subject.attention.key_heads() : heads;
  Grouped g{draw(n, heads * d_head), draw(m, groups * d_head), draw(m, groups * d_head), heads};
  const Matrix y = answer(s, g, AttentionMask::causal());
  std::vector<bool> seen;
  for (Eigen::Index j = from; j <= to; ++j) {
    if (j < 0 || j >= m) {
      seen.push_back(false);
      continue;
    }
    const Grouped changed = with_dominant_key(subject, g, r, j, Matrix::Constant(1, g.v.cols(), 1.5));
    const Matrix moved = answer(s, changed, AttentionMask::causal());
    seen.push_back(moved.row(r) != y.row(r));
  }
  return seen;
}

}  // namespace pecheck::attention
