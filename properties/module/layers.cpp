// CLAIMS.md §9 — module.layer_schedule: a module that declares per-layer
// positional settings (params.forward.layers: Gemma 3's local layers at base
// 10⁴ unscaled and global layers at 10⁶ with linear ×8; Llama 4's and
// Cohere2's NoPE layers) honours each: asked for layer k, it answers as
// layer k's reference. The published bugs swap the settings (a local layer
// given the global scaling: llama.cpp #14367, vLLM PR #29111) or rotate where
// no rotation belongs.
//
// How a module answers for a layer (pecheck's spelling, docs/SUBJECT-PROTOCOL.md
// "Per-layer positional settings"): `rotate` with "layer": k is the rotation
// layer k applies to its queries and keys; `forward` with "layer": k is layer
// k alone. The sub-checks:
//   rotary layer as declared      rotate(layer k) against the reference of
//                                 layer k's rotate, pair by pair (rope/common.h)
//   NoPE layer unrotated          rotate(layer k) of a NoPE layer returns x
//                                 exactly (values its dtype represents)
//   NoPE layer ignores positions  forward(layer k) of a NoPE layer is the same
//                                 at positions 0, 1, … and at a stride of them
//                                 (a rotary inside would see the offsets change)
#include <fmt/format.h>

#include <algorithm>

#include "module/layers.h"
#include "module/support.h"
#include "pecheck/gen/positions.h"
#include "pecheck/property/identify.h"
#include "pecheck/reference/attention.h"
#include "pecheck/reference/rotary.h"
#include "rope/common.h"
#include "input_checks.h"

