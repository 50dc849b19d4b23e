// CLAIMS.md §10 — module.config_conformance: a module checked with its
// model config (params.model, --model-config) answers, layer by layer, as the
// config's reading (pecheck explain-config): each layer's rotary (base,
// scaling, rotary dim) or none (NoPE), and its attention kind — a sliding
// layer sees its window and nothing before it, a full layer sees every
// earlier token. The published bugs are readings gone wrong: vLLM PR #29111
// (Gemma 3's sliding layers given the global base and scaling), vLLM #49795
// (GPT-OSS's sliding_window applied to every layer though layer_types says
// full), vLLM #51756 (full layers windowed through a shared cache group).
//
// One layer k per case (requests carry "layer": k). Its positions are judged
// with module.layer_schedule's machinery (module/layers.h) against the
// config's reading, its attention with module.window_no_lookback's
// (module/window.h). The sub-checks:
//   layer's positions as the config reads  rotate(layer k) against the
//                                   reference of the config's rotary (or x
//                                   itself, NoPE); forward(layer k) of a NoPE
//                                   layer blind to positions
//   sliding layer within its window rows ≥ j + W unmoved when token j changes
//   sliding layer sees its window   row j + W − 1 moves
//   full layer sees every earlier token
//                                   row j + R + r moves, R the widest window
//                                   the config gives any layer (a full layer
//                                   windowed like the others does not)
//   chunked layer within its chunk, chunked layer sees its chunk
//                                   module.chunk_isolation's two checks (module/chunk.h)
#include <fmt/format.h>

#include <algorithm>

#include "module/chunk.h"
#include "module/layers.h"
#include "module/support.h"
#include "module/window.h"
#include "pecheck/property/identify.h"
#include "pecheck/property/registry.h"
#include "input_checks.h"

