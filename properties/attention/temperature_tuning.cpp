// CLAIMS.md §10 — attention.temperature_tuning: a layer that declares
// attn_temperature_tuning with attn_scale s and floor_scale F (Llama 4's NoPE
// layers, params.forward.layers[k] or the model config) scales the query at
// position p by τ(p) = 1 + s·ln(⌊(p + 1)/F⌋ + 1) (reference::query_temperature):
// exactly 1 below F − 1, then one step at each p + 1 that is a multiple of F.
//
// The layer is NoPE, so positions reach its output through τ alone, and τ
// scales each query row by its own position: with the same tokens, the last
// row's output is a function y(p) of its position only (the other rows stay
// at 0, 1, …), the same wherever τ is the same and different wherever τ
// steps. pecheck cannot know the layer's weights, so it judges the steps by
// that function, on the module's forward with "layer": k:
//   unscaled below floor_scale − 1   y(N − 1) = y(p) = y(F − 2) for a p between
//                                    (a continuous τ — the floor missing, ln((p + 1)/F + 1) —
//                                    changes it; Llama 4's F is 8192, so a
//                                    row at 8190 must answer as one at 3)
//   constant within a step           y(s_k) = y(s_k + 1) = y(s_{k+1} − 1), s_k
//                                    the first position of step k (kF − 1)
//   one step at each multiple        y(s_k − 1) ≠ y(s_k + 1): the step is
//                                    there, by more than the comparison's
//                                    rounding (and, by the check above, at s_k)
// A step one position late (⌊p/F⌋ for ⌊(p + 1)/F⌋) fails the second; tuning
// declared but not applied, the last; the floor missing, the first two.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <list>

#include "module/support.h"
#include "pecheck/reference/attention.h"
#include "input_checks.h"

namespace pecheck::attention::temperature_tuning {

namespace {

constexpr const char* kBelow = "unscaled below floor_scale − 1";
constexpr const char* kSame = "constant within a step";
constexpr const char* kStep = "one step at each multiple";
constexpr int kMostSteps = 3;

const std::vector<LayerConvention>& layers_of(const SubjectInfo& s) {
  static const std::vector<LayerConvention> none;
  return s.forward ? s.forward->layers : none;
}

std::vector<int> tuned_layers(const SubjectInfo& s) {
  std::vector<int> out;
  const auto& layers = layers_of(s);
  for (size_t k = 0; k < layers.size(); ++k) {
    if (layers[k].temperature_tuning) out.push_back(static_cast<int>(k));
  }
  return out;
}

struct TuningCase {
  int layer = 0;
  Matrix tokens;      // N × width, one sequence
  int step = 1;       // k: the step s_k = kF − 1 judged
  Position middle = 0;  // a position between N − 1 and F − 2
  void validate() const {
    if (layer < 0 || layer > 4096) throw InvalidInput("attention.temperature_tuning: layer from 0 to 4096");
    input::matrix("tokens", tokens);
    if (tokens.rows() < 2) input::invalid("tokens", "at least 2 tokens (one query over one key has no softmax)");
    if (step < 1 || step > kMostSteps) input::invalid("step", fmt::format("from 1 to {}", kMostSteps));
    if (middle < tokens.rows() - 1) input::invalid("middle", "at least the last token's index");
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TuningCase, layer, tokens, step, middle)

const TemperatureTuning& tuning_of(const SubjectInfo& s, int layer) {
  const auto& layers = layers_of(s);
  if (layer >= static_cast<int>(layers.size()) || !layers[static_cast<size_t>(layer)].temperature_tuning) {
    throw InvalidInput(fmt::format("attention.temperature_tuning: layer {} declares no temperature tuning", layer));
  }
  return *layers[static_cast<size_t>(layer)].temperature_tuning;
}

// The most tokens a case takes: every row but the last sits below the first step.
int most_tokens(const TemperatureTuning& t) {
  const Position first = reference::temperature_step(t, 1);
  return static_cast<int>(std::min<Position>(module::kMaxTokens, first));
}

rc::Gen<TuningCase> tuning_gen(const GenContext& ctx) {
  const std::vector<int> tuned = tuned_layers(ctx.subject);
  if (tuned.empty()) throw Refusal("no layer declares attn_temperature_tuning");
  const int width = module::declared_width(ctx.subject) > 0 ? module::declared_width(ctx.subject) : 16;
  return rc::gen::mapcat(rc::gen::elementOf(tuned), [subject = ctx.subject, width](int layer) {
    const TemperatureTuning& t = tuning_of(subject, layer);
    // (A floor_scale below 4 leaves no room for 3 tokens below the first step: the measurement refuses it.)
    const int most = std::max(3, most_tokens(t));
    return rc::gen::mapcat(rc::gen::inRange(3, most + 1), [layer, width, t](int n) {
      // F − 2: the last position with τ = 1.
      const Position below = std::max<Position>(reference::temperature_step(t, 1) - 1, n - 1);
      return rc::gen::apply(
          [layer, n](Matrix tokens, int step, Position middle) {
            TuningCase c;
            c.layer = layer;
            c.tokens = std::move(tokens);
            c.step = step;
            c.middle = middle;
            return c;
          },
          module::tokens(n, width), rc::gen::inRange(1, kMostSteps + 1),
          rc::gen::inRange<Position>(n - 1, below + 1));
    });
  });
}

// The answers y(p): the last row of layer k's forward with the last token at p.
class LastRow {
 public:
  LastRow(Subject& s, const TuningCase& c) : s_(s), c_(c) {}
  const Matrix& at(Position p) {
    for (const auto& [q, y] : seen_) {
      if (q == p) return y;
    }
    const auto n = c_.tokens.rows();
    Positions positions = module::counting(0, n);
    positions.back() = p;
    const Batch out = ask::forward_layer(s_, c_.layer, {c_.tokens}, {positions}, BoolMatrix::Constant(1, n, true));
    if (out.size() != 1 || out.front().rows() != n) {
      throw SubjectFailure(fmt::format("forward of layer {}: expected 1 sequence of {} rows", c_.layer, n));
    }
    seen_.emplace_back(p, out.front().bottomRows(1));
    answers_.push_back(out);
    return seen_.back().second;
  }
  // Every answer so far, for the bound's scale and ceiling.
  std::vector<const Batch*> answers() const {
    std::vector<const Batch*> out;
    for (const auto& a : answers_) out.push_back(&a);
    return out;
  }

