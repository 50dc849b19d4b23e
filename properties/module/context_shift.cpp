// CLAIMS.md §10 — module.context_shift: a subject that declares
// context_shift (params.rotate or params.forward) re-rotates cached keys:
// asked `rotate` with "shift": Δ (and "layer": k where it declares layers),
// its x are keys already rotated at p, and it answers them as keys rotated at
// p + Δ — R(p + Δ)·R(p)⁻¹ x, each layer with its own base and scaling.
// llama.cpp's context shift (src/llama-kv-cache.cpp, build_rope_shift: the
// cache's keys turned by ggml_rope_ext at pos = Δ) used the model-wide base
// on every layer until PR #12373 gave Gemma 3's sliding layers their own
// (rope_freq_base_train_swa): the local layers' keys shifted at the global
// base.
//
// The case: a layer k (none for a subject without declared layers), 1–4 keys
// k_r, drawn positions p_r and a shift Δ — small, negative down to −min p,
// large, and past the configured max_position_embeddings where there is one.
// pecheck sends x_r = R(p_r) k_r (its float64 reference, rounded to the
// subject's dtype) and compares the answer with R(p_r + Δ)·R(p_r)⁻¹ x_r in
// float64. The sub-checks:
//   keys re-rotated to p + Δ      the answer, pair by pair, against the
//                                 reference; the bound is two rotations'
//                                 roundings (back from p, on to p + Δ: 10
//                                 value roundings and the angle work at p and
//                                 at p + Δ, relative to the pair's size) —
//                                 what R(p + Δ)R(p)⁻¹ costs, and more than
//                                 llama.cpp's single turn by Δ
//   shift by 0 leaves the keys    the same keys with "shift": 0 come back as
//                                 they are, within the same bound (a shift
//                                 applied as an absolute position turns
//                                 them again)
// A NoPE layer's shift is the identity, exactly.
#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "angle_error.h"
#include "input_checks.h"
#include "module/support.h"
#include "pecheck/gen/positions.h"
#include "pecheck/property/identify.h"
#include "pecheck/property/registry.h"
#include "pecheck/reference/rotary.h"
#include "rope/common.h"

