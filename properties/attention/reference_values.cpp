// CLAIMS.md §10 — attention.reference_values: the output of the attention op
// equals the float64 reference of every declared convention (scale, soft-cap
// before the mask, sinks, window, chunk, grouping, alignment: reference/
// attention.h), judged by value as rope.reference_values judges rotaries.
// The structural claims of §1 and §8 pin each convention down by a relation
// between answers; none compares an answer with its declared value, so a
// Gemma-2-style attention scaled by 1/√d_h where query_pre_attn_scalar^−½ is
// declared passes all of them once its cap is out of the way (issue 35).
//
// "entries" compares every output entry with the reference, each within
// attention/support.h's output_bound of one evaluation (the logit bound H at
// the declared scale, capped at the softcap; one more softmax term with
// sinks). "masked keys carry no weight" sends the request again with every
// key hidden from one probe query changed to dominate it and its value moved:
// the rows that see none of those keys must be the same numbers, exactly (a
// hidden key has weight 0). A cap applied after the mask (c·tanh(−∞) = −c)
// gives hidden keys the weight of any visible key whose logit is saturated at
// −c, which the generator draws: besides ordinary logits, logits stretched
// to ±3c, "saturated" rows whose every logit lies past −3c (the case that
// leaks half of a row's mass into the masked keys), and tied keys.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "attention/same_dtype.h"
#include "attention/conventions.h"
#include "pecheck/gen/matrix.h"
#include "pecheck/property/registry.h"
#include "pecheck/reference/attention.h"
#include "input_checks.h"

