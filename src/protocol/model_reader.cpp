// pecheck's reader of a model's config.json (SUBJECT-PROTOCOL.md "Model
// configs"). Every field is read as the published model code reads it; the
// comment beside each names the code. Fields the reader does not read are
// listed (ModelReading::unread), never dropped silently.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "pecheck/core/bounded_file.h"
#include "pecheck/core/escape.h"
#include "pecheck/core/strict_json.h"
#include "pecheck/protocol/model_config.h"
#include "protocol/model_families.h"
#include "protocol/rotate_declarations.h"

namespace pecheck::model {

namespace reader {

[[noreturn]] void fail(const std::string& field, const std::string& what) {
  throw ModelConfigError("model." + field, fmt::format("model config: {}: {}", field, what));
}

std::string shown(const json& v) {
  std::string text = v.dump();
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return valid_utf8(text);
}

// One config object, read field by field: each field asked for is recorded as
// read; a field the file leaves out (or writes null) falls back on the
// family's configuration-class default, recorded as defaulted.
class Fields {
 public:
  Fields(const json& object, const json& defaults, std::string prefix, ModelReading& out)
      : object_(object), defaults_(defaults), prefix_(std::move(prefix)), out_(out) {}

  // The value of `key` (or of its alias, transformers' attribute_map), its
  // default, or nullptr.
  const json* get(std::string_view key, std::string_view alias = {}) {
    read_.insert(std::string(key));
    if (!alias.empty()) read_.insert(std::string(alias));
    bool null_written = false;
    for (std::string_view k : {key, alias}) {
      if (k.empty()) continue;
      const auto it = object_.find(std::string(k));
      if (it != object_.end() && !it->is_null()) return &*it;
      null_written = null_written || it != object_.end();
    }
    // null written is the field set to None (Mistral v0.2's sliding_window), not left out.
    if (null_written) return nullptr;
    const auto d = defaults_.find(std::string(key));
    if (d != defaults_.end()) {
      out_.defaulted.push_back(prefix_ + std::string(key));
      return &*d;
    }
    return nullptr;
  }
  bool written(std::string_view key) const {
    const auto it = object_.find(std::string(key));
    return it != object_.end() && !it->is_null();
  }

  std::optional<std::int64_t> integer(std::string_view key, std::int64_t min, std::string_view alias = {}) {
    const json* v = get(key, alias);
    if (!v) return std::nullopt;
    if (v->is_number_float() && std::floor(v->get<double>()) == v->get<double>() && std::isfinite(v->get<double>())) {
      const double x = v->get<double>();
      if (x >= static_cast<double>(min) && x < 1e15) return static_cast<std::int64_t>(x);
    }
    if (!v->is_number_integer() || v->get<std::int64_t>() < min) {
      fail(prefix_ + std::string(key), fmt::format("must be an integer ≥ {}, got {}", min, shown(*v)));
    }
    return v->get<std::int64_t>();
  }
  std::optional<double> number(std::string_view key, std::string_view alias = {}) {
    const json* v = get(key, alias);
    if (!v) return std::nullopt;
    if (!v->is_number() || !std::isfinite(v->get<double>())) {
      fail(prefix_ + std::string(key), fmt::format("must be a finite number, got {}", shown(*v)));
    }
    return v->get<double>();
  }
  std::optional<double> positive(std::string_view key, std::string_view alias = {}) {
    const auto v = number(key, alias);
    if (v && !(*v > 0)) fail(prefix_ + std::string(key), fmt::format("must be > 0, got {:g}", *v));
    return v;
  }
  // A flag; Llama 4's first configs wrote attn_temperature_tuning as a number (4): any non-zero number is on.
  std::optional<bool> flag(std::string_view key) {
    const json* v = get(key);
    if (!v) return std::nullopt;
    if (v->is_boolean()) return v->get<bool>();
    if (v->is_number()) return v->get<double>() != 0;
    fail(prefix_ + std::string(key), fmt::format("must be true or false, got {}", shown(*v)));
  }
  std::string at(std::string_view key) const { return prefix_ + std::string(key); }

  // The fields of the object nobody asked for, prefixed.
  std::vector<std::string> unread() const {
    std::vector<std::string> out;
    for (const auto& [key, value] : object_.items()) {
      if (!read_.contains(key)) out.push_back(prefix_ + valid_utf8(key.substr(0, 200)));
    }
    return out;
  }

