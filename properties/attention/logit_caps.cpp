// CLAIMS.md §8 — what bounds a row's logits and weights under a declared
// softcap or learned sinks.
//
// attention.softcap_bound (softcap c): "saturated logits give equal weights"
// asks two queries q and αq whose raw logits s_j = 20c + δ_j and α(20c + δ_j)
// (δ_j ∈ [0, 2]) all lie far past the cap's saturation: capped, both rows' logits
// are c exactly (tanh(20) rounds to 1), so their weights and outputs are the
// same, exactly; uncapped (sglang #33915's dropped cap, vllm-metal #665's cap of 0),
// softmax(δ) and softmax(αδ) differ. "weights of the capped logits" reads the
// weights of ordinary queries with the values set to the identity and
// compares them with the reference's softmax of c·tanh(s/c): a cap applied
// as c·tanh(s) (without the division), or after the mask, or twice, fails it.
//
// attention.sink_mass (sinks σ_h): with every logit 0 the weights over the m
// keys sum to m/(e^{σ_h} + m) ("mass with zero logits": a closed form, whatever
// the scale and cap); with ordinary queries they sum to the reference's
// 1 − e^{σ_h}/(e^{σ_h} + Σ_j e^{s_j}) ("real-key mass"): a sink added to the sum
// without the row maximum subtracted (softmax stabilised for the keys only)
// fails the second alone.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "attention/conventions.h"
#include "pecheck/gen/matrix.h"
#include "pecheck/property/registry.h"
#include "pecheck/reference/attention.h"
#include "input_checks.h"

