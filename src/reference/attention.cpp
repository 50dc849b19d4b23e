#include "pecheck/reference/attention.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "pecheck/reference/dual_chunk.h"
#include "pecheck/reference/rotary.h"

namespace pecheck::reference {

bool may_attend(const AttentionMask& mask, Eigen::Index i, Eigen::Index j) {
  switch (mask.kind) {
    case AttentionMask::Kind::none: return true;
    case AttentionMask::Kind::causal: return j <= i;
    case AttentionMask::Kind::boolean: return mask.allowed(i, j);
  }
  return true;
}

void check_attention_inputs(const Matrix& q, const Matrix& k, const Matrix* v, const AttentionMask& mask,
                            int heads) {
  const Eigen::Index n = q.rows(), m = k.rows();
  if (n < 1 || m < 1) throw Refusal(fmt::format("attention needs at least one query and one key, got {} and {}", n, m));
  if (q.cols() != k.cols()) throw Refusal(fmt::format("q has {} features but k has {}", q.cols(), k.cols()));
  if (v != nullptr && v->rows() != m) throw Refusal(fmt::format("k has {} rows but v has {}", m, v->rows()));
  if (heads < 1) throw Refusal(fmt::format("heads must be positive, got {}", heads));
  if (q.cols() % heads != 0 || (v != nullptr && v->cols() % heads != 0)) {
    throw Refusal(fmt::format("{} heads do not divide d_k = {} and d_v = {}", heads, q.cols(),
                              v != nullptr ? v->cols() : 0));
  }
  if (mask.kind == AttentionMask::Kind::causal && n != m) {
    throw Refusal(fmt::format("a causal mask needs as many queries as keys, got {} and {}", n, m));
  }
  if (mask.kind == AttentionMask::Kind::boolean && (mask.allowed.rows() != n || mask.allowed.cols() != m)) {
    throw Refusal(fmt::format("the mask is {}×{}, expected {}×{}", mask.allowed.rows(), mask.allowed.cols(), n, m));
  }
  if (mask.kind == AttentionMask::Kind::boolean) {
    for (Eigen::Index i = 0; i < n; ++i) {
      if (!mask.allowed.row(i).any()) {
        throw Refusal(fmt::format("query {} may attend to no key: the softmax of an empty set is undefined", i));
      }
    }
  }
}

Matrix round_entries(const Matrix& m, Dtype dtype) {
  if (dtype == Dtype::float64) return m;
  return m.unaryExpr([dtype](double x) { return round_to(dtype, x); });
}

Matrix scaled_logits(const Matrix& q, const Matrix& k, const AttentionMask& mask, Dtype dtype) {
  const Eigen::Index n = q.rows(), m = k.rows(), d = q.cols();
  Matrix h(n, m);
  if (dtype == Dtype::float64) {
    h.noalias() = q * k.transpose();
    h /= std::sqrt(static_cast<double>(d));
  } else {
    const double scale = round_to(dtype, std::sqrt(static_cast<double>(d)));
    for (Eigen::Index i = 0; i < n; ++i) {
      for (Eigen::Index j = 0; j < m; ++j) {
        double acc = 0;
        for (Eigen::Index l = 0; l < d; ++l) acc = round_to(dtype, acc + round_to(dtype, q(i, l) * k(j, l)));
        h(i, j) = round_to(dtype, acc / scale);
      }
    }
  }
  if (mask.kind != AttentionMask::Kind::none) {
    for (Eigen::Index i = 0; i < n; ++i) {
      for (Eigen::Index j = 0; j < m; ++j) {
        if (!may_attend(mask, i, j)) h(i, j) = -std::numeric_limits<double>::infinity();
      }
    }
  }
  return h;
}

Matrix softmax_rows(const Matrix& logits, Dtype dtype) {
  Matrix w(logits.rows(), logits.cols());
  for (Eigen::Index i = 0; i < logits.rows(); ++i) {
    const double top = logits.row(i).maxCoeff();
    if (!std::isfinite(top)) {
      throw Refusal(fmt::format("query {} has no finite logit (fully masked or overflowed): its softmax is undefined", i));
    }
    double sum = 0;
    for (Eigen::Index j = 0; j < logits.cols(); ++j) {
      const double e = round_to(dtype, std::exp(round_to(dtype, logits(i, j) - top)));
      w(i, j) = e;
      sum = round_to(dtype, sum + e);
    }
    for (Eigen::Index j = 0; j < logits.cols(); ++j) w(i, j) = round_to(dtype, w(i, j) / sum);
  }
  return w;
}

Matrix mix_values(const Matrix& weights, const Matrix& v, Dtype dtype) {
  if (dtype == Dtype::float64) return weights * v;
  Matrix y(weights.rows(), v.cols());
  for (Eigen::Index i = 0; i < weights.rows(); ++i) {
    for (Eigen::Index c = 0; c < v.cols(); ++c) {
      double acc = 0;
      for (Eigen::Index j = 0; j < v.rows(); ++j) acc = round_to(dtype, acc + round_to(dtype, weights(i, j) * v(j, c)));
      y(i, c) = acc;
    }
  }
  return y;
}

Matrix split_heads(const Matrix& q, const Matrix& k, const Matrix& v, int heads, const HeadFn& head) {
  if (heads == 1) return head(q, k, v);
  const Eigen::Index dk = q.cols() / heads, dv = v.cols() / heads;
  Matrix y(q.rows(), v.cols());
  for (int h = 0; h < heads; ++h) {
    y.middleCols(h * dv, dv) = head(q.middleCols(h * dk, dk), k.middleCols(h * dk, dk), v.middleCols(h * dv, dv));
  }
  return y;
}

Matrix attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask, int heads,
                 Dtype dtype) {
  check_attention_inputs(q, k, &v, mask, heads);
  return split_heads(round_entries(q, dtype), round_entries(k, dtype), round_entries(v, dtype), heads,
                     [&](const Matrix& qh, const Matrix& kh, const Matrix& vh) {
                       return mix_values(softmax_rows(scaled_logits(qh, kh, mask, dtype), dtype), vh, dtype);
                     });
}