 private:
  const json& object_;
  const json& defaults_;
  std::string prefix_;
  ModelReading& out_;
  std::set<std::string, std::less<>> read_;
};

AttentionKind kind_of(const json& v, const std::string& at) {
  // transformers' layer_type_validation names (configuration_utils.py ALLOWED_LAYER_TYPES).
  if (v == "full_attention") return AttentionKind::full;
  if (v == "sliding_attention") return AttentionKind::sliding;
  if (v == "chunked_attention") return AttentionKind::chunked;
  if (v == "linear_attention") return AttentionKind::linear;
  fail(at, fmt::format("must hold full_attention, sliding_attention, chunked_attention or linear_attention, got {}",
                       shown(v)));
}

// DeepSeek's yarn_get_mscale (modeling_deepseek_v3.py): 0.1·m·ln(F) + 1 for F > 1, else 1.
double yarn_get_mscale(double factor, double mscale) { return factor <= 1 ? 1.0 : 0.1 * mscale * std::log(factor) + 1.0; }

// The rotary of one layer kind as the protocol's params.rotate, read by the
// same code that reads a hello's (so a rope_scaling dict means the same in
// both places).
// An MLA head (qk_nope, qk_rope) is the decoupled rotary: its rope slice
// turns, at the slice's width, with this base, layout and scaling.
RotateConvention rope_convention(double base, int rotary_dim, Layout layout, const json* scaling,
                                 std::optional<Position> max_position, std::optional<Position> beside_original,
                                 const json* mrope_section, const std::string& scaling_field,
                                 std::optional<std::pair<int, int>> mla = std::nullopt) {
  json p = {{"base", base}, {"layout", std::string(name(layout))}};
  if (mla) {
    p["qk_nope_head_dim"] = mla->first;
    p["qk_rope_head_dim"] = mla->second;
  } else {
    p["rotary_dim"] = rotary_dim;
  }
  if (max_position) p["max_position_embeddings"] = *max_position;
  if (beside_original) p["original_max_position_embeddings"] = *beside_original;
  if (mrope_section) p["mrope_section"] = *mrope_section;
  if (scaling) p["scaling"] = *scaling;
  std::vector<std::string> declared;
  try {
    RotateConvention c = process::read_rotate_convention(p, "rope", declared);
    // The context length matters to LongRoPE's attention factor alone; elsewhere it is no part of the rotary.
    if (c.scaling.type != ScalingType::longrope) c.max_position_embeddings.reset();
    return c;
  } catch (const BadDeclaration& e) {
    fail(scaling_field, e.what());
  }
}

// rope_scaling / rope_parameters without the keys transformers v5 keeps there
// beside the scaling proper (rope_theta, partial_rotary_factor), which the
// reader takes as the base and the rotary width; null when nothing but the
// default type remains.
struct Rope {
  std::optional<double> theta, partial;
  std::optional<json> scaling;
};
Rope split_rope(const json& v, const std::string& at) {
  if (!v.is_object()) fail(at, fmt::format("must be an object, got {}", shown(v)));
  Rope r;
  json rest = json::object();
  for (const auto& [key, value] : v.items()) {
    if (key == "rope_theta" || key == "partial_rotary_factor") {
      if (!value.is_number() || !(value.get<double>() > 0)) fail(at + "." + key, "must be a number > 0");
      (key == "rope_theta" ? r.theta : r.partial) = value.get<double>();
    } else {
      rest[key] = value;
    }
  }
  const json type = rest.contains("rope_type") ? rest["rope_type"] : rest.contains("type") ? rest["type"] : json();
  std::size_t others = 0;
  for (const auto& [key, value] : rest.items()) others += key != "type" && key != "rope_type";
  // NTK-by-alpha ({"type": "dynamic", "alpha": a}: tencent Hunyuan's modeling_hunyuan.py
  // HunYuanDynamicNTKAlphaRotaryEmbedding, base·a^(d/(d−2)) at every length): a fixed
  // NTK base, pecheck's "ntk" with factor a (SUBJECT-PROTOCOL.md "New conventions").
  if (type == "dynamic" && rest.contains("alpha") && !rest.contains("factor")) {
    const json& alpha = rest["alpha"];
    if (!alpha.is_number() || !(alpha.get<double>() > 0)) fail(at + ".alpha", "must be a number > 0");
    json ntk = {{"type", "ntk"}, {"factor", alpha}};
    for (const auto& [key, value] : rest.items()) {
      if (key != "type" && key != "rope_type" && key != "alpha") ntk[key] = value;
    }
    rest = std::move(ntk);
  }
  // {"rope_type": "default"} (with or without rope_theta) is no scaling.
  const bool plain = type == "default" && others == 0;
  if (!plain && !rest.empty()) r.scaling = rest;
  return r;
}

bool layer_type_key(const std::string& key) {
  return key == "full_attention" || key == "sliding_attention" || key == "chunked_attention";
}

// The object the reader reads, and whose rules: a multimodal config keeps
// its text model in text_config (Gemma 3, Llama 4, Qwen2-VL in transformers
// ≥ 4.52), and that is what the reader reads; the rest (vision_config, token
// ids) is listed as unread.
struct TextConfig {
  const json* text = nullptr;
  std::string prefix;
  std::string model_type;
  const Family* family = nullptr;
};

TextConfig text_config(const json& top, ModelReading& out) {
  TextConfig c{&top, "", "", nullptr};
  const std::string outer_type =
      top.contains("model_type") && top["model_type"].is_string() ? top["model_type"].get<std::string>() : "";
  if (top.contains("text_config") && !top["text_config"].is_null()) {
    if (!top["text_config"].is_object()) fail("text_config", fmt::format("must be an object, got {}", shown(top["text_config"])));
    c.text = &top["text_config"];
    c.prefix = "text_config.";
    for (const auto& [key, value] : top.items()) {
      if (key != "text_config" && key != "model_type") out.unread.push_back(valid_utf8(key.substr(0, 200)));
    }
  }
  const json& text = *c.text;
  c.model_type = text.contains("model_type") && text["model_type"].is_string() ? text["model_type"].get<std::string>()
                                                                                : outer_type;
  c.family = find_family(c.model_type);
  // A text config without its own model_type, or a flat config of a family
  // whose text model has its own config class (gemma3 → Gemma3TextConfig).
  if (!c.family && find_family(c.model_type + "_text")) c.family = find_family(c.model_type + "_text");
  out.model_type = c.model_type;
  out.known_family = c.family != nullptr;
  if (!c.family) {
    out.notes.push_back(fmt::format("model_type {} is not one the reader knows: read with Llama's rules (halves, "
                                    "rope_theta, a sliding_window on every layer as Mistral's code applies it)",
                                    c.model_type.empty() ? "(none)" : valid_utf8(c.model_type.substr(0, 100))));
    c.family = &fallback_family();
  }
  return c;
}

// Shapes (configuration_<family>.py; GPT-J's and Falcon's attribute_map spell
// them n_head, n_layer, n_embd, n_positions). Returns the number of layers.
int read_shapes(Fields& f, ModelReading& out, const std::string& model_type) {
  const auto heads = f.integer("num_attention_heads", 1, "n_head");
  const auto layers = f.integer("num_hidden_layers", 1, "n_layer");
  const auto hidden = f.integer("hidden_size", 1, "n_embd");
  if (!heads) fail(f.at("num_attention_heads"), "is missing: the reader needs the number of query heads");
  if (!layers) fail(f.at("num_hidden_layers"), "is missing: the reader needs the number of layers");
  if (*layers > 4096) fail(f.at("num_hidden_layers"), fmt::format("{} layers: at most 4096 are read", *layers));
  out.heads = static_cast<int>(*heads);
  out.hidden_size = hidden ? static_cast<int>(*hidden) : 0;
  // num_key_value_heads defaults to num_attention_heads (LlamaConfig); Falcon
  // calls it num_kv_heads and has one kv head under multi_query unless
  // new_decoder_architecture (modeling_falcon.py FalconAttention).
  auto kv = f.integer("num_key_value_heads", 1, "num_kv_heads");
  if (model_type == "falcon") {
    const bool multi_query = f.flag("multi_query").value_or(true);
    const bool new_arch = f.flag("new_decoder_architecture").value_or(false);
    if (!new_arch && multi_query) kv = 1;
    else if (!new_arch) kv = out.heads;
  }
  out.kv_heads = static_cast<int>(kv.value_or(out.heads));
  if (out.heads % out.kv_heads != 0) {
    fail(f.at("num_key_value_heads"), fmt::format("{} kv heads do not divide {} query heads", out.kv_heads, out.heads));
  }
  // head_dim, else hidden_size / num_attention_heads (LlamaAttention: getattr(config, "head_dim", ...)).
  if (auto v = f.integer("head_dim", 1)) {
    out.head_dim = static_cast<int>(*v);
  } else {
    if (!hidden) fail(f.at("hidden_size"), "is missing, and no head_dim: the reader needs the width of a head");
    out.head_dim = static_cast<int>(*hidden / *heads);
  }
  out.max_position_embeddings = f.integer("max_position_embeddings", 1, "n_positions");
  return static_cast<int>(*layers);
}

// DeepSeek's multi-head latent attention (configuration_deepseek_v3.py): a
// query/key head is qk_nope_head_dim features that do not rotate followed by
// qk_rope_head_dim that do (DeepseekV3Attention.forward: q_pass, q_rot =
// split(q, [qk_nope_head_dim, qk_rope_head_dim]); query = cat(q_pass, q_rot));
// values are v_head_dim wide. Judged as the decoupled rotary (rope.decoupled,
// SUBJECT-PROTOCOL.md "New conventions"): the rotary below is the rope slice's.
struct Mla {
  std::optional<std::int64_t> qk_rope, qk_nope;
};

Mla read_mla(Fields& f, ModelReading& out, const std::string& model_type) {
  Mla m;
  if (f.written("qk_rope_head_dim") || model_type == "deepseek_v2" || model_type == "deepseek_v3") {
    m.qk_rope = f.integer("qk_rope_head_dim", 2);
    m.qk_nope = f.integer("qk_nope_head_dim", 0);
    const auto v = f.integer("v_head_dim", 1);
    if (!m.qk_rope) fail(f.at("qk_rope_head_dim"), "is missing: an MLA head needs the width of its rotating slice");
    if (!m.qk_nope) {
      fail(f.at("qk_nope_head_dim"), "is missing: an MLA head is qk_nope_head_dim + qk_rope_head_dim features");
    }
    // A head's features are ints everywhere after this; published heads are 64 + 128.
    for (const auto& [field, value] : {std::pair{"qk_rope_head_dim", *m.qk_rope}, {"qk_nope_head_dim", *m.qk_nope},
                                       {"v_head_dim", v.value_or(1)}}) {
      if (value > (1 << 16)) fail(f.at(field), fmt::format("must be at most 65536, got {}", value));
    }
    if (*m.qk_rope % 2 != 0) {
      fail(f.at("qk_rope_head_dim"), fmt::format("must be even (features rotate in pairs), got {}", *m.qk_rope));
    }
    out.head_dim = static_cast<int>(*m.qk_rope + *m.qk_nope);
    out.qk_rope_head_dim = static_cast<int>(*m.qk_rope);
    out.qk_nope_head_dim = static_cast<int>(*m.qk_nope);
    if (v) out.v_head_dim = static_cast<int>(*v);
  }
  return m;
}

// Attention conventions shared by every layer.
void read_attention_conventions(Fields& f, ModelReading& out, const std::string& model_type) {
  // query_pre_attn_scalar: Gemma 2/3 scale logits by query_pre_attn_scalar^−½ (modeling_gemma2.py).
  if (auto v = f.positive("query_pre_attn_scalar")) out.scale = 1.0 / std::sqrt(*v);
  // attn_logit_softcapping: s → c·tanh(s/c) before the mask (Gemma 2, modeling_gemma2.py eager_attention_forward).
  if (auto v = f.number("attn_logit_softcapping")) {
    if (*v > 0) out.softcap = *v;
  }
  // GPT-OSS: learned per-head sinks join every softmax (GptOssAttention.sinks); the config has no field
  // for them, the family has them.
  out.sinks = model_type == "gpt_oss";
}

// The rotary's fields, before any layer is given one.
struct RopeFields {
  double theta = 10000.0;
  std::optional<double> partial;
  std::optional<std::int64_t> rotary_dim_field;
  std::map<std::string, Rope> per_kind;  // rope_parameters keyed by layer type
  Rope shared;
  std::optional<std::int64_t> beside_original;
  const json* mrope_section = nullptr;
  Layout layout = Layout::halves;
  bool alibi = false;
};

// The rotary (modeling_rope_utils.py): rope_theta (GPT-NeoX: rotary_emb_base),
// rope_scaling — or transformers v5's rope_parameters, one dict, or one per
// layer type — and the rotating width: partial_rotary_factor (Phi, Phi-3,
// StableLM: int(head_dim·factor)), rotary_pct (GPT-NeoX: int(head_dim·pct)),
// rotary_dim (GPT-J: a width; null is the whole head).
// (GPT-NeoX's names are its own: another family's rotary_pct, e.g. Cohere 2's, is not read by its code.)
RopeFields read_rope_fields(Fields& f, ModelReading& out, const Family& family, const std::string& model_type,
                            bool mla) {
  RopeFields r;
  const bool neox = model_type == "gpt_neox";
  r.theta = f.positive("rope_theta", neox ? "rotary_emb_base" : "").value_or(10000.0);
  r.partial = f.positive("partial_rotary_factor", neox ? "rotary_pct" : "");
  if (model_type == "gptj") r.rotary_dim_field = f.integer("rotary_dim", 2);
  if (const json* v = f.get("rope_scaling")) r.shared = split_rope(*v, f.at("rope_scaling"));
  if (const json* v = f.get("rope_parameters")) {
    if (f.written("rope_scaling")) fail(f.at("rope_parameters"), "and rope_scaling are both given: give one");
    bool keyed = v->is_object() && !v->empty();
    if (keyed) {
      for (const auto& [key, value] : v->items()) keyed = keyed && layer_type_key(key);
    }
    if (keyed) {
      for (const auto& [key, value] : v->items()) r.per_kind[key] = split_rope(value, f.at("rope_parameters." + key));
    } else {
      r.shared = split_rope(*v, f.at("rope_parameters"));
    }
  }
  if (r.shared.theta) r.theta = *r.shared.theta;
  if (r.shared.partial) r.partial = r.shared.partial;
  // original_max_position_embeddings beside rope_scaling (Phi-3's LongRoPE L).
  r.beside_original = f.integer("original_max_position_embeddings", 1);
  r.mrope_section = f.get("mrope_section");
  // DeepSeek-V3's rope_interleave (default true) chooses the interleave-then-halves
  // rotation; false is rotate_half.
  r.layout = family.layout;
  // An MLA config of a family the reader does not know (a DeepSeek derivative whose auto_map
  // names DeepSeek's own modeling_deepseek.py): that code's apply_rotary_pos_emb regroups the
  // pairs (2i, 2i+1) into halves before rotate_half, as transformers' V3 does.
  if (mla && !out.known_family) {
    r.layout = Layout::interleave_then_halves;
    out.notes.push_back("an MLA head (qk_rope_head_dim) of an unknown family: its rope slice read as DeepSeek's "
                        "modeling_deepseek.py rotates it (interleave_then_halves; rope_interleave false: halves)");
  }
  if (auto v = f.flag("rope_interleave"); v && !*v) r.layout = Layout::halves;
  // Falcon's alibi: an ALiBi bias instead of rotary positions (modeling_falcon.py).
  r.alibi = model_type == "falcon" && f.flag("alibi").value_or(false);
  if (r.alibi) out.not_judged.push_back(f.at("alibi"));
  return r;
}

// Llama 4 (configuration_llama4.py): no_rope_layers[i] = 1 where layer i
// uses RoPE, 0 for NoPE; by default every no_rope_layer_interval-th layer
// (i + 1) % interval == 0 is NoPE.
void read_llama4_nope_layers(Fields& f, std::vector<bool>& uses_rope) {
  const int n = static_cast<int>(uses_rope.size());
  const json* list = f.get("no_rope_layers");
  const auto interval = f.integer("no_rope_layer_interval", 1);
  if (list && list->is_array() && !list->empty()) {
    if (static_cast<int>(list->size()) < n) {
      fail(f.at("no_rope_layers"), fmt::format("has {} entries for {} layers", list->size(), n));
    }
    for (int i = 0; i < n; ++i) {
      const json& x = (*list)[static_cast<std::size_t>(i)];
      if (!x.is_number_integer() && !x.is_boolean()) fail(f.at("no_rope_layers"), "must hold 0 (NoPE) or 1 (RoPE)");
      uses_rope[i] = x.is_boolean() ? x.get<bool>() : x.get<std::int64_t>() != 0;
    }
  } else if (interval) {
    for (int i = 0; i < n; ++i) uses_rope[i] = (i + 1) % *interval != 0;
  }
}

// Each layer's attention kind where the config has no layer_types: the family's rule.
void kinds_by_rule(Fields& f, LayerRule rule, bool windowed, const std::vector<bool>& uses_rope,
                   std::vector<AttentionKind>& kinds) {
  const int n = static_cast<int>(kinds.size());
  switch (rule) {
    case LayerRule::uniform:
      // MistralAttention / Phi3Attention: sliding_window=config.sliding_window on every layer.
      if (windowed) std::fill(kinds.begin(), kinds.end(), AttentionKind::sliding);
      break;
    case LayerRule::qwen2: {
      // configuration_qwen2.py: sliding_window = sliding_window if use_sliding_window else None;
      // layer i is sliding when sliding_window is set and i >= max_window_layers.
      const bool use = f.flag("use_sliding_window").value_or(false);
      const auto from = f.integer("max_window_layers", 0);
      if (use && windowed) {
        for (int i = 0; i < n; ++i) kinds[i] = i >= from.value_or(0) ? AttentionKind::sliding : AttentionKind::full;
      }
      break;
    }
    case LayerRule::alternate:
      // configuration_gemma2.py, configuration_gpt_oss.py: sliding where bool((i + 1) % 2).
      for (int i = 0; i < n; ++i) kinds[i] = (i + 1) % 2 ? AttentionKind::sliding : AttentionKind::full;
      break;
    case LayerRule::pattern: {
      // configuration_gemma3.py, configuration_cohere2.py: sliding where bool((i + 1) % sliding_window_pattern).
      const auto pattern = f.integer("sliding_window_pattern", 1);
      for (int i = 0; i < n; ++i) {
        kinds[i] = pattern && (i + 1) % *pattern == 0 ? AttentionKind::full : AttentionKind::sliding;
      }
      break;
    }
    case LayerRule::llama4: {
      // configuration_llama4.py: layer_types = chunked_attention for RoPE layers, full for NoPE.
      const auto chunk = f.integer("attention_chunk_size", 1);
      for (int i = 0; i < n; ++i) kinds[i] = uses_rope[i] && chunk ? AttentionKind::chunked : AttentionKind::full;
      break;
    }
    case LayerRule::none: break;
  }
}

// The layers' attention kinds, which of them rotate, and their window and chunk.
struct LayerKinds {
  std::vector<AttentionKind> kinds;
  std::vector<bool> uses_rope;
  std::optional<std::int64_t> window, chunk;
  bool has(AttentionKind kind) const { return std::find(kinds.begin(), kinds.end(), kind) != kinds.end(); }
};

LayerKinds read_layer_kinds(Fields& f, ModelReading& out, const Family& family, int n, bool alibi) {
  LayerKinds k{std::vector<AttentionKind>(n, AttentionKind::full), std::vector<bool>(n, !alibi), {}, {}};
  k.window = f.integer("sliding_window", 1);
  if (family.rule == LayerRule::llama4) read_llama4_nope_layers(f, k.uses_rope);
  if (const json* types = f.get("layer_types")) {
    if (!types->is_array() || static_cast<int>(types->size()) != n) {
      fail(f.at("layer_types"), fmt::format("must list one type per layer ({}), got {}", n, shown(*types)));
    }
    for (int i = 0; i < n; ++i) k.kinds[i] = kind_of((*types)[static_cast<std::size_t>(i)], f.at("layer_types"));
  } else {
    kinds_by_rule(f, family.rule, k.window.has_value(), k.uses_rope, k.kinds);
  }
  if (family.rule == LayerRule::qwen2 && f.written("layer_types")) {
    f.get("use_sliding_window");
    f.get("max_window_layers");
  }
  if (k.has(AttentionKind::chunked)) {
    k.chunk = f.integer("attention_chunk_size", 1);
    if (!k.chunk) fail(f.at("attention_chunk_size"), "is missing, but layer_types has chunked_attention layers");
  }
  if (k.has(AttentionKind::sliding) && !k.window) {
    fail(f.at("sliding_window"), "is missing or null, but layers are sliding_attention");
  }
  // Cohere 2 (modeling_cohere2.py): only sliding layers rotate; the full ones have no positions.
  if (!family.rope_on_full_layers) {
    for (int i = 0; i < n; ++i) k.uses_rope[i] = k.uses_rope[i] && k.kinds[i] == AttentionKind::sliding;
  }
  // Linear-attention layers (Qwen3-Next's Gated DeltaNet) have no rotary and no softmax.
  for (int i = 0; i < n; ++i) {
    if (k.kinds[i] == AttentionKind::linear) k.uses_rope[i] = false;
  }
  if (k.has(AttentionKind::linear)) out.not_judged.push_back(f.at("layer_types") + " (linear_attention)");
  return k;
}

// Qwen2.5-1M's dual chunk attention (vLLM DualChunkFlashAttentionImpl.__init__
// and DualChunkRotaryEmbedding: chunk_size default 8192, local_size 1024,
// original_max_position_embeddings 0 for none). Its sparse attention fields
// (sparse_attention_config …: a top-k approximation above a threshold) are
// read and not judged: a run refuses them.
std::optional<DualChunk> read_dual_chunk(const json& v, const std::string& at, ModelReading& out) {
  if (v.is_null()) return std::nullopt;
  if (!v.is_object()) fail(at, fmt::format("must be an object (chunk_size, local_size, original_max_position_embeddings), got {}", shown(v)));
  DualChunk dc;
  dc.chunk_size = 8192;
  dc.local_size = 1024;
  for (const char* key : {"chunk_size", "local_size"}) {
    if (!v.contains(key)) out.defaulted.push_back(at + "." + key);
  }
  for (const auto& [key, value] : v.items()) {
    if (key.starts_with("sparse_attention")) {
      out.not_judged.push_back(at + "." + key);
      continue;
    }
    if (key != "chunk_size" && key != "local_size" && key != "original_max_position_embeddings") {
      fail(at + "." + key, "is a field pecheck does not know (chunk_size, local_size, original_max_position_embeddings)");
    }
    if (!value.is_number_integer() || value.get<std::int64_t>() < 0 || value.get<std::int64_t>() > (1LL << 40)) {
      fail(at + "." + key, fmt::format("must be an integer from 0 to 2^40, got {}", shown(value)));
    }
    const Position x = value.get<std::int64_t>();
    if (key == "chunk_size") dc.chunk_size = x;
    if (key == "local_size") dc.local_size = x;
    if (key == "original_max_position_embeddings" && x > 0) dc.original_max_position_embeddings = x;
  }
  if (dc.local_size >= dc.chunk_size) {
    fail(at + ".local_size", fmt::format("({}) must be below chunk_size ({}): the chunk length is chunk_size − "
                                         "local_size", dc.local_size, dc.chunk_size));
  }
  return dc;
}

// What some families add to their layers.
struct LayerExtras {
  std::optional<double> local_base;
  std::optional<TemperatureTuning> tuning;
  std::int64_t shared_layers = 0;
};

LayerExtras read_layer_extras(Fields& f, ModelReading& out, const Family& family, int n) {
  LayerExtras e;
  // Gemma 3 (modeling_gemma3.py): sliding layers rotate with rope_local_base_freq and
  // no scaling (rotary_emb_local); full layers with rope_theta and rope_scaling.
  if (family.rule == LayerRule::pattern && family.rope_on_full_layers) e.local_base = f.positive("rope_local_base_freq");
  // Llama 4 (modeling_llama4.py Llama4TextAttention): with attn_temperature_tuning, NoPE
  // layers scale queries by log1p(floor((p + 1) / floor_scale)) · attn_scale + 1.
  if (family.rule == LayerRule::llama4 && f.flag("attn_temperature_tuning").value_or(false)) {
    TemperatureTuning t;
    t.attn_scale = f.positive("attn_scale").value_or(t.attn_scale);
    // The range a hello's layers[].attn_scale has (protocol.schema.json): a
    // negative one (accepted here before the hostile pass) flips far queries.
    if (t.attn_scale > 100) fail(f.at("attn_scale"), fmt::format("must be in (0, 100], got {:g}", t.attn_scale));
    t.floor_scale = f.positive("floor_scale").value_or(t.floor_scale);
    e.tuning = t;
  }
  // Gemma 3n (modeling_gemma3n.py): the last num_kv_shared_layers reuse the keys and values of the
  // last earlier layer of their own type.
  const auto shared_layers = f.integer("num_kv_shared_layers", 0);
  if (shared_layers && *shared_layers > 0) {
    if (*shared_layers >= n) fail(f.at("num_kv_shared_layers"), fmt::format("must be below the {} layers", n));
    out.not_judged.push_back(f.at("num_kv_shared_layers"));
    e.shared_layers = *shared_layers;
  }
  if (const json* v = f.get("dual_chunk_attention_config")) out.dual_chunk = read_dual_chunk(*v, f.at("dual_chunk_attention_config"), out);
  return e;
}

// The rotary of the layers of one kind, and its rotating width.
class LayerRopes {
 public:
  LayerRopes(Fields& f, const ModelReading& out, const RopeFields& rope, const Mla& mla, const LayerExtras& extras)
      : f_(f), out_(out), rope_(rope), mla_(mla), extras_(extras) {}

