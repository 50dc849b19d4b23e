#include "protocol/model_derive.h"

#include <fmt/format.h>

#include <algorithm>

#include "pecheck/core/op_table.h"
#include "pecheck/protocol/model_config.h"
#include "protocol/codec.h"
#include "protocol/declarations.h"
#include "protocol/rotate_declarations.h"

namespace pecheck::model {

namespace derive {

// The config field a derived params field comes from, for messages.
std::string source_of(std::string_view key) {
  if (key == "base") return "rope_theta (rope_local_base_freq, rope_parameters)";
  if (key == "scaling") return "rope_scaling / rope_parameters";
  if (key == "rotary_dim") return "head_dim × partial_rotary_factor (rotary_pct, rotary_dim)";
  if (key == "qk_rope_head_dim" || key == "qk_nope_head_dim") return "qk_rope_head_dim and qk_nope_head_dim (DeepSeek MLA)";
  if (key == "layout") return "model_type (the family's apply_rotary_pos_emb)";
  if (key == "window") return "sliding_window and layer_types";
  if (key == "chunk") return "attention_chunk_size";
  if (key == "softcap") return "attn_logit_softcapping";
  if (key == "scale") {
    return "query_pre_attn_scalar (Gemma 2), or DeepSeek MLA's (qk_nope_head_dim + qk_rope_head_dim)^−½ · "
           "yarn_get_mscale(rope_scaling.factor, rope_scaling.mscale_all_dim)²";
  }
  if (key == "dual_chunk") return "dual_chunk_attention_config and layer 0's rotary";
  if (key == "layers") return "layer_types and the rotary fields, layer by layer";
  if (key == "causal") return "a decoder's config (every family the reader knows is causal)";
  if (key == "positional") return "the rotary fields (relative positions)";
  return "the model config";
}

// Whether a field at `path`, or one inside it, was declared explicitly.
bool declared_at(const SubjectInfo& info, const std::string& path) {
  return std::any_of(info.declared.begin(), info.declared.end(), [&](const std::string& d) {
    return d == path || (d.size() > path.size() && d.starts_with(path) && (d[path.size()] == '.' || d[path.size()] == '['));
  });
}

std::string shown(const json& v) {
  std::string text = v.dump();
  return text.size() > 160 ? text.substr(0, 157) + "..." : text;
}

// One value shared by every layer, or nothing when layers differ.
template <class F>
std::optional<json> uniform(const ModelReading& r, F value) {
  std::optional<json> out;
  for (const LayerReading& l : r.layers) {
    json v = value(l);
    if (out && *out != v) return std::nullopt;
    out = std::move(v);
  }
  return out;
}

// A layer's rotary as params.rotate; a rotary over the whole head leaves rotary_dim out (the width of a
// declared head is then all of it, as a subject that rotates every feature it is given declares it).
json rotate_of(const LayerReading& l, int head_dim) {
  if (!l.rope) return nullptr;
  json out = process::rotate_json(*l.rope, true);
  if (l.rotary_dim == head_dim) out.erase("rotary_dim");
  return out;
}

// params.attention.dual_chunk from dual_chunk_attention_config, with layer
// 0's rotary (Qwen2's: every layer rotates alike; vLLM's get_rope builds one
// DualChunkRotaryEmbedding from rope_theta and the head size).
json dual_chunk_params(const ModelReading& r) {
  const DualChunk& dc = *r.dual_chunk;
  if (r.layers.empty() || !r.layers.front().rope) {
    process::bad("params.model.dual_chunk_attention_config",
                 "dual_chunk_attention_config is set but layer 0 has no rotary: dual chunk attention remaps rotary "
                 "positions");
  }
  json out = {{"chunk_size", dc.chunk_size}, {"local_size", dc.local_size},
              {"rotate", rotate_of(r.layers.front(), r.head_dim)}};
  if (dc.original_max_position_embeddings) out["original_max_position_embeddings"] = *dc.original_max_position_embeddings;
  return out;
}

// The params the reading implies for each op the subject offers.
json derived_params(const ModelReading& r, const SubjectInfo& info) {
  json params = json::object();
  json attention = json::object();
  const auto window = uniform(r, [](const LayerReading& l) { return l.window ? json(*l.window) : json(); });
  const auto chunk = uniform(r, [](const LayerReading& l) { return l.chunk ? json(*l.chunk) : json(); });
  if (window && !window->is_null()) attention["window"] = *window;
  if (chunk && !chunk->is_null()) attention["chunk"] = *chunk;
  if (r.softcap) attention["softcap"] = *r.softcap;
  if (r.scale) attention["scale"] = *r.scale;
  if (info.supports(Op::attention)) {
    // Dual chunk attention is the attention op's alone: the module's forward
    // and rotate cannot show it (apply_model_config refuses them).
    json own = attention;
    if (r.dual_chunk) own["dual_chunk"] = dual_chunk_params(r);
    if (!own.empty()) params["attention"] = own;
  }

  if (info.supports(Op::rotate)) {
    // A rotate request without "layer" is layer 0's rotation (pecheck's spelling, as the built-in layered
    // blocks answer it); each layer's own is judged through params.forward.layers with "layer": k.
    const json first = r.layers.empty() ? json() : rotate_of(r.layers.front(), r.head_dim);
    if (!first.is_null()) {
      json p = first;
      p["shapes"] = {{"d", r.head_dim}};  // queries and keys are head_dim wide
      // The positions the model is configured for (rope.position_domain).
      if (r.max_position_embeddings && !p.contains("max_position_embeddings")) {
        p["max_position_embeddings"] = *r.max_position_embeddings;
      }
      params["rotate"] = p;
    } else if (!declared_at(info, "params.rotate")) {
      process::bad("params.rotate",
                   "the model config's layer 0 has no rotary (NoPE), and a rotate request without \"layer\" is "
                   "layer 0's rotation: declare params.rotate as the rotation the subject's rotate applies");
    }
  }
  // The module op: the one decode's conventions are declared under (core/op_table.h).
  const Op module_op = declared_under(Op::decode);
  if (info.supports(module_op) || info.supports(Op::decode)) {
    json forward = attention;
    forward["causal"] = true;
    forward["positional"] = "relative";
    json layers = json::array();
    for (const LayerReading& l : r.layers) {
      json layer = {{"rotate", rotate_of(l, r.head_dim)}};
      if (l.temperature_tuning && layer["rotate"].is_null()) {  // Llama 4: NoPE layers only
        layer["attn_temperature_tuning"] = true;
        layer["attn_scale"] = l.temperature_tuning->attn_scale;
        layer["floor_scale"] = l.temperature_tuning->floor_scale;
      }
      if (l.window) layer["window"] = *l.window;  // a sliding layer
      if (l.chunk) layer["chunk"] = *l.chunk;     // a chunked layer
      layers.push_back(std::move(layer));
    }
    forward["layers"] = layers;
    params[std::string(name(module_op))] = forward;
  }
  return params;
}

}  // namespace derive

void apply_model_config(const json& config, SubjectInfo& info) {
  using namespace derive;
  const ModelReading r = read_model_config(config);
  if (!r.not_judged.empty()) {
    process::bad("params.model." + r.not_judged.front(),
                 fmt::format("the model config sets {}, which pecheck reads but cannot judge yet (issue 35's "
                             "conventions): a run would check less than the config says. `pecheck explain-config` "
                             "shows the reading",
                             fmt::format("{}", fmt::join(r.not_judged, ", "))));
  }
  if (r.dual_chunk && (info.supports(Op::rotate) || info.supports(declared_under(Op::decode)) || info.supports(Op::decode))) {
    process::bad("params.model.dual_chunk_attention_config",
                 "the model config sets dual_chunk_attention_config (Qwen2.5-1M), which pecheck judges on the attention "
                 "op alone (params.attention.dual_chunk: unrotated queries and keys in, the chunk-remapped rotary "
                 "applied inside); a module's forward or rotate cannot show its positions, so a run would check less "
                 "than the config says: offer the attention op only");
  }
  const json derived = derived_params(r, info);
  for (const auto& [op_name, fields] : derived.items()) {
    const auto op = parse_op(op_name);
    const ParamsCodec* codec = op ? params_codec(*op) : nullptr;
    if (!codec) continue;
    const std::string prefix = "params." + op_name;
    json merged = declared_at(info, prefix) ? codec->write(info) : json::object();
    for (const auto& [key, value] : fields.items()) {
      const std::string path = prefix + "." + key;
      // Declared shapes are what the subject supports, not a fact of the model: the subject's own win.
      if (!declared_at(info, path) || key == "shapes") {
        if (!declared_at(info, path)) merged[key] = value;
        continue;
      }
      const json mine = merged.contains(key) ? merged[key] : json();
      if (key == "layers" && mine.is_array() && value.is_array()) {
        // Layer by layer, naming the first that differs.
        if (mine.size() != value.size()) {
          process::bad(path, fmt::format("{} declares {} layers, but the model config has {} (num_hidden_layers): "
                                         "the declaration and the config contradict each other",
                                         path, mine.size(), value.size()));
        }
        for (std::size_t k = 0; k < mine.size(); ++k) {
          // Field by field: what the declaration leaves out of a layer (its window, say) the config gives.
          bool differs = false;
          for (const auto& [field, declared] : mine[k].items()) {
            differs |= !value[k].contains(field) ? !declared.is_null() : value[k][field] != declared;
          }
          if (differs) {
            process::bad(fmt::format("{}[{}]", path, k),
                         fmt::format("{}[{}] is {}, but the model config says {} (from {}): the declaration and the "
                                     "config contradict each other; correct the one that is wrong",
                                     path, k, shown(mine[k]), shown(value[k]), source_of(key)));
          }
        }
        merged[key] = value;  // agreeing on what both say, the config's layers are the fuller
        continue;
      }
      if (mine != value) {
        process::bad(path, fmt::format("{} is {}, but the model config says {} (from {}): the declaration and the "
                                       "config contradict each other; correct the one that is wrong",
                                       path, shown(mine), shown(value), source_of(key)));
      }
    }
    if (*op == Op::rotate) info.rotate = {};
    if (*op == Op::attention) info.attention = {};
    codec->read(merged, info);
  }
  info.declared.push_back("params.model");
}

}  // namespace pecheck::model