Matrix attention_logits(const Matrix& q, const Matrix& k, const AttentionMask& mask, Dtype dtype) {
  check_attention_inputs(q, k, nullptr, mask, 1);
  return scaled_logits(round_entries(q, dtype), round_entries(k, dtype), mask, dtype);
}

BoolMatrix visible_keys(const AttentionMask& mask, Eigen::Index n, Eigen::Index m,
                        const AttentionConvention& convention) {
  BoolMatrix seen(n, m);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < m; ++j) {
      seen(i, j) = mask.kind == AttentionMask::Kind::causal ? convention.causal_sees(i, j, n, m)
                                                            : may_attend(mask, i, j);
    }
  }
  return seen;
}

int kv_heads_of(const Matrix& q, const Matrix& k, const Matrix& v, int heads) {
  if (heads < 1) throw Refusal(fmt::format("heads must be positive, got {}", heads));
  if (q.cols() % heads != 0) throw Refusal(fmt::format("{} heads do not divide d_k = {}", heads, q.cols()));
  const Eigen::Index d_head = q.cols() / heads;
  if (d_head < 1) throw Refusal(fmt::format("{} heads of q's {} features leave no feature per head", heads, q.cols()));
  if (k.cols() % d_head != 0 || k.cols() == 0) {
    throw Refusal(fmt::format("k has {} features, not a whole number of heads of width {}", k.cols(), d_head));
  }
  const auto groups = static_cast<int>(k.cols() / d_head);
  if (heads % groups != 0) {
    throw Refusal(fmt::format("{} key/value heads do not divide {} query heads", groups, heads));
  }
  if (v.cols() % groups != 0) {
    throw Refusal(fmt::format("{} key/value heads do not divide d_v = {}", groups, v.cols()));
  }
  return groups;
}

