// What `pecheck explain-config` prints: a config's reading as the JSON form
// of SUBJECT-PROTOCOL.md "Model configs", or in words. Pure functions of the
// reading.
#include <fmt/format.h>

#include "pecheck/protocol/model_config.h"
#include "protocol/rotate_declarations.h"

namespace pecheck::model {

std::string_view name(AttentionKind kind) {
  switch (kind) {
    case AttentionKind::full: return "full";
    case AttentionKind::sliding: return "sliding";
    case AttentionKind::chunked: return "chunked";
    case AttentionKind::linear: return "linear";
  }
  return "full";
}

namespace writer {

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(); }

json rope_json(const LayerReading& l) {
  if (!l.rope) return nullptr;
  const json canonical = process::rotate_json(*l.rope, true);
  json out = {{"base", l.rope->base},
              {"rotary_dim", l.rotary_dim},
              {"layout", std::string(name(l.rope->layout))},
              {"scaling", canonical.contains("scaling") ? canonical["scaling"] : json()}};
  if (canonical.contains("mrope_section")) out["mrope_section"] = canonical["mrope_section"];
  if (canonical.contains("mrope_interleaved")) out["mrope_interleaved"] = canonical["mrope_interleaved"];
  // DeepSeek MLA: rotary_dim is the rope slice, the last qk_rope_head_dim features of the head.
  if (l.rope->decoupled()) {
    out["qk_rope_head_dim"] = *l.rope->qk_rope_head_dim;
    out["qk_nope_head_dim"] = l.rope->qk_nope_head_dim.value_or(0);
  }
  return out;
}

std::string rope_words(const LayerReading& l) {
  if (!l.rope) return l.attention == AttentionKind::linear ? "no rotary (linear attention)" : "NoPE";
  const RopeScaling& s = l.rope->scaling;
  std::string scaling = "unscaled";
  if (s.type != ScalingType::none) {
    scaling = s.type == ScalingType::longrope ? "longrope" : fmt::format("{} ×{:g}", name(s.type), s.factor);
  }
  std::string text = fmt::format("base {:g} {}, rotary {} {}", l.rope->base, scaling, l.rotary_dim, name(l.rope->layout));
  if (l.rope->multi_axis()) {
    text += fmt::format(", mrope [{}]", fmt::join(l.rope->mrope_section, ", "));
  }
  if (l.rope->decoupled()) {
    text += fmt::format(" on the last {} of {} + {} features (MLA; the first {} pass through)",
                        *l.rope->qk_rope_head_dim, l.rope->qk_nope_head_dim.value_or(0), *l.rope->qk_rope_head_dim,
                        l.rope->qk_nope_head_dim.value_or(0));
  }
  return text;
}

std::string row_words(const LayerReading& l) {
  std::string kind(name(l.attention));
  if (l.window) kind += fmt::format(" W={}", *l.window);
  if (l.chunk) kind += fmt::format(" C={}", *l.chunk);
  std::string text = fmt::format("{:<16} {}", kind, rope_words(l));
  if (l.temperature_tuning) {
    text += fmt::format("; temperature tuning (attn_scale {:g}, floor_scale {:g})", l.temperature_tuning->attn_scale,
                        l.temperature_tuning->floor_scale);
  }
  if (l.kv_shared_with) text += fmt::format("; keys and values of layer {}", *l.kv_shared_with);
  return text;
}

// dual_chunk_attention_config as read: null, or its chunk sizes.
json dual_chunk_json(const ModelReading& r) {
  if (!r.dual_chunk) return nullptr;
  const DualChunk& dc = *r.dual_chunk;
  return {{"chunk_size", dc.chunk_size},
          {"local_size", dc.local_size},
          {"original_max_position_embeddings",
           dc.original_max_position_embeddings ? json(*dc.original_max_position_embeddings) : json()}};
}

}  // namespace writer