namespace pecheck::attention::reference_values {

namespace {

constexpr const char* kEntries = "entries";
constexpr const char* kMasked = "masked keys carry no weight";

struct ValueCase {
  Matrix q, k, v;
  int heads = 1;
  std::string mask = "none";  // "none", "causal" (the declared convention's) or "boolean"
  BoolMatrix allowed;         // n×m, for a boolean mask
  std::string regime = "ordinary";  // how the logits were drawn: ordinary, curved, saturated, ties
  int probe = 0;              // the query whose hidden keys the second request changes
  Matrix shift;               // m × G·d_v: those keys' value moves, entries ±[1, 2]
  void validate() const {
    validate_qkv(q, k, v, heads);
    if (mask == "causal") {
      if (q.rows() > k.rows()) input::invalid("mask", "a causal case has at least as many keys as queries");
    } else {
      validate_mask(mask, allowed, q.rows(), k.rows());
    }
    if (probe < 0 || probe >= q.rows()) input::invalid("probe", fmt::format("expected a query of 0..{}", q.rows() - 1));
    input::matrix("shift", shift, k.rows(), v.cols());
    for (const char* r : {"ordinary", "curved", "saturated", "ties"}) {
      if (regime == r) return;
    }
    input::invalid("regime", "expected ordinary, curved, saturated or ties");
  }
  Grouped inputs() const { return {q, k, v, heads}; }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ValueCase, q, k, v, heads, mask, allowed, regime, probe, shift)

// The logits' reach for a regime: the declared cap's curved part (3c), or a
// few units without a cap.
double reach(const SubjectInfo& info, double without_cap) {
  const auto& cap = declared(info).softcap;
  return cap ? 3 * *cap : without_cap;
}

// The drawn inputs reshaped for a regime (pure: the case records the result).
void shape_logits(const SubjectInfo& info, const std::string& regime, Grouped& g) {
  const Eigen::Index dh = g.d_head();
  const double scale = logit_scale(info, dh);
  if (regime == "curved" || regime == "ties") {
    const double raw = logit_magnitude(g.q, g.k, g.heads, scale);
    if (raw > 0) g.q *= reach(info, 3) / raw;
  }
  if (regime == "ties") {
    // Pairs of keys with the same numbers (their values differ): equal logits.
    for (Eigen::Index j = 1; j < g.k.rows(); j += 2) g.k.row(j) = g.k.row(j - 1);
  }
  if (regime == "saturated") {
    // The first feature of every head dominates: queries λ·[1, 1.5], keys
    // −[1, 1.5], so every logit is about −reach·[1, 2.25] — past −3c, where
    // c·tanh(s/c) is −c to within a few percent.
    const double lambda = reach(info, 30) / scale;
    for (int h = 0; h < g.heads; ++h) {
      for (Eigen::Index i = 0; i < g.q.rows(); ++i) g.q(i, h * dh) = lambda * (1.25 + 0.25 * g.q(i, h * dh));
    }
    for (int kv = 0; kv < g.kv_heads(); ++kv) {
      for (Eigen::Index j = 0; j < g.k.rows(); ++j) g.k(j, kv * dh) = -(1.25 + 0.25 * g.k(j, kv * dh));
    }
  }
}

// Saturated logits first: a failing case shrinks toward them, where a cap after
// the mask leaks half a row's weight rather than e^−2c of it.
// Dual chunk attention (params.attention.dual_chunk): causal requests only,
// n tokens reaching past two chunks of L (so keys fall in the query's own
// chunk, the one before and earlier ones: each range its own query
// position), heads of an even width the rotary turns.
rc::Gen<ValueCase> dual_chunk_gen(const GenContext& ctx) {
  const DualChunk& dc = *declared(ctx.subject).dual_chunk;
  const int most = static_cast<int>(std::min<Position>(3 * dc.chunk_len() + 2, 40));
  const int fixed = dc.rotate.rotary_dim.value_or(0);
  auto shape = rc::gen::tuple(grouped_dims(ctx), rc::gen::inRange(1, most + 1), rc::gen::inRange(1, 5),
                              rc::gen::weightedElement<std::string>({{4, "ordinary"}, {1, "curved"}, {1, "ties"}}));
  return rc::gen::mapcat(shape, [&subject = ctx.subject, fixed](const auto& drawn) {
    auto [d, n, half, regime] = drawn;
    d.d_head = std::max(2 * half, fixed + (fixed % 2));
    return rc::gen::apply(
        [&subject, regime = regime, heads = d.heads](Grouped g, int probe, Matrix magnitude, Matrix sign) {
          shape_logits(subject, regime, g);
          for (Eigen::Index i = 0; i < magnitude.size(); ++i) magnitude.data()[i] *= sign.data()[i] < 0 ? -1 : 1;
          return ValueCase{std::move(g.q), std::move(g.k), std::move(g.v), heads, "causal", {}, regime, probe,
                           std::move(magnitude)};
        },
        grouped(d, n, n), rc::gen::inRange(0, n), gen::matrix(n, d.kv_heads * d.d_value, 1, 2),
        gen::matrix(n, d.kv_heads * d.d_value, -1, 1));
  });
}

rc::Gen<ValueCase> value_gen(const GenContext& ctx) {
  if (declared(ctx.subject).dual_chunk) return dual_chunk_gen(ctx);
  const bool aligned = declared(ctx.subject).alignment.has_value();
  auto shape = rc::gen::tuple(grouped_dims(ctx), rc::gen::inRange(1, 6), rc::gen::inRange(0, 4),
                              rc::gen::element<std::string>("causal", "boolean", "none"),
                              rc::gen::weightedElement<std::string>(
                                  {{4, "saturated"}, {2, "ordinary"}, {2, "curved"}, {1, "ties"}}));
  return rc::gen::mapcat(shape, [&subject = ctx.subject, aligned](const auto& drawn) {
    const auto& [d, n, extra, mask, regime] = drawn;
    // A causal request over more keys than queries needs a declared alignment.
    const int m = mask == "causal" && !aligned ? n : n + extra;
    return rc::gen::apply(
        [&subject, mask = mask, regime = regime, heads = d.heads](Grouped g, BoolMatrix allowed, int probe,
                                                                     Matrix magnitude, Matrix sign) {
          shape_logits(subject, regime, g);
          for (Eigen::Index i = 0; i < magnitude.size(); ++i) magnitude.data()[i] *= sign.data()[i] < 0 ? -1 : 1;
          ValueCase c{std::move(g.q), std::move(g.k), std::move(g.v), heads, mask, {}, regime, probe,
                      std::move(magnitude)};
          if (mask == "boolean") c.allowed = std::move(allowed);
          return c;
        },
        grouped(d, n, m), attendable_mask(n, m), rc::gen::inRange(0, n),
        gen::matrix(m, d.kv_heads * d.d_value, 1, 2), gen::matrix(m, d.kv_heads * d.d_value, -1, 1));
  });
}

AttentionMask mask_of(const ValueCase& c) { return attention::mask_of(c.mask, c.allowed); }

// The keys hidden from the probe query under the declared convention.
std::vector<Eigen::Index> hidden_from_probe(const SubjectInfo& info, const ValueCase& c) {
  std::vector<Eigen::Index> out;
  if (c.mask == "none") return out;
  const BoolMatrix seen = reference::visible_keys(mask_of(c), c.q.rows(), c.k.rows(), declared(info));
  for (Eigen::Index j = 0; j < c.k.rows(); ++j) {
    if (!seen(c.probe, j)) out.push_back(j);
  }
  return out;
}

// The second request: each key hidden from the probe changed to dominate it, its value moved.
Grouped with_hidden_changed(const SubjectInfo& info, const ValueCase& c, const std::vector<Eigen::Index>& hidden,
                            Grouped g) {
  for (Eigen::Index j : hidden) g = with_dominant_key(info, g, c.probe, j, c.shift.row(j));
  return g;
}

// The declared attention in words, for the check's note.
std::string describe_convention(const SubjectInfo& info, const Grouped& g) {
  const AttentionConvention& a = declared(info);
  std::string out = fmt::format("{} query over {} key/value heads, scale {:.6g}", g.heads, g.kv_heads(),
                                a.scale_for(g.d_head()));
  if (g.heads > g.kv_heads()) out += fmt::format(", {}", name(a.grouping));
  if (a.softcap) out += fmt::format(", softcap {:g} before the mask", *a.softcap);
  if (a.sinks) out += ", sinks";
  if (a.window) out += fmt::format(", window {}", *a.window);
  if (a.chunk) out += fmt::format(", chunk {}", *a.chunk);
  if (a.alignment) out += fmt::format(", {}", name(*a.alignment));
  if (a.dual_chunk) {
    out += fmt::format(", dual chunk attention (chunk_size {}, local_size {}: chunks of L = {}, rotary base {:g})",
                       a.dual_chunk->chunk_size, a.dual_chunk->local_size, a.dual_chunk->chunk_len(),
                       a.dual_chunk->rotate.base);
  }
  return out;
}

Check compare_entries(const SubjectInfo& info, const ValueCase& c, const Matrix& y, const Matrix& expected) {
  const Grouped g = c.inputs();
  Check check{kEntries};
  const Eigen::Index keys = g.k.rows() + (declared(info).sinks ? 1 : 0);
  check.bound = output_bound(1, rounding_width(info, g), keys, logit_bound(info, g), std::max(max_abs(g.v), 1e-300));
  with_same_dtype(check.bound, info, {{g.q, g.k, g.v, mask_of(c), g.heads}});
  worst_entry(check, y, expected, g.d_value());
  check.note = fmt::format("every output entry against the float64 reference of the declared attention ({}), {} "
                           "queries over {} keys, {} mask, {} logits",
                           describe_convention(info, g), g.q.rows(), g.k.rows(), c.mask, c.regime);
  return check;
}

Measurement value_measure(Subject& s, const ValueCase& c, const BoundModel&) {
  const SubjectInfo& info = s.info();
  const Grouped g = c.inputs();
  const auto hidden = hidden_from_probe(info, c);
  const Grouped changed = with_hidden_changed(info, c, hidden, g);
  // The raw dot products (scale 1) must stay in the subject's range.
  require_representable(info.dtype, std::max(logit_magnitude(g.q, g.k, g.heads, 1.0),
                                             logit_magnitude(changed.q, changed.k, g.heads, 1.0)));
  const auto expected = reference_answer(info, g, mask_of(c));
  if (!expected) throw HarnessDiscard("the harness discards this input: the declared reference refuses it");
  const Matrix y = answer(s, g, mask_of(c));
  Measurement m;
  m.checks.push_back(compare_entries(info, c, y, *expected));
  if (hidden.empty()) return m;

  // Rows that see none of the changed keys: the same numbers in both calls.
  const BoolMatrix seen = reference::visible_keys(mask_of(c), g.q.rows(), g.k.rows(), declared(info));
  const Matrix moved = answer(s, changed, mask_of(c));
  Check check{kMasked};
  check.bound = Bound::exact("a hidden key has weight exactly 0: the rows that see none of the changed keys are "
                             "computed from the same numbers in both calls");
  // The rows that see none of the changed keys.
  std::vector<bool> blind(static_cast<size_t>(y.rows()));
  for (Eigen::Index r = 0; r < y.rows(); ++r) {
    blind[static_cast<size_t>(r)] = std::none_of(hidden.begin(), hidden.end(), [&](Eigen::Index j) { return seen(r, j); });
  }
  worst_entry(check, moved, y, g.d_value(), [&](Eigen::Index r, Eigen::Index) { return blind[static_cast<size_t>(r)]; });
  std::string keys;
  for (Eigen::Index j : hidden) keys += fmt::format("{}{}", keys.empty() ? "" : ", ", j);
  check.where.label = fmt::format("keys {} (hidden from query {}) changed to dominate it, values moved", keys, c.probe);
  check.note = fmt::format("the rows that see none of keys {} ({} mask, {} logits), after those keys changed, against "
                           "before",
                           keys, c.mask, c.regime);
  m.checks.push_back(std::move(check));
  return m;
}

// A float64 attention with the cap applied after the mask: a hidden key's
// logit is c·tanh(−∞/c) = −c (Gemma 2 code that adds the mask before capping).
Matrix cap_after_mask(const SubjectInfo& info, const Grouped& g, const AttentionMask& mask) {
  const AttentionConvention& a = declared(info);
  const double cap = *a.softcap;
  const Eigen::Index n = g.q.rows(), m = g.k.rows(), dh = g.d_head(), dv = g.d_value();
  const BoolMatrix seen = reference::visible_keys(mask, n, m, a);
  const double scale = a.scale_for(dh);
  Matrix y = Matrix::Zero(n, g.heads * dv);
  for (int h = 0; h < g.heads; ++h) {
    const int kv = AttentionConvention::kv_head_of(h, g.heads, g.kv_heads(), a.grouping);
    for (Eigen::Index i = 0; i < n; ++i) {
      std::vector<double> s(static_cast<size_t>(m));
      double top = a.sinks ? a.sink_logits[static_cast<size_t>(h)] : -std::numeric_limits<double>::infinity();
      for (Eigen::Index j = 0; j < m; ++j) {
        const double raw = g.q.row(i).segment(h * dh, dh).dot(g.k.row(j).segment(kv * dh, dh)) * scale;
        s[static_cast<size_t>(j)] = seen(i, j) ? cap * std::tanh(raw / cap) : -cap;
        top = std::max(top, s[static_cast<size_t>(j)]);
      }
      double sum = a.sinks ? std::exp(a.sink_logits[static_cast<size_t>(h)] - top) : 0.0;
      for (double& x : s) sum += (x = std::exp(x - top));
      for (Eigen::Index j = 0; j < m; ++j) {
        y.row(i).segment(h * dv, dv) += (s[static_cast<size_t>(j)] / sum) * g.v.row(j).segment(kv * dv, dv);
      }
    }
  }
  return y;
}

// The answers a diagnosis compares conventions by: the case and its
// saturated twin (every logit past −3c: a cap after the mask shows on the
// second, a scale on the first), each also with the hidden keys changed
// (their moved values show a leak where the case's own values, shrunk to 0,
// cannot).
struct Answered {
  const SubjectInfo& info;
  AttentionMask mask;
  std::vector<Grouped> inputs;
  std::vector<Matrix> answers;