void check_grouped_inputs(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask, int heads,
                          const AttentionConvention& convention) {
  const Eigen::Index n = q.rows(), m = k.rows();
  if (n < 1 || m < 1) throw Refusal(fmt::format("attention needs at least one query and one key, got {} and {}", n, m));
  if (v.rows() != m) throw Refusal(fmt::format("k has {} rows but v has {}", m, v.rows()));
  const int groups = kv_heads_of(q, k, v, heads);
  if (convention.heads && (heads != *convention.heads || groups != convention.key_heads())) {
    throw Refusal(fmt::format("{} query and {} key/value heads, not the declared {} and {}", heads, groups,
                              *convention.heads, convention.key_heads()));
  }
  if (convention.sinks && static_cast<int>(convention.sink_logits.size()) != heads) {
    throw Refusal(fmt::format("{} sink logits for {} heads", convention.sink_logits.size(), heads));
  }
  if (mask.kind == AttentionMask::Kind::causal && n != m && !convention.alignment) {
    throw Refusal(fmt::format("a causal mask needs as many queries as keys, got {} and {} (or a declared "
                              "alignment)", n, m));
  }
  if (mask.kind == AttentionMask::Kind::boolean && (mask.allowed.rows() != n || mask.allowed.cols() != m)) {
    throw Refusal(fmt::format("the mask is {}×{}, expected {}×{}", mask.allowed.rows(), mask.allowed.cols(), n, m));
  }
}