  std::pair<RotateConvention, int> operator()(AttentionKind kind) const {
    const std::string key = kind == AttentionKind::sliding   ? "sliding_attention"
                            : kind == AttentionKind::chunked ? "chunked_attention"
                                                             : "full_attention";
    if (const auto it = rope_.per_kind.find(key); it != rope_.per_kind.end()) {
      const Rope& r = it->second;
      return convention(r.theta.value_or(rope_.theta), width(r.partial ? r.partial : rope_.partial),
                        r.scaling ? &*r.scaling : nullptr, f_.at("rope_parameters." + key));
    }
    if (!rope_.per_kind.empty()) {
      fail(f_.at("rope_parameters"), fmt::format("is keyed by layer type but has no {} for the {} layers", key, key));
    }
    if (kind == AttentionKind::sliding && extras_.local_base) {
      return convention(*extras_.local_base, width(rope_.partial), nullptr, f_.at("rope_local_base_freq"));
    }
    return convention(rope_.theta, width(rope_.partial), rope_.shared.scaling ? &*rope_.shared.scaling : nullptr,
                      f_.at("rope_scaling"));
  }

 private:
  int width(std::optional<double> fraction) const {
    if (mla_.qk_rope) return static_cast<int>(*mla_.qk_rope);
    if (rope_.rotary_dim_field) return static_cast<int>(*rope_.rotary_dim_field);
    if (fraction) {
      if (*fraction > 1) fail(f_.at("partial_rotary_factor"), fmt::format("must be in (0, 1], got {:g}", *fraction));
      return static_cast<int>(out_.head_dim * *fraction);  // int(), as transformers truncates
    }
    return out_.head_dim;
  }
  std::pair<RotateConvention, int> convention(double base, int width, const json* scaling,
                                              const std::string& field) const {
    std::optional<std::pair<int, int>> mla;
    if (mla_.qk_rope) mla = std::pair{static_cast<int>(*mla_.qk_nope), static_cast<int>(*mla_.qk_rope)};
    return {rope_convention(base, width, rope_.layout, scaling, out_.max_position_embeddings, rope_.beside_original,
                            rope_.mrope_section, field, mla),
            width};
  }

