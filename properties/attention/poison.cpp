// CLAIMS.md §10 — attention.poison_invariance: under a declared
// params.attention.poison_invariance (paged or rolling caches whose unused
// slots are uninitialised memory), the keys and values no query can reach may
// hold NaN or ±1e30 without changing any output (vLLM PR #30887: V blocks
// outside the sliding window not masked, NaN pages leaking into outputs; vLLM
// PR #936 zeroed the values past the context length for the same reason).
//
// A case is a request with keys nobody sees, whatever the request can say:
// a causal mask over more keys than queries under the declared alignment
// (top_left leaves the keys past the last query, bottom_right with a window
// or chunk the oldest keys), or a padding mask (boolean, some key columns
// false in every row). The unreachable keys are reference::visible_keys'
// empty columns. Their key and value rows are poisoned — NaN, or ±1e30 with
// alternating signs (a float16 subject reads ±Inf) — and the answer must be
// "finite output" (exactly: NaN or Inf is never an answer) and "unchanged by
// unreachable keys": its finite entries equal to the subject's own answer
// with the rows clean within two evaluations of attention/support.h's
// output_bound (a correct
// implementation gives the same numbers: an unreachable key is skipped or
// gets weight exactly 0 by a select, never by arithmetic).
//
// The two published kinds it catches: NaN·0 in the value product (the mask
// applied to the logits, then P·V over every key: P = 0 times NaN is NaN),
// and a mask added as a large negative number (−1e4, −1e9) instead of
// replacing the logit, which a key of 1e30 overwhelms. The diagnosis tells
// them apart by poisoning the values alone and the keys alone.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "attention/conventions.h"
#include "pecheck/gen/matrix.h"
#include "pecheck/property/registry.h"
#include "pecheck/reference/attention.h"
#include "input_checks.h"