 private:
  Subject& s_;
  const TuningCase& c_;
  std::list<std::pair<Position, Matrix>> seen_;  // stable addresses: at() hands out references
  std::list<Batch> answers_;  // stable addresses
};

// The error model of comparing two answers of one layer on the same tokens:
// module::comparison_bound at position 0 (the layer is NoPE: no angle is
// computed, and τ is the same number wherever it is the same step).
Bound same_bound(const SubjectInfo& info, const TuningCase& c, LastRow& rows, const BoundModel& model) {
  const Batch x = {c.tokens};
  return module::comparison_bound(info, static_cast<int>(c.tokens.cols()), c.tokens.rows(), 0,
                                  module::scale_of(x, rows.answers()), 0, model.factor(), 0);
}

Check compare(const char* name, const Matrix& a, const Matrix& b, Position pa, Position pb, Bound bound,
              const TuningCase& c) {
  Check check{name};
  module::worst_row(check, a, b, {{0, 0}}, 0);
  check.bound = std::move(bound);
  check.where.token = c.tokens.rows() - 1;
  check.where.position = pa;
  check.where.other_position = pb;
  check.where.label = fmt::format("layer {}'s last row at positions {} and {}", c.layer, pa, pb);
  return check;
}

double largest_difference(const Matrix& a, const Matrix& b) {
  double out = 0;
  for (Eigen::Index i = 0; i < a.size(); ++i) {
    const double e = std::fabs(a.data()[i] - b.data()[i]);
    out = std::max(out, std::isnan(e) ? INFINITY : e);
  }
  return out;
}

Measurement tuning_measure(Subject& s, const TuningCase& c, const BoundModel& model) {
  const SubjectInfo& info = s.info();
  if (info.forward && info.forward->positions == PositionsSource::from_padding) {
    throw Refusal("the module derives its positions from the padding: a request cannot place a token at p");
  }
  const TemperatureTuning& t = tuning_of(info, c.layer);
  const auto n = c.tokens.rows();
  // Tokens alike (or a zero last token, which RMSNorm sends to q = 0) give
  // every key one logit, which no temperature moves: such a case cannot show
  // a step, and shrinking would otherwise drift into it.
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < i; ++j) {
      if ((c.tokens.row(i) - c.tokens.row(j)).cwiseAbs().maxCoeff() < 0.5) {
        throw HarnessDiscard("the harness discards this input: two tokens too alike for a temperature to show");
      }
    }
  }
  if (c.tokens.row(n - 1).cwiseAbs().maxCoeff() < 0.5) {
    throw HarnessDiscard("the harness discards this input: a last token near zero has no logits to scale");
  }
  if (n > most_tokens(t)) {
    throw Refusal(fmt::format("floor_scale {:g} leaves fewer than {} positions below the first step", t.floor_scale, n));
  }
  const Position below = reference::temperature_step(t, 1) - 1;
  if (c.middle > below) throw InvalidInput(fmt::format("middle: at most {} (F − 2)", below));
  const Position step = reference::temperature_step(t, c.step), next = reference::temperature_step(t, c.step + 1);
  LastRow y(s, c);
  Measurement m;

