// pecheck identify for attention (SUBJECT-PROTOCOL.md "Attention
// conventions"): the scale, soft cap, window or chunk, alignment and head
// grouping of an attention subject, probed through the attention op alone
// (the weights read out with values = I).
//
//   scale: one query over two keys whose dot products differ by δ small
//     (|scale·δ| ≤ 0.05, far below any cap's curve): log(w_1/w_0) = scale·δ;
//   softcap: the same with dot products ±D, scale·D from 1 to 10⁴: the log
//     ratio 2·c·tanh(scale·D/c) levels off at 2c (no cap: it grows as
//     2·scale·D until a weight underflows; a cap c levels off, within
//     10⁻³, once scale·D reaches about 4c, so caps up to ~2500 are named);
//   window / chunk: causal self-attention of n tokens (16, 128, 1024): the
//     oldest key the last query sees (a key made to dominate it, found by
//     bisection); a window moves with the query, a chunk starts at a multiple;
//   alignment: a causal request of 2 queries over 5 keys: the last key query
//     0 sees (0: top-left; 3: bottom-right; a refusal: version 1's n = m only);
//   grouping: with declared heads and kv_heads, which query heads move when
//     one kv head's values do (repeat_interleave or tile).
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "identify/internal.h"
#include "pecheck/gen/fast_random.h"
#include "pecheck/reference/attention.h"
#include "pecheck/subjects/typed_subject.h"

namespace pecheck::identify::detail {

namespace {

struct Probe {
  Subject& subject;
  int heads = 1, groups = 1;
  Eigen::Index d = 4;