namespace pecheck::module::conformance {

namespace {

constexpr const char* kPositions = "layer's positions as the config reads";
constexpr const char* kWithin = "sliding layer within its window";
constexpr const char* kSees = "sliding layer sees its window";
constexpr const char* kFull = "full layer sees every earlier token";
constexpr const char* kChunkOthers = "chunked layer within its chunk";
constexpr const char* kChunkOwn = "chunked layer sees its chunk";

struct ConformanceCase {
  int layer = 0;
  layers::LayerCase positions;
  window::WindowCase attention;
  void validate() const {
    if (positions.layer != layer || attention.layer != layer) throw InvalidInput("one layer per case");
    positions.validate();
    attention.validate();
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ConformanceCase, layer, positions, attention)

const std::vector<LayerConvention>& layers_of(const SubjectInfo& s) {
  static const std::vector<LayerConvention> none;
  return s.forward ? s.forward->layers : none;
}

const LayerConvention& layer_at(const SubjectInfo& s, int layer) {
  const auto& all = layers_of(s);
  if (layer < 0 || layer >= static_cast<int>(all.size())) {
    throw InvalidInput(fmt::format("module.config_conformance: layer {} of {} in the config", layer, all.size()));
  }
  return all[static_cast<std::size_t>(layer)];
}

// The widest window (or chunk) any layer has: a full layer must see further.
Position widest(const SubjectInfo& s) {
  Position out = 1;
  for (const auto& l : layers_of(s)) out = std::max({out, l.window.value_or(1), l.chunk.value_or(1)});
  return out;
}

std::string kind_of(const LayerConvention& l) {
  if (l.window) return fmt::format("sliding, window {}", *l.window);
  if (l.chunk) return fmt::format("chunked, chunk {}", *l.chunk);
  return "full";
}

std::string rope_of(const LayerConvention& l) { return l.rotate ? identify::describe(*l.rotate) : "NoPE"; }

rc::Gen<ConformanceCase> conformance_gen(const GenContext& ctx) {
  const int count = static_cast<int>(layers_of(ctx.subject).size());
  if (count == 0) throw InvalidInput("module.config_conformance: the config declares no layer");
  return rc::gen::mapcat(rc::gen::inRange(0, count), [ctx](int layer) {
    const LayerConvention& l = layer_at(ctx.subject, layer);
    const Position reach = l.window ? *l.window - 1 : l.chunk ? *l.chunk : widest(ctx.subject);
    return rc::gen::apply(
        [layer](layers::LayerCase positions, window::WindowCase attention) {
          ConformanceCase c;
          c.layer = layer;
          c.positions = std::move(positions);
          c.attention = std::move(attention);
          return c;
        },
        layers::layer_case(ctx, layer), window::window_case(ctx, layer, reach));
  });
}

Measurement conformance_measure(Subject& s, const ConformanceCase& c, const BoundModel& model) {
  const LayerConvention& l = layer_at(s.info(), c.layer);
  Measurement m;
  // The layer's positions: module.layer_schedule's checks, under this claim's name.
  try {
    Measurement positions = layers::layer_measure(s, c.positions, model);
    for (Check& check : positions.checks) {
      check.note = fmt::format("{} (the config reads layer {} as {})", check.note, c.layer, rope_of(l));
      check.name = kPositions;
      m.checks.push_back(std::move(check));
    }
  } catch (const Refusal&) {
    // A layer whose positions the subject's ops cannot show (a rotary layer of a module without rotate):
    // its attention is still judged below.
  }
  if (l.window) {
    m.checks.push_back(window::past_window(s, c.attention, *l.window, model, kWithin));
    m.checks.push_back(window::reaches(s, c.attention, c.attention.changed + *l.window - 1, model, kSees,
                                       fmt::format("the oldest token of a window of {}", *l.window)));
  } else if (l.chunk) {
    for (Check& check : chunk::chunk_checks(s, c.attention, *l.chunk, model, kChunkOthers, kChunkOwn)) {
      m.checks.push_back(std::move(check));
    }
  } else {
    const Eigen::Index probe = c.attention.x.rows() - 1;
    m.checks.push_back(window::reaches(
        s, c.attention, probe, model, kFull,
        fmt::format("a full layer sees every earlier token; {} back is past every window the config gives",
                    probe - c.attention.changed)));
  }
  for (Check& check : m.checks) {
    check.where.label = fmt::format("layer {} ({}; {}){}", c.layer, kind_of(l), rope_of(l),
                                    check.where.label.empty() ? "" : ": " + check.where.label);
  }
  return m;
}

// Names the layer, what the config says of it and the field it comes from.
std::string conformance_diagnose(Subject& s, const ConformanceCase& c, const BoundModel& model) {
  const SubjectInfo& info = s.info();
  const LayerConvention& l = layer_at(info, c.layer);
  try {
    if (!l.window && !l.chunk) {
      const Eigen::Index probe = c.attention.x.rows() - 1;
      const Check full = window::reaches(s, c.attention, probe, model, kFull, "");
      if (!(full.error > model.value(full.bound))) {
        return fmt::format("layer {} is full attention in the config (layer_types / sliding_window_pattern), but its "
                           "row {} does not see token {}, {} tokens back: windowed like a sliding layer (vLLM #49795: "
                           "sliding_window applied to every layer; vLLM #51756: a full layer in a sliding cache group)",
                           c.layer, probe, c.attention.changed, probe - c.attention.changed);
      }
    }
    if (l.window) {
      const std::string text = window::window_diagnosis(
          s, c.attention, *l.window,
          fmt::format("sliding in the config: sliding_window = {}, layer_types / sliding_window_pattern", *l.window),
          model);
      if (!text.empty() && text.find("as declared") == std::string::npos &&
          text.find(fmt::format(", {} keys where", *l.window)) == std::string::npos) {
        return text;
      }
    }
    if (l.chunk) {
      const std::string text = chunk::chunk_diagnosis(
          s, c.attention, *l.chunk, "chunked in the config: attention_chunk_size", model);
      if (!text.empty() && text.find("the difference is elsewhere") == std::string::npos) return text;
    }
    const std::string swapped = layers::layer_diagnose(s, c.positions, model);
    if (!swapped.empty()) {
      return fmt::format("{} — the config reads layer {} as {} (rope_theta / rope_local_base_freq, rope_scaling, "
                         "partial_rotary_factor, no_rope_layers)",
                         swapped, c.layer, rope_of(l));
    }
  } catch (const std::exception&) {
  }
  return fmt::format("layer {}: the config reads it as {}; {}", c.layer, kind_of(l), rope_of(l));
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {define<ConformanceCase>("module.config_conformance",
                                  {kPositions, kWithin, kSees, kFull, kChunkOthers, kChunkOwn}, conformance_gen,
                                  conformance_measure, conformance_diagnose)};
}

}  // namespace pecheck::module::conformance