namespace pecheck::attention::logit_caps {

namespace {

// Values that are the identity for every kv head: head h's output block is its weights.
Matrix identity_values(Eigen::Index m, int groups) {
  Matrix identity = Matrix::Zero(m, groups * m);
  for (int g = 0; g < groups; ++g) identity.middleCols(g * m, m).setIdentity();
  return identity;
}

// Ordinary queries and keys (entries in [−1, 1]), values, for the weight checks.
struct LogitCase {
  Matrix q, k, v;
  int heads = 1;
  Matrix delta;     // m × G, in [0, 2]: the saturated keys' spread (softcap)
  double alpha = 2; // the second saturated query's factor (softcap)
  void validate() const {
    validate_qkv(q, k, v, heads);
    const Grouped g{q, k, v, heads};
    input::matrix("delta", delta, k.rows(), g.kv_heads());
    if (!(alpha >= 1.5 && alpha <= 8)) input::invalid("alpha", "expected a factor in [1.5, 8]");
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LogitCase, q, k, v, heads, delta, alpha)

rc::Gen<LogitCase> logit_gen(const GenContext& ctx) {
  return rc::gen::mapcat(rc::gen::tuple(grouped_dims(ctx), rc::gen::inRange(1, 5), rc::gen::inRange(2, 7)),
                         [](const auto& drawn) {
    const auto& [d, n, m] = drawn;
    return rc::gen::apply(
        [heads = d.heads](Grouped g, Matrix delta, double alpha) {
          return LogitCase{std::move(g.q), std::move(g.k), std::move(g.v), heads, std::move(delta), alpha};
        },
        grouped(d, n, m), gen::matrix(m, d.kv_heads, 0, 2), rc::gen::element(2.0, 3.0, 1.5, 4.0));
  });
}

// The ordinary queries scaled so that their logits reach about ±3c (the cap's
// curved part), or ±3 without a cap.
Grouped ordinary(const SubjectInfo& info, const LogitCase& c) {
  Grouped g{c.q, c.k, c.v, c.heads};
  const double reach = declared(info).softcap.value_or(1.0) * 3;
  const double raw = logit_magnitude(g.q, g.k, g.heads, logit_scale(info, g.d_head()));
  if (raw > 0) g.q *= reach / raw;
  return g;
}

// A check of the weights' row sums (or entries) against expected ones.
Check compare_weights(std::string name, const Matrix& observed, const Matrix& expected, Bound bound, std::string note) {
  Check check{std::move(name)};
  check.bound = std::move(bound);
  for (Eigen::Index i = 0; i < observed.rows(); ++i) {
    for (Eigen::Index j = 0; j < observed.cols(); ++j) {
      double e = std::fabs(observed(i, j) - expected(i, j));
      if (std::isnan(e)) e = std::numeric_limits<double>::infinity();
      if (e <= check.error && !(check.error == 0 && i == 0 && j == 0)) continue;
      check.error = e;
      check.where.query = i;
      check.where.column = j;
      check.observed = number_to_json(observed(i, j));
      check.expected = number_to_json(expected(i, j));
    }
  }
  check.note = std::move(note);
  return check;
}

// attention.softcap_bound -----------------------------------------------------
// The two saturated queries: λ·e and αλ·e, e the first feature of every head;
// keys 1 + δ_j/(20c) in that feature (0 elsewhere), λ = 20c/scale.
Grouped saturated(const SubjectInfo& info, const LogitCase& c) {
  const double cap = *declared(info).softcap;
  const Grouped shape{c.q, c.k, c.v, c.heads};
  const Eigen::Index dh = shape.d_head();
  const int groups = shape.kv_heads();
  const double lambda = 20 * cap / logit_scale(info, dh);
  Matrix q = Matrix::Zero(2, c.q.cols()), k = Matrix::Zero(c.k.rows(), c.k.cols());
  for (int h = 0; h < c.heads; ++h) {
    q(0, h * dh) = lambda;
    q(1, h * dh) = c.alpha * lambda;
  }
  for (Eigen::Index j = 0; j < k.rows(); ++j) {
    for (int g = 0; g < groups; ++g) k(j, g * dh) = 1 + c.delta(j, g) / (20 * cap);
  }
  return {q, k, c.v, c.heads};
}

Measurement softcap_measure(Subject& s, const LogitCase& c, const BoundModel&) {
  const SubjectInfo& info = s.info();
  const double cap = *declared(info).softcap;
  const Grouped sat = saturated(info, c);
  require_representable(info.dtype, logit_magnitude(sat.q, sat.k, sat.heads, 1.0));
  const Matrix y = answer(s, sat, AttentionMask::none());
  // Past 20c the cap is c exactly (tanh rounds to 1 from 19.1 in double, far
  // sooner in narrower types): both rows' logits are the same numbers.
  Check equal = compare_weights("saturated logits give equal weights", y.row(1), y.row(0),
                                Bound::exact("every capped logit of both rows is c exactly: tanh(x) rounds to 1 for "
                                             "x ≥ 20"),
                                fmt::format("the output of query α·q against that of q, every raw logit past 20·c = "
                                            "{:g} (α = {:g}): capped, both are c", 20 * cap, c.alpha));
  equal.where.query = 1;

  const Grouped g = ordinary(info, c);
  require_representable(info.dtype, logit_magnitude(g.q, g.k, g.heads, 1.0));
  const Grouped weights{g.q, g.k, identity_values(g.k.rows(), g.kv_heads()), g.heads};
  const Matrix w = answer(s, weights, AttentionMask::none());
  Check capped{"weights of the capped logits"};
  if (const auto ref = reference_answer(info, weights, AttentionMask::none())) {
    capped = compare_weights("weights of the capped logits", w, *ref, evaluations_bound(info, weights, 2, 1.0),
                             fmt::format("the attention weights (values = I) against softmax(c·tanh(s/c)), c = {:g}, "
                                         "logits up to about 3c",
                                         cap));
    capped.where.head = capped.where.column ? std::optional<std::int64_t>(*capped.where.column / weights.k.rows())
                                            : std::nullopt;
  } else {
    throw HarnessDiscard("the harness discards this input: the declared reference refuses it");
  }
  return {{std::move(equal), std::move(capped)}, {}};
}

// The output of `g` (no mask) when each logit s = scale·q·k goes through
// `cap` — a form no convention declares, predicted here in double with the
// declared grouping and sinks.
Matrix output_through(const SubjectInfo& info, const Grouped& g, const std::function<double(double)>& cap) {
  const AttentionConvention& a = declared(info);
  const Eigen::Index n = g.q.rows(), dh = g.d_head(), dv = g.d_value();
  Matrix y = Matrix::Zero(n, static_cast<Eigen::Index>(g.heads) * dv);
  for (int h = 0; h < g.heads; ++h) {
    const int kv = AttentionConvention::kv_head_of(h, g.heads, g.kv_heads(), a.grouping);
    const Matrix s = g.q.middleCols(h * dh, dh) * g.k.middleCols(kv * dh, dh).transpose() * a.scale_for(dh);
    for (Eigen::Index i = 0; i < n; ++i) {
      Eigen::RowVectorXd row = s.row(i).unaryExpr(cap);
      double top = row.maxCoeff();
      const std::optional<double> sink = a.sinks ? std::optional(a.sink_logits.at(static_cast<size_t>(h))) : std::nullopt;
      if (sink) top = std::max(top, *sink);
      const Eigen::RowVectorXd e = (row.array() - top).exp().matrix();
      const double sum = e.sum() + (sink ? std::exp(*sink - top) : 0.0);
      y.block(i, h * dv, 1, dv) = (e / sum) * g.v.middleCols(kv * dv, dv);
    }
  }
  return y;
}

// Which cap explains the answers: none, the declared one, half or twice it, the
// declared cap on the wrong scale (1/√d where another is declared: Gemma 2's
// query_pre_attn_scalar), or a mistyped cap formula (c·tanh(s), (s/c)·tanh(s/c))
// — each predicted and the one that fits the answers named; "elsewhere" only
// when none does, with what was ruled out.
std::string softcap_diagnosis(Subject& s, const LogitCase& c, const BoundModel&) {
  const SubjectInfo& info = s.info();
  const double cap = *declared(info).softcap;
  const Grouped sat = saturated(info, c);
  const Grouped g = ordinary(info, c);
  const Grouped weights{g.q, g.k, identity_values(g.k.rows(), g.kv_heads()), g.heads};
  const Matrix y = answer(s, sat, AttentionMask::none()), w = answer(s, weights, AttentionMask::none());
  // The largest difference from the reference of `convention` over both inputs.
  auto error_of = [&](const AttentionConvention& convention) {
    SubjectInfo as = info;
    as.attention = convention;
    const auto ry = reference_answer(as, sat, AttentionMask::none()), rw = reference_answer(as, weights, AttentionMask::none());
    if (!ry || !rw) return std::numeric_limits<double>::infinity();
    return std::max((y - *ry).cwiseAbs().maxCoeff(), (w - *rw).cwiseAbs().maxCoeff());
  };
  // Against a cap form no convention declares, over both inputs.
  auto error_through = [&](const std::function<double(double)>& form) {
    return std::max((y - output_through(info, sat, form)).cwiseAbs().maxCoeff(),
                    (w - output_through(info, weights, form)).cwiseAbs().maxCoeff());
  };
  struct Candidate {
    std::string what;
    double error;
  };
  std::vector<Candidate> candidates;
  AttentionConvention none = declared(info);
  none.softcap.reset();
  candidates.push_back({"no cap at all: the declared softcap is dropped (sglang #33915: FlashInfer's cap passed to "
                        "the deprecated forward(), not plan(); vllm-metal #665: the kernel's softcap hard-coded to 0)",
                        error_of(none)});
  for (double factor : {0.5, 2.0}) {
    AttentionConvention other = declared(info);
    other.softcap = cap * factor;
    candidates.push_back({fmt::format("a cap of {:g} where {:g} is declared", cap * factor, cap), error_of(other)});
  }
  const double d_scale = 1 / std::sqrt(static_cast<double>(g.d_head()));
  if (declared(info).scale && std::fabs(*declared(info).scale - d_scale) > 1e-12 * d_scale) {
    AttentionConvention other = declared(info);
    other.scale.reset();
    candidates.push_back({fmt::format("the declared cap on logits scaled by 1/√d_head = {:.6g} where the scale {:.6g} "
                                      "is declared (Gemma 2: query_pre_attn_scalar^−½ replaced by 1/√head_dim): the "
                                      "cap is right, the scale is not",
                                      d_scale, *declared(info).scale),
                          error_of(other)});
  }
  candidates.push_back({fmt::format("c·tanh(s) with c = {:g}: the cap without the division of s by c", cap),
                        error_through([cap](double v) { return cap * std::tanh(v); })});
  candidates.push_back({fmt::format("(s/c)·tanh(s/c) with c = {:g}: the cap's factor c replaced by s/c (a mistyped cap "
                                    "formula, as in a FlashAttention-4 score_mod)",
                                    cap),
                        error_through([cap](double v) { return (v / cap) * std::tanh(v / cap); })});
  const double declared_error = error_of(declared(info));
  const auto best = std::min_element(candidates.begin(), candidates.end(),
                                     [](const Candidate& a, const Candidate& b) { return a.error < b.error; });
  const double tiny = 1e3 * unit_roundoff(info.dtype);
  if (best->error <= tiny && declared_error > tiny) {
    return fmt::format("the answers are those of {} (largest difference {:.3g}; {:.3g} from the declared cap {:g})",
                       best->what, best->error, declared_error, cap);
  }
  return fmt::format("the answers follow neither the declared cap {:g} (largest difference {:.3g}) nor no cap, half or "
                     "twice it, the declared cap on 1/√d logits, c·tanh(s) or (s/c)·tanh(s/c) (the closest: {:.3g}): "
                     "the cap is applied elsewhere (after the mask, or before the scale)",
                     cap, declared_error, best->error);
}

// attention.sink_mass ---------------------------------------------------------
// Row sums of each head's weight block.
Matrix row_mass(const Matrix& weights, int heads, Eigen::Index m) {
  Matrix mass(weights.rows(), heads);
  for (int h = 0; h < heads; ++h) mass.col(h) = weights.middleCols(h * m, m).rowwise().sum();
  return mass;
}

Measurement sink_measure(Subject& s, const LogitCase& c, const BoundModel&) {
  const SubjectInfo& info = s.info();
  const AttentionConvention& a = declared(info);
  const Eigen::Index m = c.k.rows();
  const Grouped shape{c.q, c.k, c.v, c.heads};
  const Matrix identity = identity_values(m, shape.kv_heads());

  // Every logit 0: the mass is m/(e^σ + m), whatever the scale and cap.
  const Grouped zero{Matrix::Zero(c.q.rows(), c.q.cols()), c.k, identity, c.heads};
  const Matrix w0 = answer(s, zero, AttentionMask::none());
  Matrix expected0(c.q.rows(), c.heads);
  for (int h = 0; h < c.heads; ++h) {
    const double sigma = a.sink_logits.at(static_cast<size_t>(h));
    expected0.col(h).setConstant(static_cast<double>(m) / (std::exp(sigma) + static_cast<double>(m)));
  }
  Check zero_mass = compare_weights("mass with zero logits", row_mass(w0, c.heads, m), expected0,
                                    evaluations_bound(info, zero, 1, 1.0),
                                    fmt::format("each head's weights over the {} keys (values = I, q = 0) summed, "
                                                "against m/(e^σ_h + m)", m));
  if (zero_mass.where.column) zero_mass.where.head = *zero_mass.where.column, zero_mass.where.column.reset();

  const Grouped g = ordinary(info, c);
  require_representable(info.dtype, logit_magnitude(g.q, g.k, g.heads, 1.0));
  const Grouped weights{g.q, g.k, identity, g.heads};
  const Matrix w = answer(s, weights, AttentionMask::none());
  const auto ref = reference_answer(info, weights, AttentionMask::none());
  if (!ref) throw HarnessDiscard("the harness discards this input: the declared reference refuses it");
  Check mass = compare_weights("real-key mass", row_mass(w, c.heads, m), row_mass(*ref, c.heads, m),
                               evaluations_bound(info, weights, 2, 1.0),
                               "each head's weights over the keys (values = I) summed, against 1 − e^σ_h/(e^σ_h + "
                               "Σ_j e^{s_j}) with the declared scale and cap");
  if (mass.where.column) mass.where.head = *mass.where.column, mass.where.column.reset();
  return {{std::move(zero_mass), std::move(mass)}, {}};
}

std::string sink_diagnosis(Subject& s, const LogitCase& c, const BoundModel&) {
  const SubjectInfo& info = s.info();
  const AttentionConvention& a = declared(info);
  const Eigen::Index m = c.k.rows();
  const Grouped shape{c.q, c.k, c.v, c.heads};
  const Grouped zero{Matrix::Zero(1, c.q.cols()), c.k, identity_values(m, shape.kv_heads()), c.heads};
  const Matrix weights = answer(s, zero, AttentionMask::none());
  const Matrix mass = row_mass(weights, c.heads, m);
  std::string text;
  // carries_value: the sink's share e^σ/(e^σ + m) lands on key 0 (the sink joined the softmax as a key carrying v_0).
  bool all_one = true, head0 = true, carries_value = m > 1;
  for (int h = 0; h < c.heads; ++h) {
    const double observed = mass(0, h);
    all_one = all_one && std::fabs(observed - 1) < 1e-6;
    const double e = std::exp(a.sink_logits[static_cast<size_t>(h)]), share = 1 / (e + static_cast<double>(m));
    carries_value = carries_value && std::fabs(weights(0, h * m) - (e + 1) * share) < 1e-6 &&
                    std::fabs(weights(0, h * m + 1) - share) < 1e-6;
    const double with_head0 = static_cast<double>(m) / (std::exp(a.sink_logits[0]) + static_cast<double>(m));
    head0 = head0 && std::fabs(observed - with_head0) < 1e-6;
    text += fmt::format("{}head {}: {:.6g}", h ? ", " : "", h,
                        observed);
  }
  if (all_one && carries_value) {
    return fmt::format("with every logit 0 each key takes 1/(e^σ_h + m) of the mass but key 0 also takes the sink's "
                       "e^σ_h/(e^σ_h + m) ({}): the sink is in the softmax but carries key 0's value (a sink column "
                       "prepended to the logits and the value rows not padded, or its weight not dropped before the "
                       "value product); a sink carries no value",
                       text);
  }
  if (all_one) {
    return fmt::format("with every logit 0 the weights over the {} keys sum to 1 in every head ({}): the sink logits "
                       "are not in the softmax", m, text);
  }
  if (head0 && c.heads > 1) {
    return fmt::format("with every logit 0 every head's keys take m/(e^σ_0 + m) ({}): head 0's sink logit is used for "
                       "every head", text);
  }
  return fmt::format("with every logit 0 the keys' mass per head is {} (expected m/(e^σ_h + m) with σ = the declared "
                     "sink_logits); with ordinary logits see the check: a sink added without the row maximum "
                     "subtracted, or scaled like a dot product, changes only that",
                     text);
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {
      define<LogitCase>("attention.softcap_bound", {"saturated logits give equal weights", "weights of the capped logits"},
                        logit_gen, softcap_measure, softcap_diagnosis),
      define<LogitCase>("attention.sink_mass", {"mass with zero logits", "real-key mass"}, logit_gen, sink_measure,
                        sink_diagnosis),
  };
}

}  // namespace pecheck::attention::logit_caps