namespace pecheck::module::context_shift {

namespace {

constexpr const char* kShifted = "keys re-rotated to p + Δ";
constexpr const char* kZero = "shift by 0 leaves the keys";

struct ShiftCase {
  int layer = -1;      // the layer asked ("layer": k); −1: none (the subject's params.rotate)
  int dim = 2;
  Positions positions;  // where the keys were rotated, one per row
  Position shift = 1;   // Δ
  Matrix keys;          // the unrotated keys k_r (pecheck rotates them)
  void validate() const {
    if (layer < -1 || layer > 4096) throw InvalidInput("module.context_shift: layer from −1 (none) to 4096");
    input::width("dim", dim);
    input::positions("positions", positions);
    input::matrix("keys", keys, static_cast<Eigen::Index>(positions.size()), dim);
    for (Position p : positions) {
      if (p + shift < 0 || p + shift > input::kMaxPosition) {
        throw InvalidInput("module.context_shift: every p + Δ within [0, the largest position]");
      }
    }
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ShiftCase, layer, dim, positions, shift, keys)

const std::vector<LayerConvention>& layers_of(const SubjectInfo& s) {
  static const std::vector<LayerConvention> none;
  return s.forward ? s.forward->layers : none;
}

// The rotary the case's keys were rotated by: layer k's (nullopt: a NoPE
// layer), or the subject's params.rotate.
std::optional<RotateConvention> convention_of(const SubjectInfo& s, int layer) {
  if (layer < 0) return s.rotate;
  const auto& layers = layers_of(s);
  if (layer >= static_cast<int>(layers.size())) {
    throw InvalidInput(fmt::format("module.context_shift: layer {} of {} declared", layer, layers.size()));
  }
  return layers[static_cast<size_t>(layer)].rotate;
}

// The subject as if it declared `c` as its params.rotate (what the rope family's helpers read).
SubjectInfo as_rotary(const SubjectInfo& s, const RotateConvention& c) {
  SubjectInfo out = s;
  out.rotate = c;
  out.layout = Layout::unspecified;
  return out;
}

// A context shift is defined by the position alone: not for a length-dependent
// base (dynamic NTK, LongRoPE's switch) nor for multi-axis positions.
bool shiftable(const RotateConvention& c) { return c.position_axes() == 1 && !c.length_dependent(); }

std::vector<int> dims_for(const SubjectInfo& s, const std::optional<RotateConvention>& c, const GenContext& ctx) {
  // A decoupled (MLA) head has one width, nope + rope (rope.decoupled's).
  if (c && c->decoupled()) return {*c->qk_rope_head_dim + c->qk_nope_head_dim.value_or(0)};
  if (c) return rope::within_gate(rope::valid_dims(as_rotary(s, *c)), ctx);
  for (const auto& l : layers_of(s)) {
    if (l.rotate) return rope::within_gate(rope::valid_dims(as_rotary(s, *l.rotate)), ctx);
  }
  std::vector<int> out;
  for (int d = 2; d <= 64; d += 2) out.push_back(d);
  return rope::within_gate(out, ctx);
}

// Δ for keys at `positions`: small, negative (down to −min p), large, and past
// the configured max_position_embeddings P (some p + Δ ≥ P) where the gate
// reaches it; all with every p + Δ in [0, max].
rc::Gen<Position> shift_gen(const Positions& positions, Position max, std::optional<Position> configured) {
  const Position lo = -*std::min_element(positions.begin(), positions.end());
  const Position top = *std::max_element(positions.begin(), positions.end());
  const Position hi = max - top;
  std::vector<rc::Gen<Position>> gens;
  if (hi >= 1) gens.push_back(rc::gen::inRange<Position>(1, std::min<Position>(hi, 64) + 1));
  if (lo <= -1) gens.push_back(rc::gen::inRange<Position>(lo, 0));
  if (hi >= 2) gens.push_back(rc::gen::inRange<Position>(std::max<Position>(1, hi / 2), hi + 1));
  if (configured && *configured - top >= 1 && *configured - top <= hi) {
    gens.push_back(rc::gen::inRange<Position>(*configured - top, std::min(hi, *configured - top + 64) + 1));
  }
  if (gens.empty()) gens.push_back(rc::gen::just(Position{lo}));  // every key at 0 and max 0: Δ = 0
  return rc::gen::mapcat(rc::gen::inRange<size_t>(0, gens.size()), [gens](size_t i) { return gens[i]; });
}

rc::Gen<ShiftCase> case_for(const GenContext& ctx, int layer) {
  const auto c = convention_of(ctx.subject, layer);
  const Position max = ctx.max_position;
  const Dtype angles = ctx.subject.angles_dtype();
  const std::optional<Position> configured = c ? c->max_position_embeddings : std::nullopt;
  return rc::gen::mapcat(rope::dim_among(dims_for(ctx.subject, c, ctx)), [=](int dim) {
    auto rows = rc::gen::apply(
        [](std::vector<Position> ts, Matrix keys) {
          if (ts.size() > 4) ts.resize(4);
          ShiftCase out;
          out.positions = std::move(ts);
          out.keys = keys.topRows(static_cast<Eigen::Index>(out.positions.size()));
          return out;
        },
        rc::gen::resize(4, rc::gen::nonEmpty(rc::gen::container<Positions>(gen::position(0, max, angles)))),
        rope::vectors(4, dim));
    return rc::gen::mapcat(rows, [=](ShiftCase partial) {
      partial.layer = layer;
      partial.dim = dim;
      return rc::gen::map(shift_gen(partial.positions, max, configured), [partial](Position shift) {
        ShiftCase out = partial;
        out.shift = shift;
        return out;
      });
    });
  });
}

rc::Gen<ShiftCase> context_shift_gen(const GenContext& ctx) {
  const auto& layers = layers_of(ctx.subject);
  if (layers.empty()) return case_for(ctx, -1);
  return rc::gen::mapcat(rc::gen::inRange<int>(0, static_cast<int>(layers.size())),
                         [ctx](int layer) { return case_for(ctx, layer); });
}

std::optional<int> layer_field(const ShiftCase& c) { return c.layer < 0 ? std::nullopt : std::optional<int>(c.layer); }

std::string layer_name(const ShiftCase& c) { return c.layer < 0 ? std::string("the rotary") : fmt::format("layer {}", c.layer); }

// The keys pecheck sends: R(p) k in float64, rounded to the subject's dtype.
Matrix rotated_keys(const SubjectInfo& info, const ShiftCase& c, const RotateConvention& rotate) {
  const Matrix x = reference::rotary_decoupled(c.positions, c.keys, rotate, std::nullopt);
  return x.unaryExpr([&info](double v) { return round_to(info.dtype, v); });
}

// The answer against R(p + shift)·R(p)⁻¹ x, pair by pair: the worst entry
// (or an unresolved one's check where no pair is resolvable) and its ratio.
struct Compared {
  std::optional<Check> worst;
  double ratio = -1;
  std::optional<Check> unresolved;
};

Compared compare(const SubjectInfo& info, const BoundModel& model, const RotateConvention& rotate, const Positions& ps,
                 Position shift, const Matrix& x, const Matrix& answer, const Matrix& expected,
                 const std::string& name) {
  const RotateConvention slice = rotate.decoupled() ? reference::rope_slice(rotate) : rotate;
  const int offset = rotate.decoupled() ? static_cast<int>(x.cols()) - *rotate.qk_rope_head_dim : 0;
  const int r = reference::rotary_block(static_cast<int>(x.cols()) - offset, slice);
  const auto omegas = reference::rotary_inv_freq(r, slice, std::nullopt);
  const int roundings = rope::frequency_roundings(as_rotary(info, rotate));
  const double factor = model.factor(), u_values = model.u(Stage::values), u_angles = model.u(Stage::angles);
  Compared out;
  for (Eigen::Index row = 0; row < x.rows(); ++row) {
    const Position p = ps[static_cast<size_t>(row)], q = p + shift;
    for (int i = 0; i < r / 2; ++i) {
      const double w = omegas[static_cast<size_t>(reference::rotary_frequency_index(i, r, slice))];
      const int a = offset + reference::rotary_output_first_column(i, r, slice.layout);
      const int b = offset + reference::rotary_output_second_column(i, r, slice.layout);
      const double s = std::fabs(x(row, a)) + std::fabs(x(row, b));
      const double work = angle_work(static_cast<double>(p), w, roundings) + angle_work(static_cast<double>(q), w, roundings);
      const double tolerance = factor * (u_values * 10 + u_angles * work) * s;
      int column = a;
      double error = std::fabs(answer(row, a) - expected(row, a));
      const double other = std::fabs(answer(row, b) - expected(row, b));
      if (other > error || std::isnan(other)) {
        error = other;
        column = b;
      }
      if (std::isnan(answer(row, a)) || std::isnan(answer(row, b))) error = INFINITY;
      auto make = [&] {
        Check check{name};
        check.error = error;
        check.bound = Bound::upper(10, s, "10 value roundings (two rotations) · (|x_a| + |x_b|)");
        check.bound.plus(Stage::angles, work, s, "angle work at p and at p + Δ · (|x_a| + |x_b|)");
        if (s > 0) check.bound.at_most(2 * s);
        check.where.row = row;
        check.where.column = column;
        check.where.pair = i;
        check.where.position = p;
        check.where.other_position = q;
        check.observed = number_to_json(answer(row, column));
        check.expected = number_to_json(expected(row, column));
        return check;
      };
      if (s > 0 && tolerance >= 2 * s) {
        if (!out.unresolved) out.unresolved = make();
        continue;
      }
      const double ratio = tolerance > 0 ? error / tolerance : (error > 0 ? INFINITY : 0.0);
      if (ratio > out.ratio) {
        out.ratio = ratio;
        out.worst = make();
      }
    }
  }
  return out;
}

Check rotary_check(Subject& s, const ShiftCase& c, const RotateConvention& rotate, const BoundModel& model,
                   Position shift, const char* name) {
  const SubjectInfo& info = s.info();
  const Matrix x = rotated_keys(info, c, rotate);
  const Matrix answer = ask::rotate_shift(s, layer_field(c), c.positions, x, shift);
  require_shape(answer, x.rows(), x.cols(), "rotate");
  const Matrix expected = reference::rotary_shift(c.positions, shift, x, rotate);
  Compared compared = compare(info, model, rotate, c.positions, shift, x, answer, expected, name);
  if (!compared.worst && !compared.unresolved) throw std::logic_error("module.context_shift compared no pair");
  Check check = compared.worst ? std::move(*compared.worst) : std::move(*compared.unresolved);
  check.note = fmt::format("{}'s keys rotated at p, shifted by {}, against R(p + Δ)·R(p)⁻¹ x in float64 ({})",
                           layer_name(c), shift, identify::describe(rotate));
  return check;
}

Check nope_check(Subject& s, const ShiftCase& c, Position shift, const char* name) {
  const SubjectInfo& info = s.info();
  const Matrix x = c.keys.unaryExpr([&info](double v) { return round_to(info.dtype, v); });
  const Matrix answer = ask::rotate_shift(s, layer_field(c), c.positions, x, shift);
  require_shape(answer, x.rows(), x.cols(), "rotate");
  Check check = compare_entries(name, answer, x, Bound::exact("a NoPE layer's keys carry no rotation to shift"));
  if (check.where.row) check.where.position = c.positions[static_cast<size_t>(*check.where.row)];
  check.note = fmt::format("{} declares no rotary: its shift is the identity", layer_name(c));
  return check;
}

Measurement context_shift_measure(Subject& s, const ShiftCase& c, const BoundModel& model) {
  const auto rotate = convention_of(s.info(), c.layer);
  if (rotate && !shiftable(*rotate)) {
    throw HarnessDiscard(fmt::format("{} is {}: a context shift is defined where the angle follows the position "
                                     "alone (one axis, no length-dependent base)",
                                     layer_name(c), identify::describe(*rotate)));
  }
  Measurement m;
  if (rotate) {
    m.checks.push_back(rotary_check(s, c, *rotate, model, c.shift, kShifted));
    m.checks.push_back(rotary_check(s, c, *rotate, model, 0, kZero));
  } else {
    m.checks.push_back(nope_check(s, c, c.shift, kShifted));
    m.checks.push_back(nope_check(s, c, 0, kZero));
  }
  for (Check& check : m.checks) {
    check.where.label = fmt::format("{} ({}), shift {}", layer_name(c), rotate ? identify::describe(*rotate) : "NoPE",
                                    check.name == kZero ? Position{0} : c.shift);
  }
  return m;
}

// Fixed probe keys (entries in [-4, 4]) for the diagnosis.
Matrix probe_keys(Eigen::Index rows, int dim) {
  Matrix out(rows, dim);
  std::uint64_t state = 0xc5b1f7;
  for (Eigen::Index i = 0; i < out.size(); ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    out.data()[i] = -4.0 + 8.0 * static_cast<double>(state >> 11) / static_cast<double>(1ULL << 53);
  }
  return out;
}

// Which fields of `other` differ from `own`: the ones a shift at the wrong
// layer's settings gets wrong.
std::string differing_fields(const RotateConvention& own, const RotateConvention& other) {
  std::vector<std::string> fields;
  if (own.base != other.base) fields.emplace_back("base");
  if (own.scaling.type != other.scaling.type || own.scaling.factor != other.scaling.factor) fields.emplace_back("scaling");
  if (own.rotary_dim != other.rotary_dim || own.rotary_fraction != other.rotary_fraction) fields.emplace_back("rotary_dim");
  if (fields.empty()) return "settings";
  std::string out;
  for (size_t k = 0; k < fields.size(); ++k) out += (k ? " and " : "") + fields[k];
  return out;
}

// One explanation of a failing shift: what it says, and the keys it predicts.
struct ShiftSuspect {
  std::string what;
  std::function<Matrix(const Positions&, Position, const Matrix&)> expected;
};

// R(q + Δ')R(q)⁻¹ does not depend on q (the angle follows the position): a turn by any Δ' from a q ≥ −Δ'.
Matrix turn(const RotateConvention& convention, const Matrix& x, Position by) {
  const Positions from(static_cast<size_t>(x.rows()), by < 0 ? -by : 0);
  return reference::rotary_shift(from, by, x, convention);
}

// Another layer's settings (llama.cpp PR #12373: the global base on a local
// layer), the shift turned the other way, applied twice, or the rotated keys
// turned again as if unrotated (Δ taken for an absolute position).
std::vector<ShiftSuspect> shift_suspects(const SubjectInfo& info, const ShiftCase& c, const RotateConvention& own) {
  std::vector<ShiftSuspect> suspects;
  const auto& layers = layers_of(info);
  for (size_t k = 0; k < layers.size(); ++k) {
    const auto& other = layers[k].rotate;
    if (static_cast<int>(k) == c.layer || !other || !shiftable(*other)) continue;
    if (identify::describe(*other) == identify::describe(own)) continue;
    const std::string field = differing_fields(own, *other);
    suspects.push_back(
        {fmt::format("{} (declared {}) shifts its keys with layer {}'s settings ({}): the {} of another layer "
                     "in this layer's context shift — the field '{}' (llama.cpp PR #12373: the global base on "
                     "the local layers)",
                     layer_name(c), identify::describe(own), k, identify::describe(*other), field, field),
         [other = *other](const Positions&, Position shift, const Matrix& x) { return turn(other, x, shift); }});
  }
  suspects.push_back({fmt::format("{}'s shift turns its keys by −Δ: the shift applied with its sign reversed "
                                  "(the field 'shift')",
                                  layer_name(c)),
                      [own](const Positions&, Position shift, const Matrix& x) { return turn(own, x, -shift); }});
  suspects.push_back({fmt::format("{}'s shift turns its keys by 2Δ: the shift applied twice (the field 'shift')",
                                  layer_name(c)),
                      [own](const Positions&, Position shift, const Matrix& x) { return turn(own, x, 2 * shift); }});
  suspects.push_back({fmt::format("{} rotates its already rotated keys to p + Δ as if they were unrotated: the "
                                  "shift taken for an absolute position (no R(p)⁻¹; the field 'shift')",
                                  layer_name(c)),
                      [own](const Positions& ps, Position shift, const Matrix& x) {
                        Positions to = ps;
                        for (Position& p : to) p += shift;
                        return reference::rotary_decoupled(to, x, own, std::nullopt);
                      }});
  return suspects;
}

// The witness, and a wide probe: at the witness's size two suspects may agree.
std::vector<ShiftCase> shift_probes(const ShiftCase& c) {
  ShiftCase wide = c;
  wide.positions = {3, 100, 1000, 7};
  wide.dim = 64;
  wide.keys = probe_keys(4, 64);
  wide.shift = c.shift != 0 ? c.shift : 37;
  if (wide.shift < -3) wide.shift = -3;
  return {c, wide};
}

// What a failing shift fits, among shift_suspects, on the witness and a
// wide probe asked again. Names the layer and the field; empty where none fits.
std::string context_shift_diagnose(Subject& s, const ShiftCase& c, const BoundModel& model) {
  const SubjectInfo& info = s.info();
  const auto own = convention_of(info, c.layer);
  if (!own || !shiftable(*own)) return {};
  const RotateConvention rotate = *own;
  std::vector<ShiftCase> probes = shift_probes(c);
  try {
    std::vector<std::pair<Matrix, Matrix>> asked;  // (x sent, answer)
    for (size_t k = 0; k < probes.size(); ++k) {
      const ShiftCase& p = probes[k];
      try {
        const Matrix x = rotated_keys(info, p, rotate);
        asked.emplace_back(x, ask::rotate_shift(s, layer_field(p), p.positions, x, p.shift));
      } catch (const Refusal&) {
        if (k == 0) throw;
        probes.resize(k);  // a width the subject does not take: the witness alone
        break;
      }
    }
    for (const ShiftSuspect& suspect : shift_suspects(info, c, rotate)) {
      double ratio = 0;
      for (size_t k = 0; k < probes.size() && ratio <= 1; ++k) {
        const ShiftCase& p = probes[k];
        const auto& [x, answer] = asked[k];
        const Matrix expected = suspect.expected(p.positions, p.shift, x);
        const Compared compared = compare(info, model, rotate, p.positions, p.shift, x, answer, expected, "fit");
        ratio = std::max(ratio, compared.worst ? compared.ratio : INFINITY);
      }
      if (ratio <= 1) return suspect.what;
    }
  } catch (const Refusal&) {
  } catch (const std::exception&) {
  }
  return {};
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {define<ShiftCase>("module.context_shift", {kShifted, kZero}, context_shift_gen, context_shift_measure,
                            context_shift_diagnose)};
}

}  // namespace pecheck::module::context_shift