  // Below the first step: τ = 1 at every position.
  const Matrix& first = y.at(n - 1);
  Check under = compare(kBelow, y.at(c.middle), first, c.middle, n - 1, Bound{}, c);
  Check top = compare(kBelow, y.at(below), first, below, n - 1, Bound{}, c);
  if (top.error > under.error) under = std::move(top);
  under.bound = same_bound(info, c, y, model);
  under.note = fmt::format("τ(p) = 1 for every p < floor_scale − 1 = {:g}: the last row the same at every such "
                           "position (attn_scale {:g}, floor_scale {:g})",
                           t.floor_scale - 1, t.attn_scale, t.floor_scale);
  m.checks.push_back(std::move(under));

  // Within step k: one τ, from its first position s_k (the one after it, and its last, answer alike).
  Check same = compare(kSame, y.at(next - 1), y.at(step), next - 1, step, Bound{}, c);
  Check second = compare(kSame, y.at(step + 1), y.at(step), step + 1, step, Bound{}, c);
  if (second.error > same.error) same = std::move(second);
  same.bound = same_bound(info, c, y, model);
  same.note = fmt::format("τ = 1 + {:g}·ln({} + 1) from position {} to {}: the last row the same at {}, {} and {}",
                          t.attn_scale, c.step, step, next - 1, step, step + 1, next - 1);
  m.checks.push_back(std::move(same));

  // Across the step: τ rises by τ(s_k)/τ(s_k − 1). (Where exactly it rises is
  // the check above's: s_k answers as the rest of its step.)
  Check rise{kStep};
  rise.error = largest_difference(y.at(step + 1), y.at(step - 1));
  rise.bound = same_bound(info, c, y, model);
  rise.bound.kind = Bound::Kind::lower;
  rise.bound.ceiling.reset();
  rise.where.token = n - 1;
  rise.where.position = step + 1;
  rise.where.other_position = step - 1;
  rise.where.label = fmt::format("layer {}'s last row at positions {} and {}", c.layer, step - 1, step + 1);
  rise.observed = number_to_json(rise.error);
  rise.note = fmt::format("τ steps from {:.6g} to {:.6g} at position {} (⌊(p + 1)/{:g}⌋ goes from {} to {}): the "
                          "last row at {} and {} must differ by more than the comparison's rounding",
                          reference::query_temperature(t, step - 1), reference::query_temperature(t, step), step,
                          t.floor_scale, c.step - 1, c.step, step - 1, step + 1);
  m.checks.push_back(std::move(rise));
  return m;
}

// Which published departure the answers fit, from y at a few positions.
std::string tuning_diagnose(Subject& s, const TuningCase& c, const BoundModel& model) {
  try {
    const SubjectInfo& info = s.info();
    const TemperatureTuning& t = tuning_of(info, c.layer);
    LastRow y(s, c);
    const auto n = c.tokens.rows();
    const Position first = reference::temperature_step(t, 1), below = first - 1;
    const auto equal = [&](Position a, Position b) {
      const Bound bound = same_bound(info, c, y, model);
      return largest_difference(y.at(a), y.at(b)) <= model.value(bound);
    };
    // A continuous τ: the row moves between any two positions below the first step.
    if (!equal(n - 1, below) && !equal(n - 1, (n - 1 + below) / 2)) {
      return fmt::format("the query temperature changes at every position below floor_scale − 1 = {:g}: the floor "
                         "is missing (1 + attn_scale·ln((p + 1)/floor_scale + 1) where Llama 4 takes "
                         "⌊(p + 1)/floor_scale⌋)",
                         t.floor_scale - 1);
    }
    if (equal(first - 1, first) && !equal(first, first + 1)) {
      return fmt::format("the temperature steps one position late, at p = {} instead of {}: ⌊p/floor_scale⌋ where "
                         "Llama 4 takes ⌊(p + 1)/floor_scale⌋ (a 0-based position read as a 1-based count, or the "
                         "other way round)",
                         first + 1, first);
    }
    if (equal(n - 1, first) && equal(first, reference::temperature_step(t, kMostSteps))) {
      return "no temperature at all: the row is the same at every position, as if attn_temperature_tuning were "
             "declared but never applied (the flag read from the wrong config field, or the scale computed and "
             "dropped)";
    }
  } catch (const std::exception&) {
  }
  return {};
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {define<TuningCase>("attention.temperature_tuning", {kBelow, kSame, kStep}, tuning_gen, tuning_measure,
                             tuning_diagnose)};
}

}  // namespace pecheck::attention::temperature_tuning