  // The weights of query row `row` over the keys (values = I), head 0.
  std::optional<Matrix> weights(const Matrix& q, const Matrix& k, const AttentionMask& mask) const {
    const Eigen::Index m = k.rows();
    Matrix identity = Matrix::Zero(m, groups * m);
    for (int g = 0; g < groups; ++g) identity.middleCols(g * m, m).setIdentity();
    try {
      const Matrix w = ask::attention(subject, q, k, identity, mask, heads);
      if (w.rows() != q.rows() || w.cols() != heads * m) return std::nullopt;
      return w;
    } catch (const Refusal&) {
      return std::nullopt;
    }
  }
  // q (rows × H·d) with head blocks equal to `row`; k (m × G·d) likewise.
  Matrix queries(const Matrix& row) const {
    Matrix q(row.rows(), heads * d);
    for (int h = 0; h < heads; ++h) q.middleCols(h * d, d) = row;
    return q;
  }
  Matrix keys(const Matrix& rows) const {
    Matrix k(rows.rows(), groups * d);
    for (int g = 0; g < groups; ++g) k.middleCols(g * d, d) = rows;
    return k;
  }
  // log(w_1/w_0) of one query e_0·x over keys e_0·a and e_0·b.
  std::optional<double> log_ratio(double x, double a, double b) const {
    Matrix q = Matrix::Zero(1, d), k = Matrix::Zero(2, d);
    q(0, 0) = x;
    k(0, 0) = a;
    k(1, 0) = b;
    const auto w = weights(queries(q), keys(k), AttentionMask::none());
    if (!w || !((*w)(0, 0) > 0) || !((*w)(0, 1) > 0)) return std::nullopt;
    return std::log((*w)(0, 1) / (*w)(0, 0));
  }
};

// Whether causal query r of n over m keys sees key j (key j made to dominate it).
std::optional<bool> sees(const Probe& p, Eigen::Index n, Eigen::Index m, Eigen::Index r, Eigen::Index j, double scale) {
  gen::FastRandom random(0xA77 + static_cast<std::uint64_t>(n));
  Matrix q(n, p.d), k(m, p.d), v(m, p.groups * p.d);
  for (Eigen::Index i = 0; i < q.size(); ++i) q.data()[i] = random.uniform(-1, 1);
  for (Eigen::Index i = 0; i < k.size(); ++i) k.data()[i] = random.uniform(-1, 1);
  for (Eigen::Index i = 0; i < v.size(); ++i) v.data()[i] = random.uniform(-1, 1);
  const Matrix qs = p.queries(q), ks = p.keys(k);
  Matrix k2 = ks, v2 = v;
  const double norm2 = q.row(r).squaredNorm();
  for (int g = 0; g < p.groups; ++g) k2.row(j).segment(g * p.d, p.d) = q.row(r) * (8 / (scale * norm2));
  v2.row(j).array() += 1.5;
  try {
    const Matrix y = ask::attention(p.subject, qs, ks, v, AttentionMask::causal(), p.heads);
    const Matrix y2 = ask::attention(p.subject, qs, k2, v2, AttentionMask::causal(), p.heads);
    if (y.rows() != n || y2.rows() != n) return std::nullopt;
    return y.row(r) != y2.row(r);
  } catch (const Refusal&) {
    return std::nullopt;
  }
}

// The oldest key causal query r of n sees (visibility is a suffix of 0..r).
std::optional<Eigen::Index> oldest_seen(const Probe& p, Eigen::Index n, Eigen::Index r, double scale) {
  auto at = [&](Eigen::Index j) { return sees(p, n, n, r, j, scale); };
  const auto own = at(r);
  if (!own || !*own) return std::nullopt;
  Eigen::Index lo = 0, hi = r;  // hi is seen; find the first seen
  const auto first = at(0);
  if (!first) return std::nullopt;
  if (*first) return 0;
  while (hi - lo > 1) {
    const Eigen::Index mid = (lo + hi) / 2;
    const auto s = at(mid);
    if (!s) return std::nullopt;
    (*s ? hi : lo) = mid;
  }
  return hi;
}

// What identify_attention found, in words, and the params that declare it.
struct Findings {
  std::vector<std::string> found, notes;
  json params = json::object();
};

// The scale from log(w_1/w_0) = scale·δ of dot products ±δ small.
double read_scale(const Probe& p, double small, double delta, Findings& f) {
  std::vector<std::string>& found = f.found;
  json& params = f.params;
  const double scale = small / (2 * delta);
  const double default_scale = 1 / std::sqrt(static_cast<double>(p.d));
  if (std::fabs(scale - default_scale) <= 1e-4 * default_scale) {
    found.push_back(fmt::format("scale 1/√d_head ({:.6g} at d_head = {})", default_scale, p.d));
  } else {
    const double rounded = round_significant(scale, 6);
    found.push_back(fmt::format("scale {:.6g} (not 1/√d_head = {:.6g} at d_head = {})", rounded, default_scale, p.d));
    params["scale"] = rounded;
  }
  return scale;
}

// Soft cap: the log ratio of dot products ±D levels off at 2c.
void read_softcap(const Probe& p, double scale, Findings& f) {
  std::vector<std::string>& found = f.found;
  json& params = f.params;
  std::optional<double> cap;
  double last = 0;
  bool saturated = false;
  for (double reach : {1.0, 10.0, 100.0, 1000.0, 10000.0}) {
    const auto r = p.log_ratio(reach / scale, -1.0, 1.0);
    if (!r) break;
    if (reach >= 100 && std::fabs(*r - last) <= 1e-3 * std::fabs(*r)) {
      saturated = true;
      cap = *r / 2;
      break;
    }
    last = *r;
  }
  if (saturated && cap) {
    const double rounded = round_significant(*cap, 4);
    found.push_back(fmt::format("softcap {:g} (logits level off at ±{:g})", rounded, rounded));
    params["softcap"] = rounded;
  } else {
    found.push_back("no softcap (the logits grow without bound until a weight underflows)");
  }
}

// Window or chunk: the oldest key the last causal query sees.
void read_window(const Probe& p, double scale, Findings& f) {
  std::vector<std::string>& found = f.found;
  std::vector<std::string>& notes = f.notes;
  json& params = f.params;
  bool bounded = false;
  for (Eigen::Index n : {16, 128, 1024}) {
    const auto last_row = oldest_seen(p, n, n - 1, scale);
    if (!last_row) {
      notes.push_back(fmt::format("causal requests of {} tokens are refused or unreadable", n));
      break;
    }
    if (*last_row == 0) continue;
    // A window moves with the query; a chunk starts where the last row's does
    // and the chunk before it ends one key earlier.
    const auto previous = oldest_seen(p, n, n - 2, scale), third = oldest_seen(p, n, n - 3, scale);
    const auto before = oldest_seen(p, n, *last_row - 1, scale);
    bounded = true;
    if (previous && third && *previous == *last_row - 1 && *third == *last_row - 2) {
      const Eigen::Index w = n - *last_row;
      found.push_back(fmt::format("a sliding window of {} keys (query i sees i − {} < j ≤ i)", w, w));
      params["window"] = w;
    } else if (before && *before < *last_row) {
      const Eigen::Index chunk = *last_row - *before;
      found.push_back(fmt::format("chunked attention of {} keys (query i sees ⌊i/{}⌋·{} ≤ j ≤ i)", chunk, chunk, chunk));
      params["chunk"] = chunk;
    } else {
      found.push_back(fmt::format("causal query {} of {} sees keys {}..{} (neither a window nor a chunk)", n - 1, n,
                                  *last_row, n - 1));
    }
    break;
  }
  if (!bounded && notes.empty()) found.push_back("no window or chunk up to 1024 tokens (the last query sees key 0)");
}

// Alignment: the last key query 0 of 2 over 5 keys sees.
void read_alignment(const Probe& p, double scale, Findings& f) {
  std::vector<std::string>& found = f.found;
  json& params = f.params;
  std::optional<Eigen::Index> reach;
  for (Eigen::Index j = 4; j >= 0; --j) {
    const auto s = sees(p, 2, 5, 0, j, scale);
    if (!s) {
      reach.reset();
      break;
    }
    if (*s) {
      reach = j;
      break;
    }
  }
  if (!reach) {
    found.push_back("causal requests with fewer queries than keys are refused (version 1: n = m only)");
  } else if (*reach == 0) {
    found.push_back("causal alignment top_left (query i at key i, torch's is_causal)");
    params["alignment"] = "top_left";
  } else if (*reach == 3) {
    found.push_back("causal alignment bottom_right (query i at key i + m − n, a KV cache's)");
    params["alignment"] = "bottom_right";
  } else {
    found.push_back(fmt::format("with 2 queries over 5 keys query 0 sees up to key {}: neither alignment", *reach));
  }
}

// Grouping (declared heads only: the protocol carries one head otherwise).
void read_grouping(Subject& subject, const Probe& p, Findings& f) {
  const SubjectInfo& info = subject.info();
  std::vector<std::string>& found = f.found;
  std::vector<std::string>& notes = f.notes;
  json& params = f.params;
  if (info.attention.heads && p.groups < p.heads) {
    gen::FastRandom random(0x6A);
    const Eigen::Index n = 2, m = 3;
    Matrix q(n, p.heads * p.d), k(m, p.groups * p.d), v(m, p.groups * p.d);
    for (Matrix* x : {&q, &k, &v}) {
      for (Eigen::Index i = 0; i < x->size(); ++i) x->data()[i] = random.uniform(-1, 1);
    }
    try {
      const Matrix y = ask::attention(subject, q, k, v, AttentionMask::none(), p.heads);
      std::vector<int> reads(static_cast<size_t>(p.heads), -1);
      for (int g = 0; g < p.groups; ++g) {
        Matrix v2 = v;
        v2.middleCols(g * p.d, p.d).array() += 1.5;
        const Matrix y2 = ask::attention(subject, q, k, v2, AttentionMask::none(), p.heads);
        for (int h = 0; h < p.heads; ++h) {
          if (y2.middleCols(h * p.d, p.d) != y.middleCols(h * p.d, p.d)) reads[static_cast<size_t>(h)] = g;
        }
      }
      auto follows = [&](Grouping rule) {
        for (int h = 0; h < p.heads; ++h) {
          if (reads[static_cast<size_t>(h)] != AttentionConvention::kv_head_of(h, p.heads, p.groups, rule)) return false;
        }
        return true;
      };
      if (follows(Grouping::repeat_interleave)) {
        found.push_back(fmt::format("grouping repeat_interleave ({} query heads over {} kv heads: h → ⌊h/{}⌋)", p.heads,
                                    p.groups, p.heads / p.groups));
        params["grouping"] = "repeat_interleave";
      } else if (follows(Grouping::tile)) {
        found.push_back(fmt::format("grouping tile ({} query heads over {} kv heads: h → h mod {})", p.heads, p.groups,
                                    p.groups));
        params["grouping"] = "tile";
      } else {
        found.push_back("query heads read kv heads by neither repeat_interleave nor tile");
      }
    } catch (const Refusal& r) {
      notes.push_back(fmt::format("a multi-head request was refused: {}", r.what()));
    }
  } else if (!info.attention.heads) {
    notes.push_back("one head per request: declare params.attention heads and kv_heads to identify the grouping");
  }
  if (info.attention.heads) {
    params["heads"] = p.heads;
    params["kv_heads"] = p.groups;
  }
}

}  // namespace

Identification identify_attention(Subject& subject, const Precision&) {
  const SubjectInfo& info = subject.info();
  Identification out;
  out.op = "attention";
  Probe p{subject, info.attention.query_heads(), info.attention.key_heads(), 4};
  Findings f;
  const double delta = 0.01;
  const auto small = p.log_ratio(1.0, -delta, delta);
  if (!small) {
    out.details = "the subject refuses (or answers zero weights for) one query over two keys: nothing identified";
    return out;
  }
  const double scale = read_scale(p, *small, delta, f);
  read_softcap(p, scale, f);
  read_window(p, scale, f);
  read_alignment(p, scale, f);
  read_grouping(subject, p, f);
  out.fits = true;
  for (const auto& found : f.found) out.convention += (out.convention.empty() ? "" : "; ") + found;
  out.details = "probed with one query over two keys (scale, cap), causal self-attention of 16 to 1024 tokens (window, "
                "chunk), 2 queries over 5 keys (alignment)";
  for (const auto& n : f.notes) out.details += "; " + n;
  out.params = f.params;
  return out;
}

}  // namespace pecheck::identify::detail
