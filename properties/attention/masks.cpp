// CLAIMS.md §8 — the masks a causal request means under the declared
// conventions: attention.window_no_lookback (query i sees keys j with
// i − W < j ≤ i), attention.chunk_isolation (keys of the query's chunk up to
// it), attention.alignment (query i of n sits at key i + m − n bottom-right,
// at key i top-left) and attention.fully_masked_rows (a row with no visible
// key gets the declared policy, never NaN).
//
// Each visibility claim changes one key j (and its value) so that it
// dominates one probe query that must see it, and checks two things
// (attention/conventions.h, visibility): the rows that must not see key j are
// unchanged, exactly; the probe row moves by more than rounding. A window one
// key too wide (flash-attention's window_size=(W, 0) counts W keys before the
// query: transformers #29623, vLLM #3385) fails the first, one too narrow the
// second; a causal mask aligned top-left where a cache needs bottom-right
// (the KV-cache convention: mlx #2835, executorch #22426) fails the second,
// the other way round the first.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "attention/conventions.h"
#include "pecheck/gen/matrix.h"
#include "pecheck/property/registry.h"
#include "pecheck/reference/attention.h"
#include "input_checks.h"

namespace pecheck::attention::masks {

namespace {

// The largest sequence a window or chunk case draws: the recorded inputs' ceiling.
constexpr Eigen::Index kLongest = input::kMaxRows;

// Refuses (discards) a case the declared width cannot fit in kLongest rows.
void require_fits(Position needed, const char* what) {
  if (needed > kLongest) {
    throw HarnessDiscard(fmt::format("the harness discards this input: a {} needs {} tokens, more than the {} a case holds",
                              what, needed, kLongest));
  }
}

// The last row of n that sees key j under every declared mask (causal,
// window, chunk): a window's probe is cut short by a chunk declared beside
// it, and a chunk's by a window, as the subject's mask is (issue 39: either
// claim gave up on a correct subject declaring both).
Eigen::Index last_row_seeing(const AttentionConvention& a, Eigen::Index j, Eigen::Index n) {
  for (Eigen::Index r = n - 1; r > j; --r) {
    if (a.causal_sees(r, j, n, n)) return r;
  }
  return j;
}

// attention.window_no_lookback ------------------------------------------------
// n = j + W + r tokens (r ∈ [0, 2]), key j ∈ [0, 2] changed; probe query
// j + W − 1 (the oldest key of its window is j); rows from j + W on must not see it.
rc::Gen<KeyChangeCase> window_gen(const GenContext& ctx) {
  const Position w = declared(ctx.subject).window.value_or(1);
  return rc::gen::mapcat(rc::gen::pair(rc::gen::inRange(0, 3), rc::gen::inRange(0, 3)), [ctx, w](std::pair<int, int> jr) {
    // The changed key as late as the case leaves room for a row past its
    // window (a window of 4,094 probes key 0 or 1 only): a probe that fits.
    const auto j = static_cast<int>(std::min<Position>(jr.first, std::max<Position>(0, kLongest - w - 1)));
    const int r = jr.second;
    const auto n = static_cast<int>(std::min<Position>(j + w + r, kLongest));
    return key_change_case(
        ctx, [n] { return rc::gen::just(std::pair<int, int>{n, n}); },
        [j](int, int) { return rc::gen::just(j); });
  });
}

Measurement window_measure(Subject& s, const KeyChangeCase& c, const BoundModel&) {
  const Position w = *declared(s.info()).window;
  require_fits(c.changed + w, "window's probe");
  if (c.changed + w - 1 >= c.q.rows()) {
    throw InvalidInput("attention.window_no_lookback: the probe row changed + W − 1 must exist");
  }
  // j + W − 1, or the end of j's chunk where a chunk is declared too.
  const Eigen::Index probe = last_row_seeing(declared(s.info()), c.changed, c.q.rows());
  return visibility(
      s, c, probe, [&](Eigen::Index r) { return r >= c.changed + w; }, "rows past the window unchanged",
      "oldest key in the window seen", fmt::format("window {}", w));
}

std::string window_diagnosis(Subject& s, const KeyChangeCase& c, const BoundModel&) {
  const Position w = *declared(s.info()).window;
  // The counterexample's own row (the first past the changed key's window,
  // j + W, where the case has it; else the probe j + W − 1) in a sequence of
  // its length, probed on the keys around its window's edge: which of
  // i − W − 1 … i − W + 2 it sees. Its numbers are the counterexample's.
  const Eigen::Index n = c.q.rows(), i = std::min<Eigen::Index>(c.changed + w, n - 1);
  const Eigen::Index edge = i - w - 1;  // the key just outside a window of W keys
  const Eigen::Index from = std::max<Eigen::Index>(0, edge), to = std::min<Eigen::Index>(i, i - w + 2);
  const auto seen = probe_row(s, s.info(), n, n, c.heads, c.q.cols() / c.heads, i, from, to);
  Eigen::Index oldest = -1;  // the oldest key seen among the probed
  for (Eigen::Index j = from; j <= to; ++j) {
    if (seen[static_cast<size_t>(j - from)] && oldest < 0) oldest = j;
  }
  if (oldest < 0) return fmt::format("query {} of {} sees none of keys {}..{}: fewer than W − 2 keys", i, n, from, to);
  const Eigen::Index keys = i - oldest + 1;
  // Key 0 seen from outside the window: a window of another size, or key 0 seen from every row (a sink column
  // that carries key 0's value)? A later row, where key 0 lies far outside any window of about W, tells.
  if (oldest == 0 && i - w >= 0 && i + 3 <= kLongest) {
    // Only keys 0..i2 − W are probed (two requests each): probing every key
    // of the row sent 4,099 requests of 4,099 tokens at W = 4,096.
    const Eigen::Index n2 = i + 3, i2 = n2 - 1;
    const auto row = probe_row(s, s.info(), n2, n2, c.heads, c.q.cols() / c.heads, i2, 0, i2 - w);
    const auto between = std::find(row.begin() + 1, row.begin() + (i2 - w + 1), true);
    if (row[0] && between == row.begin() + (i2 - w + 1)) {
      return fmt::format("query {} of {} sees key 0 and keys {}..{}, none of 1..{} between: key 0 reaches every row "
                         "whatever the window — a sink column whose weight carries key 0's value (the logits "
                         "padded with the sink, the values not padded with a zero row), not a window of another size",
                         i2, n2, i2 - w + 1, i2, i2 - w);
    }
  }
  if (oldest == edge && edge >= 0) {
    return fmt::format("query {} sees key {} = i − W − 1 too: at least W + 2 keys where W = {} (a window of another size, "
                       "or none)", i, oldest, w);
  }
  if (keys == w + 1) {
    return fmt::format("query {} sees keys {}..{}: W + 1 = {} keys where the declared window is W = {} — the window "
                       "counted as W keys before the query plus the query itself (flash-attention's window_size=(W, 0) "
                       "given HF's sliding_window unchanged: transformers #29623, vLLM #3385)", i, oldest, i, keys, w);
  }
  if (keys == w - 1) {
    return fmt::format("query {} sees keys {}..{}: W − 1 = {} keys where the declared window is W = {} — the query "
                       "itself counted twice, or key i − W + 1 masked by a '<' for '≤' (mlx-lm's rotating cache "
                       "keeping W − 1 keys while it fills)", i, oldest, i, keys, w);
  }
  if (keys == w) {
    return fmt::format("query {} sees keys {}..{}: W = {} keys, as declared — the difference is elsewhere (the rows of "
                       "another length, or a key that moves rows it must not)", i, oldest, i, w);
  }
  return fmt::format("query {} sees keys {}..{}: {} keys where the declared window is {}", i, oldest, i, keys, w);
}

// attention.chunk_isolation ---------------------------------------------------
// n ∈ [C + 1, C + 3] tokens (fewer where C is large), key j anywhere; probe
// the last query of j's chunk (which sees every key of it).
rc::Gen<KeyChangeCase> chunk_gen(const GenContext& ctx) {
  const Position chunk = declared(ctx.subject).chunk.value_or(1);
  const int extra = chunk <= 64 ? 3 : 2;
  return rc::gen::mapcat(rc::gen::inRange(1, extra + 1), [ctx, chunk](int r) {
    const auto n = static_cast<int>(std::min<Position>(chunk + r, kLongest));
    return key_change_case(
        ctx, [n] { return rc::gen::just(std::pair<int, int>{n, n}); },
        [](int rows, int) { return rc::gen::inRange(0, rows); });
  });
}

Eigen::Index chunk_probe(Position chunk, Eigen::Index j, Eigen::Index n) {
  return std::min<Eigen::Index>(n - 1, (j / chunk + 1) * chunk - 1);
}

Measurement chunk_measure(Subject& s, const KeyChangeCase& c, const BoundModel&) {
  const AttentionConvention& a = declared(s.info());
  const Eigen::Index n = c.q.rows();
  // The last row of j's chunk, or of j's window where a window is declared too.
  const Eigen::Index probe = std::min(chunk_probe(*a.chunk, c.changed, n), last_row_seeing(a, c.changed, n));
  return visibility(
      s, c, probe,
      // Rows before j or in another chunk (a window's rows inside j's chunk
      // are window_no_lookback's to judge).
      [&](Eigen::Index r) { return !a.causal_sees(r, c.changed, n, n) && (r < c.changed || r / *a.chunk != c.changed / *a.chunk); },
      "keys outside the chunk unseen",
      "the chunk's keys seen", fmt::format("chunk {}", *a.chunk));
}

std::string chunk_diagnosis(Subject& s, const KeyChangeCase& c, const BoundModel&) {
  const Position chunk = *declared(s.info()).chunk;
  const Eigen::Index n = std::min<Eigen::Index>(chunk + 2, kLongest), i = n - 1;  // i: the second chunk's second row
  const auto seen = probe_row(s, s.info(), n, n, c.heads, c.q.cols() / c.heads, i, 0, i);
  Eigen::Index oldest = -1;
  for (Eigen::Index j = 0; j <= i; ++j) {
    if (seen[static_cast<size_t>(j)] && oldest < 0) oldest = j;
  }
  const Eigen::Index start = (i / chunk) * chunk;
  if (oldest == start) {
    return fmt::format("query {} sees keys {}..{}, its chunk's, as declared (chunk {}): the difference is elsewhere", i,
                       oldest, i, chunk);
  }
  if (oldest >= 0 && oldest < start && i - oldest + 1 == chunk) {
    return fmt::format("query {} sees keys {}..{}: the last {} keys — a sliding window of C keys where the declared "
                       "attention is chunked (chunk {}: keys {}..{})", i, oldest, i, chunk, chunk, start, i);
  }
  if (oldest >= 0 && oldest < start) {
    return fmt::format("query {} sees keys {}..{}, across its chunk's start {} (chunk {})", i, oldest, i, start, chunk);
  }
  if (oldest > start) {
    return fmt::format("query {} sees keys {}..{} but not its chunk's first key {} (chunk {}: a '>' for '≥' at the "
                       "chunk's start)", i, oldest, i, start, chunk);
  }
  return fmt::format("query {} sees no key of {}..{}", i, 0, i);
}

// attention.alignment ---------------------------------------------------------
// n ∈ [1, 6] queries over m ∈ [n, n + 6] keys; key j is the key some query
// sits at (j ∈ [off, off + n − 1], off = m − n bottom-right, 0 top-left),
// drawn from the last (off + n − 1) back.
rc::Gen<KeyChangeCase> alignment_gen(const GenContext& ctx) {
  const Alignment alignment = declared(ctx.subject).aligned();
  return key_change_case(
      ctx,
      [] {
        return rc::gen::mapcat(rc::gen::inRange(1, 7), [](int n) {
          return rc::gen::map(rc::gen::inRange(0, 7), [n](int more) { return std::pair<int, int>{n, n + more}; });
        });
      },
      [alignment](int n, int m) {
        // Counted back from the last query's key, so it shrinks toward the
        // key that hides most under one alignment and shows under the other.
        const int last = (alignment == Alignment::bottom_right ? m - n : 0) + n - 1;
        return rc::gen::map(rc::gen::inRange(0, n), [last](int back) { return last - back; });
      });
}

Measurement alignment_measure(Subject& s, const KeyChangeCase& c, const BoundModel&) {
  const AttentionConvention& a = declared(s.info());
  const Eigen::Index n = c.q.rows(), m = c.k.rows();
  const Eigen::Index probe = c.changed - a.offset(n, m);
  if (probe < 0 || probe >= n) throw InvalidInput("attention.alignment: the changed key must be one a query sits at");
  return visibility(
      s, c, probe, [&](Eigen::Index r) { return !a.causal_sees(r, c.changed, n, m); }, "keys past each query unseen",
      "the aligned key seen", fmt::format("{} alignment, {} queries over {} keys", name(a.aligned()), n, m));
}

std::string alignment_diagnosis(Subject& s, const KeyChangeCase& c, const BoundModel&) {
  const AttentionConvention& a = declared(s.info());
  const Eigen::Index n = 2, m = 5;
  // Which keys query 0 and query 1 see.
  std::string seen_text;
  Eigen::Index last[2] = {-1, -1};
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto seen = probe_row(s, s.info(), n, m, c.heads, c.q.cols() / c.heads, i, 0, m - 1);
    for (Eigen::Index j = 0; j < m; ++j) {
      if (seen[static_cast<size_t>(j)]) last[i] = j;
    }
    seen_text += fmt::format("{}query {} sees up to key {}", i ? ", " : "", i, last[i]);
  }
  const bool top_left = last[0] == 0 && last[1] == 1, bottom_right = last[0] == m - n && last[1] == m - 1;
  const std::string declared_text = name(a.aligned()).data();
  if (top_left && a.aligned() == Alignment::bottom_right) {
    return fmt::format("with 2 queries over 5 keys {}: the causal mask is aligned top-left (query i at key i, torch's "
                       "is_causal) where the subject declares bottom_right (query i at key i + m − n, a KV cache's: "
                       "a decode step sees only the first cached key)", seen_text);
  }
  if (bottom_right && a.aligned() == Alignment::top_left) {
    return fmt::format("with 2 queries over 5 keys {}: the causal mask is aligned bottom-right (the last query at the "
                       "last key, MLX's mask=\"causal\": mlx #2835, executorch #22426) where the subject declares "
                       "top_left (query i at key i)", seen_text);
  }
  return fmt::format("with 2 queries over 5 keys {} (declared alignment {})", seen_text, declared_text);
}

// attention.fully_masked_rows -------------------------------------------------
struct MaskedRowCase {
  Matrix q, k, v;
  int heads = 1;
  BoolMatrix allowed;  // n×m; row `masked` allows no key, every other row one at least
  int masked = 0;
  void validate() const {
    validate_qkv(q, k, v, heads);
    if (allowed.rows() != q.rows() || allowed.cols() != k.rows()) input::invalid("allowed", "expected n×m booleans");
    if (masked < 0 || masked >= q.rows() || allowed.row(masked).any()) {
      input::invalid("masked", "expected a row of the mask that allows no key");
    }
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MaskedRowCase, q, k, v, heads, allowed, masked)

rc::Gen<MaskedRowCase> masked_row_gen(const GenContext& ctx) {
  return rc::gen::mapcat(rc::gen::tuple(grouped_dims(ctx), rc::gen::inRange(1, 6), rc::gen::inRange(1, 6)),
                         [](const auto& drawn) {
    const auto& [d, n, m] = drawn;
    return rc::gen::apply(
        [heads = d.heads](Grouped g, BoolMatrix allowed, int masked) {
          allowed.row(masked).setConstant(false);  // a pad query: a left-padded row's first tokens
          return MaskedRowCase{std::move(g.q), std::move(g.k), std::move(g.v), heads, std::move(allowed), masked};
        },
        grouped(d, n, m), attendable_mask(n, m), rc::gen::inRange(0, n));
  });
}

Measurement masked_row_measure(Subject& s, const MaskedRowCase& c, const BoundModel&) {
  const SubjectInfo& info = s.info();
  const Grouped g{c.q, c.k, c.v, c.heads};
  const FullyMasked policy = declared(info).masked_policy();
  Check finite{"finite output"};
  finite.bound = Bound::exact("a fully masked row has a declared answer; NaN or Inf is never one");
  Check policy_check{"declared policy"};
  policy_check.where.query = c.masked;
  std::optional<Matrix> y;
  try {
    y = answer(s, g, AttentionMask::boolean(c.allowed));
  } catch (const Refusal& refusal) {
    // Refusing is the policy `refuse`; under `zeros` it is not.
    finite.note = "the subject refused the request: no output to check";
    policy_check.bound = Bound::exact("the declared policy");
    policy_check.error = policy == FullyMasked::refuse ? 0 : std::numeric_limits<double>::infinity();
    policy_check.observed = fmt::format("refused: {}", refusal.what());
    policy_check.expected = policy == FullyMasked::refuse ? "a refusal" : "a zero row";
    policy_check.note = fmt::format("the request with query {} fully masked, under fully_masked: {}", c.masked,
                                    name(policy));
    if (policy == FullyMasked::refuse) {
      // The refusal must be for the masked row: the same request with that
      // row seeing every key is answered (a subject refusing every request
      // would otherwise meet the policy without being checked at all).
      BoolMatrix unmasked = c.allowed;
      unmasked.row(c.masked).setConstant(true);
      try {
        (void)answer(s, g, AttentionMask::boolean(unmasked));
      } catch (const Refusal& other) {
        policy_check.error = std::numeric_limits<double>::infinity();
        policy_check.observed = fmt::format("refused with row {} unmasked too: {}", c.masked, other.what());
        policy_check.expected = "an answer once no row is fully masked";
      }
    }
    return {{std::move(finite), std::move(policy_check)}, {}};
  }
  for (Eigen::Index i = 0; i < y->rows() && finite.error == 0; ++i) {
    for (Eigen::Index col = 0; col < y->cols(); ++col) {
      if (std::isfinite((*y)(i, col))) continue;
      finite.error = std::numeric_limits<double>::infinity();
      finite.where.query = i;
      finite.where.column = col;
      finite.observed = number_to_json((*y)(i, col));
      finite.expected = "a finite number";
      break;
    }
  }
  finite.note = fmt::format("every entry of the output with query {} fully masked", c.masked);
  if (policy == FullyMasked::refuse) {
    policy_check.bound = Bound::exact("the declared policy: refuse");
    policy_check.error = std::numeric_limits<double>::infinity();
    policy_check.observed = "an answer";
    policy_check.expected = "a refusal";
  } else {
    policy_check.bound = evaluations_bound(info, g, 1, max_abs(c.v));
    double worst = 0;
    for (Eigen::Index col = 0; col < y->cols(); ++col) {
      const double e = std::fabs((*y)(c.masked, col));
      if (std::isnan(e) || e > worst) {
        worst = std::isnan(e) ? std::numeric_limits<double>::infinity() : e;
        policy_check.where.column = col;
        policy_check.observed = number_to_json((*y)(c.masked, col));
      }
      if (std::isinf(worst)) break;
    }
    policy_check.error = worst;
    policy_check.expected = "0";
  }
  policy_check.note = fmt::format("row {} (no visible key) under fully_masked: {}", c.masked, name(policy));
  return {{std::move(finite), std::move(policy_check)}, {}};
}

std::string masked_row_diagnosis(Subject& s, const MaskedRowCase& c, const BoundModel&) {
  const Grouped g{c.q, c.k, c.v, c.heads};
  Matrix y;
  try {
    y = answer(s, g, AttentionMask::boolean(c.allowed));
  } catch (const Refusal& r) {
    return fmt::format("the subject refuses a request with a fully masked row ({}) although it declares fully_masked: "
                       "{}", r.what(), name(declared(s.info()).masked_policy()));
  }
  const auto row = y.row(c.masked);
  if (!row.allFinite()) {
    return fmt::format("row {} is {}: the softmax of a row of −∞ logits is 0/0 (pytorch #110213: SDPA's "
                       "memory-efficient kernel on a fully masked row, breaking left-padded batches)",
                       c.masked, row.hasNaN() ? "NaN" : "infinite");
  }
  // The mean of the values each head reads: a finite mask value (finfo.min) makes every masked key equally likely.
  const Eigen::Index dv = g.d_value();
  Matrix mean(1, y.cols());
  for (int h = 0; h < g.heads; ++h) {
    const int kv = AttentionConvention::kv_head_of(h, g.heads, g.kv_heads(), declared(s.info()).grouping);
    mean.block(0, h * dv, 1, dv) = g.v.middleCols(kv * dv, dv).colwise().mean();
  }
  if ((row - mean.row(0)).cwiseAbs().maxCoeff() < 1e-6 * std::max(1.0, max_abs(g.v))) {
    return fmt::format("row {} is the mean of the values: the mask adds a finite number (torch.finfo(dtype).min) "
                       "instead of −∞, so a row with every key masked weighs them all alike — declare "
                       "fully_masked zeros only for a subject that zeroes such rows", c.masked);
  }
  if (row.isZero(0)) return fmt::format("row {} is zero", c.masked);
  return fmt::format("row {} (no visible key) is neither zero, NaN nor the values' mean", c.masked);
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {
      define<KeyChangeCase>("attention.window_no_lookback",
                            {"rows past the window unchanged", "oldest key in the window seen"}, window_gen,
                            window_measure, window_diagnosis),
      define<KeyChangeCase>("attention.chunk_isolation", {"keys outside the chunk unseen", "the chunk's keys seen"},
                            chunk_gen, chunk_measure, chunk_diagnosis),
      define<KeyChangeCase>("attention.alignment", {"keys past each query unseen", "the aligned key seen"},
                            alignment_gen, alignment_measure, alignment_diagnosis),
      define<MaskedRowCase>("attention.fully_masked_rows", {"finite output", "declared policy"}, masked_row_gen,
                            masked_row_measure, masked_row_diagnosis),
  };
}

}  // namespace pecheck::attention::masks