json reading_json(const ModelReading& r) {
  using namespace writer;
  json model = {{"heads", r.heads},
                {"kv_heads", r.kv_heads},
                {"head_dim", r.head_dim},
                {"hidden_size", r.hidden_size == 0 ? json() : json(r.hidden_size)},
                {"layers", static_cast<int>(r.layers.size())},
                {"max_position_embeddings", r.max_position_embeddings ? json(*r.max_position_embeddings) : json()},
                {"model_type", r.model_type},
                {"known_family", r.known_family},
                {"softcap", optional_number(r.softcap)},
                {"scale", optional_number(r.scale)},
                {"sinks", r.sinks},
                {"dual_chunk", dual_chunk_json(r)},
                {"not_judged", r.not_judged},
                {"defaulted", r.defaulted},
                {"notes", r.notes}};
  if (r.qk_rope_head_dim) {  // DeepSeek MLA
    model["qk_rope_head_dim"] = *r.qk_rope_head_dim;
    model["qk_nope_head_dim"] = r.qk_nope_head_dim.value_or(0);
    model["v_head_dim"] = r.v_head_dim ? json(*r.v_head_dim) : json();
  }
  json layers = json::array();
  for (const LayerReading& l : r.layers) {
    json temperature;
    if (l.temperature_tuning) {
      temperature = {{"attn_scale", l.temperature_tuning->attn_scale}, {"floor_scale", l.temperature_tuning->floor_scale}};
    }
    layers.push_back({{"index", l.index},
                      {"attention", std::string(name(l.attention))},
                      {"window", l.window ? json(*l.window) : json()},
                      {"chunk", l.chunk ? json(*l.chunk) : json()},
                      {"rope", rope_json(l)},
                      {"temperature_tuning", temperature},
                      {"kv_shared_with", l.kv_shared_with ? json(*l.kv_shared_with) : json()}});
  }
  return {{"model", model}, {"layers", layers}, {"unread", r.unread}};
}

std::string reading_text(const ModelReading& r) {
  using namespace writer;
  std::string out = fmt::format("model_type {}{}\n", r.model_type.empty() ? "(none)" : r.model_type,
                                r.known_family ? "" : " (not a family the reader knows)");
  out += fmt::format("heads {}, kv_heads {}, head_dim {}, hidden_size {}, {} layers, max_position_embeddings {}\n",
                     r.heads, r.kv_heads, r.head_dim, r.hidden_size, r.layers.size(),
                     r.max_position_embeddings ? fmt::format("{}", *r.max_position_embeddings) : "not given");
  if (r.qk_rope_head_dim) {
    out += fmt::format("MLA heads: qk_nope_head_dim {} + qk_rope_head_dim {} (queries and keys), v_head_dim {}\n",
                       r.qk_nope_head_dim.value_or(0), *r.qk_rope_head_dim,
                       r.v_head_dim ? fmt::format("{}", *r.v_head_dim) : "not given");
  }
  if (r.scale) out += fmt::format("logit scale {:.6g}\n", *r.scale);
  if (r.softcap) out += fmt::format("logit soft-cap {:g}\n", *r.softcap);
  if (r.sinks) out += "learned attention sinks (one logit per head, from the weights)\n";
  if (r.dual_chunk) {
    out += fmt::format("dual chunk attention: chunk_size {}, local_size {} (chunks of {}), judged on the attention "
                       "op with layer 0's rotary\n",
                       r.dual_chunk->chunk_size, r.dual_chunk->local_size, r.dual_chunk->chunk_len());
  }
  // One line per layer; a run of identical layers is still one line each, as the
  // spec asks, so that `grep 'layer 17'` finds every layer.
  for (const LayerReading& l : r.layers) out += fmt::format("layer {:>3}: {}\n", l.index, row_words(l));
  if (!r.defaulted.empty()) {
    out += fmt::format("defaults of the family's config class (absent from the file): {}\n", fmt::join(r.defaulted, ", "));
  }
  for (const std::string& note : r.notes) out += "note: " + note + "\n";
  if (!r.not_judged.empty()) {
    out += fmt::format("read but not yet judged (a run refuses them): {}\n", fmt::join(r.not_judged, ", "));
  }
  out += fmt::format("unread ({}): {}\n", r.unread.size(), r.unread.empty() ? "none" : fmt::format("{}", fmt::join(r.unread, ", ")));
  return out;
}

}  // namespace pecheck::model