namespace pecheck::module::layers {

namespace {


// Fixed probe vectors (entries in [-4, 4]) for the diagnosis.
Matrix detail_probe_vectors(Eigen::Index rows, int dim) {
  Matrix out(rows, dim);
  std::uint64_t state = 0x1a7e5;
  for (Eigen::Index i = 0; i < out.size(); ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    out.data()[i] = -4.0 + 8.0 * static_cast<double>(state >> 11) / static_cast<double>(1ULL << 53);
  }
  return out;
}

const std::vector<LayerConvention>& layers_of(const SubjectInfo& s) {
  static const std::vector<LayerConvention> none;
  return s.forward ? s.forward->layers : none;
}

// The subject as if it declared layer k's rotary as its own params.rotate
// (what the rope family's helpers read).
SubjectInfo as_layer(const SubjectInfo& s, const RotateConvention& c) {
  SubjectInfo out = s;
  out.rotate = c;
  out.layout = Layout::unspecified;
  return out;
}


// Widths a layer's rotate defines (a NoPE layer: those of the first rotary
// layer, or 2..128).
std::vector<int> layer_dims(const SubjectInfo& s, const std::optional<RotateConvention>& rotate,
                            const GenContext& ctx) {
  if (rotate) return rope::within_gate(rope::valid_dims(as_layer(s, *rotate)), ctx);
  for (const auto& layer : layers_of(s)) {
    if (layer.rotate) return rope::within_gate(rope::valid_dims(as_layer(s, *layer.rotate)), ctx);
  }
  std::vector<int> out;
  for (int d = 2; d <= 128; d += 2) out.push_back(d);
  return rope::within_gate(out, ctx);
}

}  // namespace

rc::Gen<LayerCase> layer_case(const GenContext& ctx, int layer) {
  const Position max = ctx.max_position;
  const Dtype angles = ctx.subject.angles_dtype();
  const bool forward = ctx.subject.supports(module::kOp);
  const auto build = [ctx, max, angles, forward](int layer) {
    const auto& layers = layers_of(ctx.subject);
    const auto rotate = layer < static_cast<int>(layers.size()) ? layers[static_cast<size_t>(layer)].rotate
                                                                : std::optional<RotateConvention>();
    const bool nope_forward = forward && !rotate;
    return rc::gen::mapcat(rope::dim_among(layer_dims(ctx.subject, rotate, ctx)), [=](int dim) {
      auto t = gen::position(0, max, angles);
      return rc::gen::apply(
          [=](std::vector<Position> ts, Position extra, Matrix x, int n, int width, Position start, Position stride,
              Matrix tokens) {
            LayerCase c;
            c.layer = layer;
            c.dim = dim;
            if (ts.size() > 4) ts.resize(4);  // rows of x drawn (resize bounds the size, not the length)
            c.positions = std::move(ts);
            c.seq_len = *std::max_element(c.positions.begin(), c.positions.end()) + 1 + extra;
            c.x = x.topRows(static_cast<Eigen::Index>(c.positions.size()));
            if (nope_forward) {
              c.tokens = tokens.topLeftCorner(n, width);
              c.start = start;
              c.stride = stride;
            }
            return c;
          },
          rc::gen::resize(4, rc::gen::nonEmpty(rc::gen::container<Positions>(t))), rope::extra_length(ctx),
          rope::vectors(4, dim), rc::gen::inRange(2, module::kMaxTokens + 1),
          rc::gen::just(module::declared_width(ctx.subject) > 0 ? module::declared_width(ctx.subject) : 16),
          module::start(ctx, 4 * module::kMaxTokens), rc::gen::inRange<Position>(2, 5),
          module::tokens(module::kMaxTokens, module::declared_width(ctx.subject) > 0
                                                 ? module::declared_width(ctx.subject)
                                                 : 16));
    });
  };
  return build(layer);
}

namespace {

rc::Gen<LayerCase> layer_gen(const GenContext& ctx) {
  // The layers there is something to ask of: without rotate, a rotary
  // layer's rotation cannot be isolated (forward mixes it with the rest), so
  // a forward-only stack (llama4-config-block) is asked of its NoPE layers.
  const auto& layers = layers_of(ctx.subject);
  std::vector<int> askable;
  for (size_t k = 0; k < layers.size(); ++k) {
    if (ctx.subject.supports(Op::rotate) || !layers[k].rotate) askable.push_back(static_cast<int>(k));
  }
  if (askable.empty()) {  // none: every layer, and each case says why it cannot be asked
    for (int k = 0; k < std::max<int>(1, static_cast<int>(layers.size())); ++k) askable.push_back(k);
  }
  return rc::gen::mapcat(rc::gen::elementOf(askable), [ctx](int layer) { return layer_case(ctx, layer); });
}

Check rotary_layer(Subject& s, const LayerCase& c, const RotateConvention& rotate, const BoundModel& model) {
  const SubjectInfo info = as_layer(s.info(), rotate);
  const std::optional<Position> length =
      rotate.length_dependent() ? std::optional<Position>(c.seq_len) : std::nullopt;
  const Matrix answer = ask::rotate_layer(s, c.layer, c.positions, c.x, length);
  require_shape(answer, c.x.rows(), c.x.cols(), "rotate");
  const Matrix expected = reference::rotary(c.positions, c.x, rotate, c.seq_len);
  const int r = reference::rotary_block(c.dim, rotate);
  const auto omegas = reference::rotary_inv_freq(r, rotate, reference::rotary_length(c.positions, c.seq_len, rotate));
  auto compared = rope::compare_pairs(info, model, c.positions, c.x, answer, expected, omegas, rotate,
                                      reference::rotary_magnitude(rotate), kRotary);
  if (!compared.worst && !compared.any_unresolved) throw std::logic_error("module.layer_schedule compared no pair");
  Check check = compared.worst ? std::move(*compared.worst) : std::move(*compared.any_unresolved);
  check.note = fmt::format("layer {}'s rotation against its declared reference ({}), features 0..{} of {}", c.layer,
                           identify::describe(rotate), r - 1, c.dim);
  return check;
}

Check nope_layer(Subject& s, const LayerCase& c) {
  const SubjectInfo& info = s.info();
  const Matrix x = c.x.unaryExpr([&info](double v) { return round_to(info.dtype, v); });
  const Matrix answer = ask::rotate_layer(s, c.layer, c.positions, x, std::nullopt);
  require_shape(answer, x.rows(), x.cols(), "rotate");
  Check check = compare_entries(kNope, answer, x, Bound::exact("a NoPE layer returns its queries and keys as they are"));
  if (check.where.row) check.where.position = c.positions[static_cast<size_t>(*check.where.row)];
  check.note = fmt::format("layer {} declares no rotary (\"rotate\": null): its rotation is the identity", c.layer);
  return check;
}

Check blind_layer(Subject& s, const LayerCase& c, const BoundModel& model) {
  const Batch x = {c.tokens};
  const auto n = c.tokens.rows();
  const std::vector<Positions> counting = {module::counting(0, n)};
  Positions spread_out(static_cast<size_t>(n));
  for (Eigen::Index k = 0; k < n; ++k) spread_out[static_cast<size_t>(k)] = c.start + k * c.stride;
  const auto forward = [&](const std::vector<Positions>& at) {
    const Batch out = ask::forward_layer(s, c.layer, x, at, BoolMatrix::Constant(1, n, true));
    if (out.size() != 1 || out.front().rows() != n) {
      throw SubjectFailure(fmt::format("forward of layer {}: expected 1 sequence of {} rows", c.layer, n));
    }
    return out;
  };
  const Batch base = forward(counting), repeated = forward(counting), moved = forward({spread_out});
  Check check{kBlind};
  std::vector<std::pair<Eigen::Index, Eigen::Index>> rows;
  for (Eigen::Index r = 0; r < n; ++r) rows.emplace_back(r, r);
  module::worst_row(check, moved.front(), base.front(), rows, 0);
  check.bound = module::comparison_bound(s.info(), static_cast<int>(c.tokens.cols()), n, spread_out.back(),
                                         module::scale_of(x, {&base, &moved}), module::spread(base, repeated),
                                         model.factor(), module::ceiling_of({&base, &moved}));
  if (check.where.token) {
    check.where.position = counting.front()[static_cast<size_t>(*check.where.token)];
    check.where.other_position = spread_out[static_cast<size_t>(*check.where.token)];
  }
  check.where.label = fmt::format("layer {} at positions 0, 1, … and {}, {}, …", c.layer, c.start, c.start + c.stride);
  check.note = fmt::format("layer {} declares no rotary: its output cannot depend on the positions", c.layer);
  return check;
}

}  // namespace

Measurement layer_measure(Subject& s, const LayerCase& c, const BoundModel& model) {
  const auto& layers = layers_of(s.info());
  if (c.layer >= static_cast<int>(layers.size())) {
    throw InvalidInput(fmt::format("module.layer_schedule: layer {} of {} declared", c.layer, layers.size()));
  }
  const auto& rotate = layers[static_cast<size_t>(c.layer)].rotate;
  Measurement m;
  if (rotate && s.info().supports(Op::rotate)) m.checks.push_back(rotary_layer(s, c, *rotate, model));
  if (!rotate && s.info().supports(Op::rotate)) m.checks.push_back(nope_layer(s, c));
  // A temperature-tuned NoPE layer (Llama 4) sees positions through its queries' τ from floor_scale − 1 on:
  // below, it ignores them as any NoPE layer; above, attention.temperature_tuning judges it.
  const auto& tuning = layers[static_cast<size_t>(c.layer)].temperature_tuning;
  const bool blind = !tuning || c.start + c.stride * (c.tokens.rows() - 1) < reference::temperature_step(*tuning, 1);
  if (!rotate && blind && c.tokens.size() > 0 && s.info().supports(module::kOp)) {
    m.checks.push_back(blind_layer(s, c, model));
  }
  if (m.checks.empty()) {
    throw Refusal(fmt::format("layer {} is {}: nothing to ask a subject without {}", c.layer,
                              rotate ? "rotary" : "NoPE", rotate ? "rotate" : "rotate or forward"));
  }
  return m;
}

// Which declared setting a failing layer's rotation fits: another layer's,
// or its own base with another layer's scaling (and the reverse) — the
// swapped-settings bugs.
std::string layer_diagnose(Subject& s, const LayerCase& c, const BoundModel& model) {
  const auto& layers = layers_of(s.info());
  if (c.layer >= static_cast<int>(layers.size())) return {};
  const auto& own = layers[static_cast<size_t>(c.layer)].rotate;
  if (!s.info().supports(Op::rotate)) return {};
  std::vector<std::pair<std::string, std::optional<RotateConvention>>> candidates;
  for (size_t k = 0; k < layers.size(); ++k) {
    const auto& other = layers[k].rotate;
    if (static_cast<int>(k) == c.layer) continue;
    const bool same = (!other && !own) || (other && own && identify::describe(*other) == identify::describe(*own));
    if (same) continue;
    candidates.emplace_back(fmt::format("layer {}'s settings ({})", k, other ? identify::describe(*other) : "NoPE"), other);
    if (other && own) {
      RotateConvention mixed = *own;
      mixed.scaling = other->scaling;
      candidates.emplace_back(fmt::format("its own base with layer {}'s scaling ({})", k, identify::describe(mixed)),
                              mixed);
      mixed = *other;
      mixed.scaling = own->scaling;
      candidates.emplace_back(fmt::format("layer {}'s base with its own scaling ({})", k, identify::describe(mixed)),
                              mixed);
    }
  }
  // The witness, and a wide probe at a few positions: at the witness's own
  // size two candidates may agree (at d = 2 every base turns pair 0 alike).
  struct Probe {
    Positions positions;
    Matrix x;
  };
  std::vector<Probe> probes = {{c.positions, c.x}};
  probes.push_back({{1, 7, 100, 1000}, detail_probe_vectors(4, 64)});
  try {
    std::vector<Matrix> answers;
    for (size_t k = 0; k < probes.size(); ++k) {
      const Probe& p = probes[k];
      const Position length = *std::max_element(p.positions.begin(), p.positions.end()) + 1;
      try {
        answers.push_back(ask::rotate_layer(s, c.layer, p.positions, p.x, std::max(length, c.seq_len)));
      } catch (const Refusal&) {
        if (k == 0) throw;
        probes.resize(k);  // a width the subject does not take: the witness alone
        break;
      }
    }
    for (const auto& [what, candidate] : candidates) {
      double ratio = 0;
      for (size_t k = 0; k < probes.size(); ++k) {
        const Probe& p = probes[k];
        const Matrix& answer = answers[k];
        const Position length = std::max(*std::max_element(p.positions.begin(), p.positions.end()) + 1, c.seq_len);
        if (candidate) {
          const int dim = static_cast<int>(p.x.cols());
          const int r = reference::rotary_block(dim, *candidate);
          const Matrix expected = reference::rotary(p.positions, p.x, *candidate, length);
          const auto compared = rope::compare_pairs(
              as_layer(s.info(), *candidate), model, p.positions, p.x, answer, expected,
              reference::rotary_inv_freq(r, *candidate, reference::rotary_length(p.positions, length, *candidate)),
              *candidate, reference::rotary_magnitude(*candidate), "fit");
          ratio = std::max(ratio, compared.worst ? compared.worst_ratio : INFINITY);
        } else {
          const double tolerance = 4 * unit_roundoff(s.info().dtype) * p.x.cwiseAbs().maxCoeff();
          if ((answer - p.x).cwiseAbs().maxCoeff() > tolerance) ratio = INFINITY;
        }
      }
      if (ratio <= 1) {
        return fmt::format("layer {} (declared {}) rotates as {}: per-layer settings swapped or shared across layers "
                           "(llama.cpp #14367, vLLM PR #29111)",
                           c.layer, own ? identify::describe(*own) : "NoPE", what);
      }
    }
  } catch (const Refusal&) {
  } catch (const std::exception&) {
  }
  return {};
}

std::vector<PropertyImpl> properties() {
  return {define<LayerCase>("module.layer_schedule", {kRotary, kNope, kBlind}, layer_gen, layer_measure,
                            layer_diagnose)};
}

}  // namespace pecheck::module::layers