namespace pecheck::attention::poison {

namespace {

constexpr const char* kFinite = "finite output";
constexpr const char* kUnchanged = "unchanged by unreachable keys";
// The poison of uninitialised memory that is still a finite float32 number:
// q·k with it outweighs any finite additive mask a kernel might use.
constexpr double kHuge = 1e30;

struct PoisonCase {
  Matrix q, k, v;
  int heads = 1;
  std::string mask = "padding";  // "causal" (the declared convention's) or "padding" (a boolean mask)
  BoolMatrix allowed;            // n×m, for a padding mask
  std::string poison = "nan";    // "nan", or "huge": ±1e30, the sign alternating over the unreachable keys
  int sign = 1;                  // the sign of the first unreachable key's ±1e30
  void validate() const {
    validate_qkv(q, k, v, heads);
    if (mask == "causal") {
      if (q.rows() > k.rows()) input::invalid("mask", "a causal case has at least as many keys as queries");
    } else if (mask == "padding") {
      validate_mask("boolean", allowed, q.rows(), k.rows());
    } else {
      input::invalid("mask", "expected causal or padding");
    }
    if (poison != "nan" && poison != "huge") input::invalid("poison", "expected nan or huge");
    if (sign != 1 && sign != -1) input::invalid("sign", "expected 1 or -1");
  }
  Grouped inputs() const { return {q, k, v, heads}; }
  AttentionMask request_mask() const {
    return mask == "causal" ? AttentionMask::causal() : AttentionMask::boolean(allowed);
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PoisonCase, q, k, v, heads, mask, allowed, poison, sign)

// The keys no query of the request sees under the declared convention.
std::vector<Eigen::Index> unreachable(const SubjectInfo& info, const AttentionMask& mask, Eigen::Index n,
                                      Eigen::Index m) {
  const BoolMatrix seen = reference::visible_keys(mask, n, m, declared(info));
  std::vector<Eigen::Index> out;
  for (Eigen::Index j = 0; j < m; ++j) {
    if (!seen.col(j).any()) out.push_back(j);
  }
  return out;
}

// Which rows of the request get the poison.
enum class Rows { keys_and_values, keys, values };

// The request with the unreachable rows poisoned.
Grouped poisoned(const Grouped& g, const std::vector<Eigen::Index>& hidden, const std::string& poison, int sign,
                 Rows rows = Rows::keys_and_values) {
  Grouped out = g;
  int s = sign;
  for (Eigen::Index j : hidden) {
    const double x = poison == "nan" ? std::numeric_limits<double>::quiet_NaN() : s * kHuge;
    if (rows != Rows::values) out.k.row(j).setConstant(x);
    if (rows != Rows::keys) out.v.row(j).setConstant(x);
    s = -s;
  }
  return out;
}

// A padding mask over m keys: the drawn real keys (at least one, and at least
// one padded: the last key when the draw pads none), each query seeing some
// real key.
BoolMatrix padding_mask(BoolMatrix allowed, BoolMatrix real) {
  const Eigen::Index n = allowed.rows(), m = allowed.cols();
  if (real.row(0).all()) real(0, m - 1) = false;
  Eigen::Index first_real = 0;
  while (!real(0, first_real)) ++first_real;
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < m; ++j) allowed(i, j) = allowed(i, j) && real(0, j);
    if (!allowed.row(i).any()) allowed(i, first_real) = true;
  }
  return allowed;
}

// n ≤ 6 queries over n + [1, 8] keys: a causal request where the declared
// alignment allows n ≠ m and it leaves a key unreachable, else a padding mask.
rc::Gen<PoisonCase> poison_gen(const GenContext& ctx) {
  const bool aligned = declared(ctx.subject).alignment.has_value();
  auto shape = rc::gen::tuple(grouped_dims(ctx), rc::gen::inRange(1, 7), rc::gen::inRange(1, 9),
                              rc::gen::element<std::string>("huge", "nan"), rc::gen::element(1, -1),
                              rc::gen::element<std::string>("causal", "padding"));
  return rc::gen::mapcat(shape, [&subject = ctx.subject, aligned](const auto& drawn) {
    const auto& [d, n, extra, poison, sign, kind] = drawn;
    const int m = n + extra;
    return rc::gen::apply(
        [&subject, aligned, poison = poison, sign = sign, kind = kind, heads = d.heads](Grouped g, BoolMatrix allowed,
                                                                                        BoolMatrix real) {
          PoisonCase c{std::move(g.q), std::move(g.k), std::move(g.v), heads, "causal", {}, poison, sign};
          if (kind == "causal" && aligned &&
              !unreachable(subject, AttentionMask::causal(), c.q.rows(), c.k.rows()).empty()) {
            return c;
          }
          c.mask = "padding";
          c.allowed = padding_mask(std::move(allowed), std::move(real));
          return c;
        },
        grouped(d, n, m), attendable_mask(n, m), attendable_mask(1, m));
  });
}

std::string list(const std::vector<Eigen::Index>& keys) {
  std::string out;
  for (Eigen::Index j : keys) out += fmt::format("{}{}", out.empty() ? "" : ", ", j);
  return out;
}

std::string describe_poison(const std::string& poison) {
  return poison == "nan" ? "NaN" : fmt::format("±{:g} (alternating)", kHuge);
}

// The first non-finite entry of y, or nothing.
std::optional<std::pair<Eigen::Index, Eigen::Index>> first_non_finite(const Matrix& y) {
  for (Eigen::Index i = 0; i < y.rows(); ++i) {
    for (Eigen::Index col = 0; col < y.cols(); ++col) {
      if (!std::isfinite(y(i, col))) return std::pair{i, col};
    }
  }
  return std::nullopt;
}

// max |a − b| (NaN: infinite).
double distance(const Matrix& a, const Matrix& b) {
  double worst = 0;
  for (Eigen::Index i = 0; i < a.size(); ++i) {
    double e = std::fabs(a.data()[i] - b.data()[i]);
    if (std::isnan(e)) e = std::numeric_limits<double>::infinity();
    worst = std::max(worst, e);
  }
  return worst;
}

Measurement poison_measure(Subject& s, const PoisonCase& c, const BoundModel&) {
  const SubjectInfo& info = s.info();
  const Grouped g = c.inputs();
  const AttentionMask mask = c.request_mask();
  const auto hidden = unreachable(info, mask, g.q.rows(), g.k.rows());
  if (hidden.empty()) throw HarnessDiscard("the harness discards this input: every key is visible to some query");
  require_representable(info.dtype, logit_magnitude(g.q, g.k, g.heads, 1.0));
  const Matrix clean = answer(s, g, mask);
  const std::string where = fmt::format("keys {} (no query sees them: {} mask) poisoned with {}", list(hidden),
                                        c.mask, describe_poison(c.poison));
  Check finite{kFinite};
  finite.bound = Bound::exact("an unreachable key is no part of any answer: NaN or Inf never is one");
  finite.where.label = where;
  finite.note = fmt::format("every output entry, {} queries over {} keys, with {}", g.q.rows(), g.k.rows(), where);
  Check unchanged{kUnchanged};
  unchanged.bound = evaluations_bound(info, g, 2, std::max(max_abs(g.v), 1e-300));
  unchanged.where.label = where;
  unchanged.note = fmt::format("every finite output entry with {} against the subject's answer with those rows clean",
                               where);
  Matrix y;
  try {
    y = answer(s, poisoned(g, hidden, c.poison, c.sign), mask);
  } catch (const Refusal& refusal) {
    // The subject answered the clean request: a promise of poison
    // invariance that refuses the poisoned one is not kept.
    for (Check* check : {&finite, &unchanged}) {
      check->error = std::numeric_limits<double>::infinity();
      check->observed = fmt::format("refused: {}", refusal.what());
      check->expected = "the answer to the clean request";
    }
    return {{std::move(finite), std::move(unchanged)}, {}};
  }
  if (const auto at = first_non_finite(y)) {
    finite.error = std::numeric_limits<double>::infinity();
    finite.where.query = at->first;
    finite.where.column = at->second;
    finite.where.head = at->second / g.d_value();
    finite.observed = number_to_json(y(at->first, at->second));
    finite.expected = "a finite number";
  }
  // The finite entries against the clean answer: a NaN or Inf is the first
  // check's finding, so each published kind fails one check (NaN·0 the
  // first, an overwhelmed mask this one).
  worst_entry(unchanged, y, clean, g.d_value(),
              [&](Eigen::Index i, Eigen::Index col) { return std::isfinite(y(i, col)); });
  return {{std::move(finite), std::move(unchanged)}, {}};
}

// Poisons the values alone and the keys alone with NaN, and keys and values
// (or values alone) with ±1e30 of both signs: NaN in the values alone names
// the value product, NaN in the keys alone a mask that is added to the
// logit, ±1e30 that moves the answer only through the keys a finite mask
// value that a huge logit overwhelms.
std::string poison_diagnose(Subject& s, const PoisonCase& c, const BoundModel& model) {
  const SubjectInfo& info = s.info();
  const Grouped g = c.inputs();
  const AttentionMask mask = c.request_mask();
  const auto hidden = unreachable(info, mask, g.q.rows(), g.k.rows());
  if (hidden.empty()) return "every key of this case is visible to some query";
  Matrix clean;
  try {
    clean = answer(s, g, mask);
  } catch (const Refusal& refusal) {
    return fmt::format("the subject refuses the clean request too: {}", refusal.what());
  }
  const double tolerance = model.evaluate(evaluations_bound(info, g, 2, std::max(max_abs(g.v), 1e-300))).bound;
  struct Probe {
    std::string what;
    bool non_finite = false;
    double change = 0;
    std::string refused;
  };
  const auto probe = [&](const std::string& poison, int sign, Rows rows) {
    Probe p;
    try {
      const Matrix y = answer(s, poisoned(g, hidden, poison, sign, rows), mask);
      p.non_finite = first_non_finite(y).has_value();
      p.change = distance(y, clean);
    } catch (const Refusal& refusal) {
      p.refused = refusal.what();
    }
    return p;
  };
  std::vector<std::string> causes;
  const Probe nan_values = probe("nan", 1, Rows::values);
  if (nan_values.non_finite) {
    causes.push_back("NaN leaks through the value product: the unreachable values are multiplied by their zero "
                     "weights instead of skipped (P·V with P = 0 still gives NaN·0 = NaN; vLLM PR #30887, V blocks "
                     "outside the window not masked)");
  }
  const Probe nan_keys = probe("nan", 1, Rows::keys);
  if (nan_keys.non_finite) {
    causes.push_back("NaN keys reach the softmax: the mask is added to the unreachable keys' logits (NaN + mask = "
                     "NaN) instead of replacing them (a select: where / masked_fill)");
  }
  // Keys of ±1e30 with values of ±1e30 (a key that wins its row shows its
  // value, whatever the case's own values shrank to), against values alone.
  double overwhelmed = 0;
  for (int sign : {1, -1}) {
    const Probe huge = probe("huge", sign, Rows::keys_and_values);
    if (!huge.non_finite) overwhelmed = std::max(overwhelmed, huge.change);
  }
  double leaked = 0;
  for (int sign : {1, -1}) {
    const Probe huge_values = probe("huge", sign, Rows::values);
    if (!huge_values.non_finite) leaked = std::max(leaked, huge_values.change);
  }
  if (overwhelmed > tolerance && leaked <= tolerance) {
    causes.push_back(fmt::format("the masked logit is overwhelmed: the mask is added to the logit as a large finite "
                                 "negative number (−1e4, −1e9) instead of replacing it, and a key of ±{:g} makes "
                                 "q·k outweigh it (the answer moves by {:.3g}, tolerance {:.3g})",
                                 kHuge, overwhelmed, tolerance));
  }
  if (leaked > tolerance) {
    causes.push_back(fmt::format("values of ±{:g} at unreachable keys move the answer by {:.3g}: their weights are "
                                 "small but not exactly 0 (a finite mask value)",
                                 kHuge, leaked));
  }
  const std::string at = fmt::format("unreachable keys {} ({} mask)", list(hidden), c.mask);
  if (!nan_values.refused.empty() || !nan_keys.refused.empty()) {
    causes.push_back(fmt::format("the subject refuses poisoned requests although it declares poison_invariance: {}",
                                 nan_values.refused.empty() ? nan_keys.refused : nan_values.refused));
  }
  if (causes.empty()) {
    return fmt::format("poisoning {} changes the answer, but neither NaN nor ±{:g} in the keys alone or in the "
                       "values alone does",
                       at, kHuge);
  }
  std::string out = fmt::format("with {}: ", at);
  for (size_t i = 0; i < causes.size(); ++i) out += (i ? "; and " : "") + causes[i];
  return out;
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {define<PoisonCase>("attention.poison_invariance", {kFinite, kUnchanged}, poison_gen, poison_measure,
                             poison_diagnose)};
}

}  // namespace pecheck::attention::poison