namespace {

// One logit: scale·(q·k), every product and partial sum rounded to dtype.
double scaled_dot(const Eigen::RowVectorXd& q, const Eigen::RowVectorXd& k, Dtype dtype, const AttentionConvention& c) {
  const auto d = q.size();
  if (dtype == Dtype::float64) {
    const double dot = q.dot(k);
    return c.scale ? dot * *c.scale : dot / std::sqrt(static_cast<double>(d));
  }
  const double by = round_to(dtype, c.scale ? *c.scale : std::sqrt(static_cast<double>(d)));
  double acc = 0;
  for (Eigen::Index l = 0; l < d; ++l) acc = round_to(dtype, acc + round_to(dtype, q(l) * k(l)));
  return round_to(dtype, c.scale ? acc * by : acc / by);
}

Matrix softmax_head(Matrix s, const Matrix& v, const BoolMatrix& seen, Dtype dtype, const AttentionConvention& c,
                    std::optional<double> sink);

// One head: logits scale·q kᵀ, capped, masked; softmax with the sink; P·V.
Matrix convention_head(const Matrix& q, const Matrix& k, const Matrix& v, const BoolMatrix& seen, Dtype dtype,
                       const AttentionConvention& c, std::optional<double> sink) {
  const Eigen::Index n = q.rows(), m = k.rows(), d = q.cols();
  Matrix s(n, m);
  if (dtype == Dtype::float64) {
    s.noalias() = q * k.transpose();
    if (c.scale) s *= *c.scale;
    else s /= std::sqrt(static_cast<double>(d));
  } else {
    for (Eigen::Index i = 0; i < n; ++i) {
      for (Eigen::Index j = 0; j < m; ++j) s(i, j) = scaled_dot(q.row(i), k.row(j), dtype, c);
    }
  }
  return softmax_head(std::move(s), v, seen, dtype, c, sink);
}

// The cap, the mask, the softmax with the sink, P·V on one head's logits s.
Matrix softmax_head(Matrix s, const Matrix& v, const BoolMatrix& seen, Dtype dtype, const AttentionConvention& c,
                    std::optional<double> sink) {
  const Eigen::Index n = s.rows(), m = s.cols();
  const double ninf = -std::numeric_limits<double>::infinity();
  if (c.softcap) {
    const double cap = *c.softcap;
    s = s.unaryExpr([&](double x) { return round_to(dtype, cap * round_to(dtype, std::tanh(round_to(dtype, x / cap)))); });
  }
  Matrix y = Matrix::Zero(n, v.cols());
  for (Eigen::Index i = 0; i < n; ++i) {
    double top = sink.value_or(ninf);
    bool any = false;
    for (Eigen::Index j = 0; j < m; ++j) {
      if (!seen(i, j)) continue;
      any = true;
      if (!(s(i, j) <= top)) top = s(i, j);  // a NaN logit becomes the maximum and spreads
    }
    if (!any && !sink) {
      if (c.masked_policy() == FullyMasked::zeros) continue;  // a zero row
      throw Refusal(fmt::format("query {} may attend to no key: the softmax of an empty set is undefined", i));
    }
    if (!std::isfinite(top)) {
      throw Refusal(fmt::format("query {} has no finite logit (overflowed): its softmax is undefined", i));
    }
    std::vector<double> w(static_cast<size_t>(m), 0.0);
    double sum = sink ? round_to(dtype, std::exp(round_to(dtype, *sink - top))) : 0.0;
    for (Eigen::Index j = 0; j < m; ++j) {
      if (!seen(i, j)) continue;
      w[static_cast<size_t>(j)] = round_to(dtype, std::exp(round_to(dtype, s(i, j) - top)));
      sum = round_to(dtype, sum + w[static_cast<size_t>(j)]);
    }
    for (Eigen::Index col = 0; col < v.cols(); ++col) {
      double acc = 0;
      for (Eigen::Index j = 0; j < m; ++j) {
        if (!seen(i, j)) continue;
        acc = round_to(dtype, acc + round_to(dtype, round_to(dtype, w[static_cast<size_t>(j)] / sum) * v(j, col)));
      }
      y(i, col) = acc;
    }
  }
  return y;
}

// Every query head h against its kv head (the declared grouping), the inputs
// rounded to dtype: `head(q_h, k_g, v_g, h's sink)` gives h's columns.
template <class Head>
Matrix each_head(const Matrix& q, const Matrix& k, const Matrix& v, int heads, Dtype dtype,
                 const AttentionConvention& convention, Head head) {
  const int groups = kv_heads_of(q, k, v, heads);
  const Eigen::Index d_head = q.cols() / heads, d_v = v.cols() / groups;
  const Matrix qr = round_entries(q, dtype), kr = round_entries(k, dtype), vr = round_entries(v, dtype);
  Matrix y(q.rows(), heads * d_v);
  for (int h = 0; h < heads; ++h) {
    const int g = AttentionConvention::kv_head_of(h, heads, groups, convention.grouping);
    std::optional<double> sink;
    if (convention.sinks) sink = convention.sink_logits[static_cast<size_t>(h)];
    y.middleCols(h * d_v, d_v) =
        head(qr.middleCols(h * d_head, d_head), kr.middleCols(g * d_head, d_head), vr.middleCols(g * d_v, d_v), sink);
  }
  return y;
}

// Rows of one matrix, each rotated at the positions asked for it, every
// operation rounded to dtype (rotary_axes_rounded), each (row, position)
// rotated once: a key meets every query at one position, a query at most
// three (its own chunk, the one before, earlier ones).
class RotatedRows {
 public:
  RotatedRows(const Matrix& rows, const RotateConvention& rotate, Dtype dtype)
      : rows_(rows), rotate_(rotate), dtype_(dtype), done_(static_cast<size_t>(rows.rows())) {}
  const Eigen::RowVectorXd& at(Eigen::Index row, Position p) {
    auto& done = done_[static_cast<size_t>(row)];
    for (const auto& [position, rotated] : done) {
      if (position == p) return rotated;
    }
    const Matrix one = rotary_axes_rounded({{p}}, rows_.row(row), rotate_, std::nullopt, dtype_, dtype_);
    return done.emplace_back(p, one.row(0)).second;
  }