  Fields& f_;
  const ModelReading& out_;
  const RopeFields& rope_;
  const Mla& mla_;
  const LayerExtras& extras_;
};

void add_layers(ModelReading& out, const LayerKinds& k, const LayerExtras& extras, const LayerRopes& rope_for) {
  const int n = static_cast<int>(k.kinds.size());
  for (int i = 0; i < n; ++i) {
    LayerReading l;
    l.index = i;
    l.attention = k.kinds[i];
    if (k.kinds[i] == AttentionKind::sliding) l.window = *k.window;
    if (k.kinds[i] == AttentionKind::chunked) l.chunk = *k.chunk;
    if (k.uses_rope[i]) {
      auto [rope, width] = rope_for(k.kinds[i]);
      l.rope = std::move(rope);
      l.rotary_dim = width;
    } else if (extras.tuning && k.kinds[i] != AttentionKind::linear) {
      l.temperature_tuning = extras.tuning;
    }
    out.layers.push_back(std::move(l));
  }
  if (extras.shared_layers == 0) return;
  const int first = n - static_cast<int>(extras.shared_layers);
  for (int i = first; i < n; ++i) {
    for (int j = first - 1; j >= 0; --j) {
      if (k.kinds[j] == k.kinds[i]) {
        out.layers[i].kv_shared_with = j;
        break;
      }
    }
  }
}

// DeepSeek's softmax scale (transformers' DeepseekV3Attention.__init__, DeepSeek's own
// DeepseekV2Attention.__init__ in modeling_deepseek.py): qk_head_dim^−½, times mscale² with
// mscale = yarn_get_mscale(factor, mscale_all_dim) when rope_scaling is set and its
// mscale_all_dim is non-zero (the rotary's own cos/sin carry the ratio
// yarn_get_mscale(factor, mscale) / yarn_get_mscale(factor, mscale_all_dim), read with the scaling).
void read_mla_scale(ModelReading& out, const Mla& mla, const RopeFields& rope) {
  if (!mla.qk_rope || !mla.qk_nope) return;
  double scale = 1.0 / std::sqrt(static_cast<double>(*mla.qk_rope + *mla.qk_nope));
  const std::optional<json>& scaling = rope.shared.scaling;
  const auto number = [&](const char* key) {
    return scaling && scaling->contains(key) && (*scaling)[key].is_number() ? (*scaling)[key].get<double>() : 0.0;
  };
  if (const double all_dim = number("mscale_all_dim"), factor = number("factor"); all_dim != 0 && factor > 0) {
    const double m = yarn_get_mscale(factor, all_dim);
    scale *= m * m;
  }
  out.scale = scale;
}

}  // namespace reader

ModelReading read_model_config(const json& top) {
  using namespace reader;
  if (!top.is_object()) fail("config", fmt::format("a config.json is a JSON object, got {}", shown(top)));
  ModelReading out;
  const TextConfig text = text_config(top, out);
  const json defaults = json::parse(text.family->defaults);
  Fields f(*text.text, defaults, text.prefix, out);
  f.get("model_type");

  const int n = read_shapes(f, out, text.model_type);
  const Mla mla = read_mla(f, out, text.model_type);
  read_attention_conventions(f, out, text.model_type);
  const RopeFields rope = read_rope_fields(f, out, *text.family, text.model_type, mla.qk_rope.has_value());
  const LayerKinds kinds = read_layer_kinds(f, out, *text.family, n, rope.alibi);
  const LayerExtras extras = read_layer_extras(f, out, *text.family, n);
  add_layers(out, kinds, extras, LayerRopes(f, out, rope, mla, extras));
  read_mla_scale(out, mla, rope);

  std::vector<std::string> unread = f.unread();
  out.unread.insert(out.unread.end(), unread.begin(), unread.end());
  std::sort(out.unread.begin(), out.unread.end());
  std::sort(out.defaulted.begin(), out.defaulted.end());
  out.defaulted.erase(std::unique(out.defaulted.begin(), out.defaulted.end()), out.defaulted.end());
  return out;
}

json load_model_config(const std::string& path) {
  // Bounded (a config.json is kilobytes): a FIFO, /dev/zero or a 100 MB file
  // is refused at once, never read whole or waited on (issue 39's hostile pass).
  std::string text;
  try {
    text = read_bounded_file(path, kMaxConfigBytes, "model config", FileContent::text);
  } catch (const FileReadError& e) {
    throw ModelConfigError("model", valid_utf8(e.what()));
  }
  // Strict: 100 000 nested objects crashed the reader (stack overflow,
  // SIGSEGV) and a key given twice read as its last value; a config.json
  // nests a few levels and never repeats a key.
  try {
    return parse_strict_json(text);
  } catch (const StrictJsonError& e) {
    throw ModelConfigError("model", fmt::format("model config: {} is not JSON pecheck reads: {}", valid_utf8(path),
                                                valid_utf8(e.what())));
  } catch (const json::exception& e) {
    throw ModelConfigError("model", fmt::format("model config: {} is not JSON: {}", valid_utf8(path), e.what()));
  }
}

}  // namespace pecheck::model