  // The largest difference between the answers and a reference (infinite where it is undefined or NaN).
  double distance_of(const std::function<std::optional<Matrix>(const Grouped&)>& reference) const {
    double worst = 0;
    for (size_t k = 0; k < inputs.size(); ++k) {
      const auto ref = reference(inputs[k]);
      if (!ref) return std::numeric_limits<double>::infinity();
      const double d = (answers[k] - *ref).cwiseAbs().maxCoeff();
      if (std::isnan(d)) return std::numeric_limits<double>::infinity();
      worst = std::max(worst, d);
    }
    return worst;
  }
  // The distance from the reference of another convention.
  double under(const AttentionConvention& other) const {
    SubjectInfo as = info;
    as.attention = other;
    return distance_of([&](const Grouped& in) { return reference_answer(as, in, mask); });
  }
};

Answered answered(Subject& s, const ValueCase& c, const Grouped& g) {
  const SubjectInfo& info = s.info();
  Answered out{info, mask_of(c), {}, {}};
  Grouped sat = g;
  shape_logits(info, "saturated", sat);
  const auto hidden = hidden_from_probe(info, c);
  out.inputs = {g, sat, with_hidden_changed(info, c, hidden, g), with_hidden_changed(info, c, hidden, sat)};
  for (const auto& in : out.inputs) out.answers.push_back(answer(s, in, out.mask));
  return out;
}

struct Candidate {
  std::string what;
  double error;
};

// Another logit scale: 1/√d_h, none, or the declared one applied twice; for a DeepSeek MLA head
// (a decoupled rotary declared beside it), qk_head_dim^−½ without the YaRN mscale² that
// DeepseekV3Attention.__init__ multiplies it by (modeling_deepseek_v3.py; left out by
// onnxruntime/mobius before PR #548 and by vLLM's MLA prefill before PR #41569).
void scale_departures(std::vector<Candidate>& candidates, const Answered& x, const AttentionConvention& a,
                      Eigen::Index dh) {
  const double declared_scale = a.scale_for(dh), sqrt_d = 1 / std::sqrt(static_cast<double>(dh));
  const RotateConvention& rotate = x.info.rotate;
  const bool mla = rotate.decoupled() && a.scale;
  const std::string origin = !a.scale ? ""
                             : mla    ? " (DeepSeek MLA: qk_head_dim^−½ · yarn_get_mscale(factor, mscale_all_dim)²)"
                                      : " (Gemma 2: query_pre_attn_scalar^−½, not head_dim^−½)";
  std::vector<std::pair<double, std::string>> others = {
      {sqrt_d, fmt::format("the logit scale 1/√d_h = {:.6g} (d_h = {})", sqrt_d, dh)},
      {1.0, "no logit scale (1)"},
      {declared_scale * declared_scale, fmt::format("the scale applied twice ({:.6g})", declared_scale * declared_scale)}};
  if (mla) {
    const int qk = *rotate.qk_rope_head_dim + rotate.qk_nope_head_dim.value_or(0);
    const double plain = 1 / std::sqrt(static_cast<double>(qk));
    others.push_back({plain, fmt::format("qk_head_dim^−½ = {:.6g} (qk_nope_head_dim + qk_rope_head_dim = {}) without "
                                         "the YaRN mscale² on the logits (onnxruntime/mobius PR #548, vLLM PR #41569)",
                                         plain, qk)});
  }
  for (const auto& [factor, what] : others) {
    if (std::fabs(factor - declared_scale) <= 1e-12 * declared_scale) continue;
    AttentionConvention other = a;
    other.scale = factor;
    candidates.push_back({fmt::format("{} where {:.6g} is declared{}", what, declared_scale, origin), x.under(other)});
  }
}

// The cap left out or applied after the mask; the sink logits left out.
void cap_and_sink_departures(std::vector<Candidate>& candidates, const Answered& x, const AttentionConvention& a,
                             const ValueCase& c) {
  if (a.softcap) {
    AttentionConvention none = a;
    none.softcap.reset();
    candidates.push_back({fmt::format("no cap at all where softcap {:g} is declared", *a.softcap), x.under(none)});
    if (c.mask != "none") {
      candidates.push_back({fmt::format("the cap applied after the mask: a hidden key's logit becomes "
                                        "c·tanh(−∞) = −{:g}, as likely as any visible logit saturated there",
                                        *a.softcap),
                            x.distance_of([&](const Grouped& in) { return std::optional<Matrix>(cap_after_mask(x.info, in, x.mask)); })});
    }
  }
  if (a.sinks) {
    AttentionConvention none = a;
    none.sinks = false;
    none.sink_logits.clear();
    candidates.push_back({"the sink logits left out of the softmax", x.under(none)});
  }
}

// The other grouping of query heads; the other causal alignment; a window one key narrower or wider.
void layout_departures(std::vector<Candidate>& candidates, const Answered& x, const AttentionConvention& a,
                       const ValueCase& c, const Grouped& g) {
  if (g.heads > g.kv_heads() && g.kv_heads() > 1) {
    AttentionConvention other = a;
    other.grouping = a.grouping == Grouping::tile ? Grouping::repeat_interleave : Grouping::tile;
    candidates.push_back({fmt::format("query heads grouped by {} where {} is declared", name(other.grouping),
                                      name(a.grouping)),
                          x.under(other)});
  }
  if (c.mask == "causal") {
    if (a.alignment && g.q.rows() != g.k.rows()) {
      AttentionConvention other = a;
      other.alignment = a.aligned() == Alignment::top_left ? Alignment::bottom_right : Alignment::top_left;
      candidates.push_back({fmt::format("the causal mask aligned {} where {} is declared", name(*other.alignment),
                                        name(a.aligned())),
                            x.under(other)});
    }
    if (a.window) {
      for (Position w : {*a.window - 1, *a.window + 1}) {
        if (w < 1) continue;
        AttentionConvention other = a;
        other.window = w;
        candidates.push_back({fmt::format("a window of {} keys where {} is declared", w, *a.window), x.under(other)});
      }
    }
  }
}

// Dual chunk attention's positions read otherwise: each range's query
// position, plain RoPE, keys not reduced mod L (reference/dual_chunk.h).
void dual_chunk_departures(std::vector<Candidate>& candidates, const Answered& x, const AttentionConvention& a) {
  if (!a.dual_chunk) return;
  using R = reference::DualChunkReading;
  for (R reading : {R::successive_unclamped, R::inter_off_by_one, R::plain_rope, R::keys_absolute}) {
    candidates.push_back({std::string(reference::describe(reading)), x.distance_of([&](const Grouped& in) -> std::optional<Matrix> {
                            try {
                              return reference::attention_dual_chunk(in.q, in.k, in.v, x.mask, in.heads, Dtype::float64,
                                                                     a, reading);
                            } catch (const Refusal&) {
                              return std::nullopt;
                            }
                          })});
  }
}

// The largest bound of one evaluation over the inputs (attention/support.h's output_bound).
double value_tolerance(const Answered& x, const AttentionConvention& a, const BoundModel& model) {
  double tolerance = 0;
  for (const auto& in : x.inputs) {
    tolerance = std::max(tolerance, model.evaluate(output_bound(1, rounding_width(x.info, in),
                                                                in.k.rows() + (a.sinks ? 1 : 0), logit_bound(x.info, in),
                                                                std::max(max_abs(in.v), 1e-300)))
                                        .bound);
  }
  return tolerance;
}

// Which convention the answer follows: the declared one changed in one
// field, the way published code gets it wrong, each compared by value.
std::string value_diagnose(Subject& s, const ValueCase& c, const BoundModel& model) {
  const SubjectInfo& info = s.info();
  const AttentionConvention& a = declared(info);
  const Grouped g = c.inputs();
  const Answered x = answered(s, c, g);
  std::vector<Candidate> candidates;
  const Eigen::Index dh = g.d_head();
  scale_departures(candidates, x, a, dh);
  cap_and_sink_departures(candidates, x, a, c);
  layout_departures(candidates, x, a, c, g);
  dual_chunk_departures(candidates, x, a);
  const double own = x.distance_of([&](const Grouped& in) { return reference_answer(info, in, x.mask); });
  const double tolerance = value_tolerance(x, a, model);
  const Candidate* best = nullptr;
  for (const auto& candidate : candidates) {
    if (best == nullptr || candidate.error < best->error) best = &candidate;
  }
  // The measurement already found the declared attention violated, by its per-entry bound; this
  // tolerance is the coarser worst case over the inputs, so a shrunk witness (a few saturated logits)
  // may sit under it: a candidate a hundred times closer than the declared one still explains it.
  if (best != nullptr && best->error <= tolerance && (own > tolerance || best->error * 100 <= own)) {
    return fmt::format("the answers (to this case and to its saturated twin, every logit past −3c, each "
                       "also with the hidden keys changed) are the reference's with {} (largest difference {:.3g}; {:.3g} from the declared attention)",
                       best->what, best->error, own);
  }
  std::string tried;
  for (const auto& candidate : candidates) tried += fmt::format("; {}: {:.3g}", candidate.what, candidate.error);
  return fmt::format("the answer differs from the declared attention's reference by {:.3g} and follows none of the "
                     "usual departures within the error model's {:.3g}{}",
                     own, tolerance, tried.empty() ? std::string(" (none applies to this declaration)") : tried);
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {define<ValueCase>("attention.reference_values", {kEntries, kMasked}, value_gen, value_measure,
                            value_diagnose)};
}

}  // namespace pecheck::attention::reference_values