 private:
  const Matrix& rows_;
  const RotateConvention& rotate_;
  Dtype dtype_;
  std::vector<std::vector<std::pair<Position, Eigen::RowVectorXd>>> done_;
};

// One head of dual chunk attention: query i (at position offset + i) and key
// j rotated at dual_chunk_positions, each rotated row rounded to dtype, then
// the logits as any head's.
Matrix dual_chunk_head(const Matrix& q, const Matrix& k, const Matrix& v, const BoolMatrix& seen, Dtype dtype,
                       const AttentionConvention& c, std::optional<double> sink, Position offset,
                       DualChunkReading reading) {
  const DualChunk& dc = *c.dual_chunk;
  const Eigen::Index n = q.rows(), m = k.rows();
  const double ninf = -std::numeric_limits<double>::infinity();
  RotatedRows queries(q, dc.rotate, dtype), keys(k, dc.rotate, dtype);
  Matrix s = Matrix::Constant(n, m, ninf);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < m; ++j) {
      if (!seen(i, j)) continue;
      const auto [pq, pk] = dual_chunk_positions(dc, offset + static_cast<Position>(i), static_cast<Position>(j), reading);
      s(i, j) = scaled_dot(queries.at(i, pq), keys.at(j, pk), dtype, c);
    }
  }
  return softmax_head(std::move(s), v, seen, dtype, c, sink);
}

}  // namespace

Matrix attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask, int heads, Dtype dtype,
                 const AttentionConvention& convention) {
  if (convention.dual_chunk) return attention_dual_chunk(q, k, v, mask, heads, dtype, convention, DualChunkReading::faithful);
  check_grouped_inputs(q, k, v, mask, heads, convention);
  const BoolMatrix seen = visible_keys(mask, q.rows(), k.rows(), convention);
  return each_head(q, k, v, heads, dtype, convention,
                   [&](const Matrix& qh, const Matrix& kh, const Matrix& vh, std::optional<double> sink) {
                     return convention_head(qh, kh, vh, seen, dtype, convention, sink);
                   });
}

Matrix attention_dual_chunk(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask, int heads,
                            Dtype dtype, const AttentionConvention& convention, DualChunkReading reading) {
  if (!convention.dual_chunk) throw Refusal("no dual_chunk declared");
  if (mask.kind != AttentionMask::Kind::causal) {
    // DualChunkFlashAttentionImpl._dual_chunk_flash_attn_prefill refuses causal=False.
    throw Refusal("dual chunk attention is causal: a request with another mask has no dual chunk positions");
  }
  check_grouped_inputs(q, k, v, mask, heads, convention);
  check_dual_chunk(*convention.dual_chunk, static_cast<int>(q.cols() / heads));
  if (const auto& most = convention.dual_chunk->original_max_position_embeddings; most && k.rows() > *most) {
    // DualChunkFlashAttentionImpl.forward scales the keys by a factor of the sequence length past it.
    throw Refusal(fmt::format("{} keys, past original_max_position_embeddings {}: the length factor vLLM then "
                              "applies to the keys is not modelled",
                              k.rows(), *most));
  }
  const BoolMatrix seen = visible_keys(mask, q.rows(), k.rows(), convention);
  const Position offset = convention.offset(q.rows(), k.rows());
  return each_head(q, k, v, heads, dtype, convention,
                   [&](const Matrix& qh, const Matrix& kh, const Matrix& vh, std::optional<double> sink) {
                     return dual_chunk_head(qh, kh, vh, seen, dtype, convention, sink, offset, reading);
                   });
}

double query_temperature(const TemperatureTuning& tuning, Position p) {
  return 1.0 + tuning.attn_scale * std::log(std::floor((static_cast<double>(p) + 1.0) / tuning.floor_scale) + 1.0);
}

Position temperature_step(const TemperatureTuning& tuning, int k) {
  // ⌊(p + 1)/F⌋ ≥ k ⇔ p + 1 ≥ k·F: the first integer p is ⌈k·F⌉ − 1.
  return static_cast<Position>(std::ceil(static_cast<double>(k) * tuning.floor_scale)) - 1;
}

}  // namespace pecheck::reference
