#include "subjects/process/declarations.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "pecheck/core/escape.h"
#include "subjects/process/fields.h"
#include "subjects/process/responses.h"
#include "subjects/process/rotate_declarations.h"

namespace pecheck::process {

const Keys kDtypes = {"float64", "float32", "bfloat16", "float16"};
const Keys kLayouts = {"interleaved", "halves"};

std::string list(const Keys& keys) {
  std::string text;
  for (auto key : keys) {
    if (!text.empty()) text += ", ";
    text += key;
  }
  return text;
}

bool among(std::string_view key, const Keys& keys) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

[[noreturn]] void bad(const std::string& field, const std::string& what) {
  throw BadDeclaration(field, fmt::format("{} (SUBJECT-PROTOCOL.md, version 2)", what));
}

namespace {

// One dimension of params.<op>.shapes: a size, a list of sizes, or {"min": …, "max": …}.
constexpr std::int64_t kLargestSize = std::int64_t{1} << 40;

Extent read_extent(const json& v, const std::string& at) {
  constexpr std::int64_t kLargest = kLargestSize;
  auto size = [&at, kLargest](const json& x) {
    const bool in_range = x.is_number_integer() &&
                          (x.is_number_unsigned() ? x.get<std::uint64_t>() >= 1 &&
                                                        x.get<std::uint64_t>() <= static_cast<std::uint64_t>(kLargest)
                                                  : x.get<std::int64_t>() >= 1 && x.get<std::int64_t>() <= kLargest);
    if (!in_range) {
      bad(at, fmt::format("{} must be a size from 1 to {}, a non-empty list of them, or {{\"min\": …, \"max\": …}}, "
                          "got {}",
                          at, kLargest, brief(x)));
    }
    return x.get<std::int64_t>();
  };
  if (v.is_number()) return Extent::exactly({size(v)});
  if (v.is_array()) {
    if (v.empty()) bad(at, fmt::format("{} is an empty list: declare the sizes the subject supports", at));
    std::vector<std::int64_t> sizes;
    for (const auto& x : v) sizes.push_back(size(x));
    return Extent::exactly(std::move(sizes));
  }
  if (v.is_object()) {
    for (const auto& [key, value] : v.items()) {
      if (key != "min" && key != "max") {
        bad(at + "." + valid_utf8(key.substr(0, 100)),
            fmt::format("{} may hold min and max, not {}", at, valid_utf8(key.substr(0, 100))));
      }
    }
    if (v.empty()) bad(at, fmt::format("{} needs min, max or both", at));
    const std::int64_t min = v.contains("min") ? size(v.at("min")) : 1;
    std::optional<std::int64_t> max;
    if (v.contains("max")) max = size(v.at("max"));
    if (max && *max < min) bad(at, fmt::format("{}: min ({}) exceeds max ({})", at, min, *max));
    return Extent::range(min, max);
  }
  bad(at, fmt::format("{} must be a size, a non-empty list of sizes, or {{\"min\": …, \"max\": …}}, got {}", at,
                      brief(v)));
}

// params.<op>.shapes: each dimension the op's requests have, as read_extent reads it.
void read_shapes(const json& object, Op op, SubjectInfo& info) {
  const std::string path = fmt::format("params.{}.shapes", name(op));
  if (!object.is_object()) {
    bad(path, fmt::format("{} must be an object of d, heads, kv_heads, n, m, batch, got {}", path, brief(object)));
  }
  std::map<ShapeDim, Extent> dims;
  for (const auto& [key, value] : object.items()) {
    const auto dim = parse_shape_dim(key);
    const std::string at = path + "." + valid_utf8(key.substr(0, 100));
    if (!dim) {
      bad(at, fmt::format("the subject declares {}, a dimension pecheck does not know ({} has: d, heads, kv_heads, n, "
                          "m, batch)",
                          at, path));
    }
    dims[*dim] = read_extent(value, at);
    info.declared.push_back(at);
  }
  info.shapes.ops[op] = std::move(dims);
}

void read_encode(const json& object, SubjectInfo& info) {
  Fields f(object, "params.encode", info.declared,
           {"base", "schedule", "position_offset", "amplitude", "layout", "shapes"});
  if (const json* v = f.object("shapes")) read_shapes(*v, Op::encode, info);
  if (auto v = f.number({"base"}, 0, true, "> 0")) info.encode.base = *v;
  if (auto v = f.choice({"schedule"}, {"2i/d", "i/(h-1)"}, parse_schedule)) info.encode.schedule = *v;
  if (auto v = f.integer({"position_offset"}, 0)) info.encode.position_offset = *v;
  if (auto v = f.number({"amplitude"}, 0, true, "> 0")) info.encode.amplitude = info.amplitude = *v;
  if (auto v = f.choice({"layout"}, kLayouts, parse_layout)) info.encode.layout = *v;
}

void read_rotate(const json& object, SubjectInfo& info) {
  // params.rotate.shapes belongs to the op, not to the rotary convention a layer may repeat.
  if (object.is_object() && object.contains("shapes")) {
    read_shapes(object.at("shapes"), Op::rotate, info);
    json convention = object;
    convention.erase("shapes");
    info.rotate = read_rotate_convention(convention, "params.rotate", info.declared);
    return;
  }
  info.rotate = read_rotate_convention(object, "params.rotate", info.declared);
}

void read_bias(const json& object, SubjectInfo& info) {
  Fields f(object, "params.bias", info.declared,
           {"scheme", "heads", "alignment", "num_buckets", "max_distance", "bidirectional", "shapes"});
  if (const json* v = f.object("shapes")) read_shapes(*v, Op::bias, info);
  for (auto key : {"scheme", "heads"}) {
    if (!f.has({key})) bad(f.at(key), fmt::format("{} is missing (params.bias needs scheme and heads)", f.at(key)));
  }
  BiasConvention bias;
  bias.scheme = *f.choice({"scheme"}, {"alibi", "t5"}, parse_bias_scheme);
  bias.heads = static_cast<int>(*f.integer({"heads"}, 1, 1 << 16));
  if (bias.scheme == BiasScheme::alibi) {
    for (auto key : {"num_buckets", "max_distance", "bidirectional"}) {
      if (f.has({key})) bad(f.at(key), fmt::format("params.bias.{} is a field of scheme t5, not alibi", key));
    }
  }
  if (auto v = f.choice({"alignment"}, {"top_left", "bottom_right"}, parse_alignment)) bias.alignment = *v;
  if (auto v = f.boolean({"bidirectional"})) bias.bidirectional = *v;
  if (auto v = f.integer({"num_buckets"}, 2, 1 << 16)) bias.num_buckets = static_cast<int>(*v);
  if (auto v = f.integer({"max_distance"}, 1, 1 << 30)) bias.max_distance = static_cast<int>(*v);
  if (bias.scheme == BiasScheme::t5) {
    // Exact buckets below max_exact, logarithmic from there to max_distance.
    const int max_exact = (bias.bidirectional ? bias.num_buckets / 2 : bias.num_buckets) / 2;
    if (max_exact < 1 || bias.max_distance <= max_exact) {
      bad("params.bias.max_distance",
          fmt::format("params.bias.max_distance ({}) must exceed the exact buckets' reach ({}: num_buckets {}{})",
                      bias.max_distance, max_exact, bias.num_buckets, bias.bidirectional ? ", bidirectional" : ""));
    }
  }
  info.bias = bias;
}

// params.decode: only its shapes.
void read_shapes_only(const json& object, Op op, SubjectInfo& info) {
  Fields f(object, fmt::format("params.{}", name(op)), info.declared, {"shapes"});
  if (const json* v = f.object("shapes")) read_shapes(*v, op, info);
}

// params.forward.layers: one object per layer, {"rotate": {...}} or
// {"rotate": null} for a NoPE layer (SUBJECT-PROTOCOL "Module conventions").
std::vector<LayerConvention> read_layers(const json& value, std::vector<std::string>& declared) {
  const std::string path = "params.forward.layers";
  if (!value.is_array() || value.empty() || value.size() > 4096) {
    bad(path, fmt::format("{} must be a list of 1 to 4096 layers, each {{\"rotate\": {{...}}}} or {{\"rotate\": "
                          "null}} (a NoPE layer), got {}",
                          path, brief(value)));
  }
  std::vector<LayerConvention> layers;
  for (std::size_t k = 0; k < value.size(); ++k) {
    const std::string at = fmt::format("{}[{}]", path, k);
    std::vector<std::string> unused;
    Fields f(value[k], at, unused, {"rotate"});
    if (!f.has({"rotate"})) {
      bad(at + ".rotate", fmt::format("{}.rotate is missing: a layer declares its rotary, or null for none", at));
    }
    LayerConvention layer;
    const json& rotate = *f.object("rotate");
    if (!rotate.is_null()) layer.rotate = read_rotate_convention(rotate, at + ".rotate", declared);
    layers.push_back(std::move(layer));
  }
  declared.push_back(path);
  return layers;
}

// The attention conventions (SUBJECT-PROTOCOL.md "Attention conventions"),
// in params.attention or params.forward; transformers' config.json names are
// read as pecheck's (a key under both names must agree), and a null value is
// a field not declared (config.json's "sliding_window": null).
const Keys kAttentionKeys = {"heads",  "kv_heads",  "grouping",  "window",       "chunk",       "softcap",
                             "sinks",  "sink_logits", "scale",   "alignment",    "fully_masked"};
constexpr std::pair<std::string_view, std::string_view> kAttentionAliases[] = {
    {"num_attention_heads", "heads"},   {"num_key_value_heads", "kv_heads"},
    {"sliding_window", "window"},       {"attention_chunk_size", "chunk"},
    {"attn_logit_softcapping", "softcap"}};

json canonical_attention(const json& object, const std::string& path) {
  if (!object.is_object()) bad(path, fmt::format("{} must be an object, got {}", path, brief(object)));
  json out = json::object();
  for (const auto& [key, value] : object.items()) {
    std::string canonical = key;
    for (const auto& [alias, name] : kAttentionAliases) {
      if (key == alias) canonical = name;
    }
    if (value.is_null() && among(canonical, kAttentionKeys)) continue;  // declared as absent
    if (out.contains(canonical) && out.at(canonical) != value) {
      bad(path + "." + key, fmt::format("{}.{} ({}) and {}.{} ({}) say different things: give one", path, key,
                                        brief(value), path, canonical, brief(out.at(canonical))));
    }
    out[canonical] = value;
  }
  return out;
}

// Reads the attention fields of `f` (already canonical) into `c`.
void read_attention_fields(Fields& f, AttentionConvention& c) {
  if (auto v = f.integer("heads", 1, 1 << 12)) c.heads = static_cast<int>(*v);
  if (auto v = f.integer("kv_heads", 1, 1 << 12)) {
    if (!c.heads) bad(f.at("kv_heads"), fmt::format("{} needs {} (the query heads it groups)", f.at("kv_heads"), f.at("heads")));
    if (*c.heads % *v != 0) {
      bad(f.at("kv_heads"), fmt::format("{} ({}) must divide {} ({})", f.at("kv_heads"), *v, f.at("heads"), *c.heads));
    }
    c.kv_heads = static_cast<int>(*v);
  }
  if (auto v = f.choice("grouping", {"repeat_interleave", "tile"}, parse_grouping)) {
    if (!c.heads) bad(f.at("grouping"), fmt::format("{} needs {}", f.at("grouping"), f.at("heads")));
    c.grouping = *v;
  }
  if (auto v = f.integer("window", 1)) c.window = *v;
  if (auto v = f.integer("chunk", 1)) c.chunk = *v;
  if (f.has("softcap")) {
    const auto v = f.number("softcap", 0, false, "> 0 (leave it out for no cap: 0 means \"none\" in some kernels "
                                                 "and \"every logit 0\" in others)");
    if (*v == 0) {
      bad(f.at("softcap"), fmt::format("{} must be a finite number > 0, got 0 (leave it out for no cap: 0 means "
                                       "\"none\" in some kernels and \"every logit 0\" in others)", f.at("softcap")));
    }
    c.softcap = *v;
  }
  if (auto v = f.boolean("sinks")) c.sinks = *v;
  if (const json* logits = f.array("sink_logits")) {
    if (!c.sinks) bad(f.at("sink_logits"), fmt::format("{} is given, but not {}: true", f.at("sink_logits"), f.at("sinks")));
    for (const json& x : *logits) {
      if (!x.is_number() || !std::isfinite(x.get<double>())) {
        bad(f.at("sink_logits"), fmt::format("{} must be a list of finite numbers, got {}", f.at("sink_logits"), brief(x)));
      }
      c.sink_logits.push_back(x.get<double>());
    }
  }
  if (c.sinks && static_cast<int>(c.sink_logits.size()) != c.query_heads()) {
    bad(f.at("sink_logits"), fmt::format("{}: true needs {} with one number per head ({}), got {}", f.at("sinks"),
                                         f.at("sink_logits"), c.query_heads(), c.sink_logits.size()));
  }
  if (auto v = f.number("scale", 0, true, "> 0")) c.scale = *v;
  if (auto v = f.choice("alignment", {"top_left", "bottom_right"}, parse_alignment)) c.alignment = *v;
  if (auto v = f.choice("fully_masked", {"refuse", "zeros"}, parse_fully_masked)) c.fully_masked = *v;
}

void read_attention(const json& object, SubjectInfo& info) {
  const json canonical = canonical_attention(object, "params.attention");
  Keys known = kAttentionKeys;
  known.push_back("shapes");
  Fields f(canonical, "params.attention", info.declared, known);
  if (const json* v = f.object("shapes")) read_shapes(*v, Op::attention, info);
  read_attention_fields(f, info.attention);
}

void read_forward(const json& object, SubjectInfo& info) {
  Keys known = {"causal", "positional", "width", "positions", "layers", "segments", "cache_capacity",
                "multi_token_decode", "shapes"};
  known.insert(known.end(), kAttentionKeys.begin(), kAttentionKeys.end());
  const json canonical = canonical_attention(object, "params.forward");
  Fields f(canonical, "params.forward", info.declared, known);
  if (const json* v = f.object("shapes")) read_shapes(*v, Op::forward, info);
  ForwardConvention forward;
  if (auto v = f.boolean({"causal"})) forward.causal = *v;
  if (auto v = f.choice({"positional"}, {"none", "absolute", "relative"}, parse_positional)) forward.positional = *v;
  if (auto v = f.integer({"width"}, 1, 1 << 24)) forward.width = static_cast<int>(*v);
  if (auto v = f.choice({"positions"}, {"given", "from_padding"}, parse_positions_source)) forward.positions = *v;
  if (const json* layers = f.object("layers")) forward.layers = read_layers(*layers, info.declared);
  if (auto v = f.boolean({"segments"})) forward.segments = *v;
  if (auto v = f.boolean({"cache_capacity"})) forward.cache_capacity = *v;
  if (auto v = f.boolean({"multi_token_decode"})) forward.multi_token_decode = *v;
  read_attention_fields(f, forward.attention);
  info.forward = forward;
}

}  // namespace

void read_compute(const json& object, SubjectInfo& info) {
  Fields f(object, "compute", info.declared, {"angles", "accumulate"});
  info.compute.angles = f.choice({"angles"}, kDtypes, parse_dtype);
  info.compute.accumulate = f.choice({"accumulate"}, kDtypes, parse_dtype);
}

void read_params(const json& object, SubjectInfo& info) {
  std::vector<std::string> unused;
  Fields f(object, "params", unused, {"encode", "rotate", "attention", "bias", "forward", "decode"});
  const auto needs = [&](std::string_view key, std::initializer_list<Op> ops) {
    for (Op op : ops) {
      if (info.supports(op)) return;
    }
    bad(f.at(key), fmt::format("the subject declares params.{} but not the op {} in ops", key, key));
  };
  if (const json* v = f.object("encode")) needs("encode", {Op::encode}), read_encode(*v, info);
  if (const json* v = f.object("rotate")) needs("rotate", {Op::rotate}), read_rotate(*v, info);
  if (const json* v = f.object("attention")) needs("attention", {Op::attention}), read_attention(*v, info);
  if (const json* v = f.object("bias")) needs("bias", {Op::bias}), read_bias(*v, info);
  if (const json* v = f.object("forward")) needs("forward", {Op::forward, Op::decode}), read_forward(*v, info);
  if (const json* v = f.object("decode")) needs("decode", {Op::decode}), read_shapes_only(*v, Op::decode, info);
}

namespace {


bool declared(const SubjectInfo& info, std::string_view path) {
  return std::find(info.declared.begin(), info.declared.end(), path) != info.declared.end();
}

// The attention fields of `c` that are declared, into `out`.
void attention_json(const AttentionConvention& c, json& out) {
  if (c.heads) out["heads"] = *c.heads;
  if (c.kv_heads) out["kv_heads"] = *c.kv_heads;
  if (c.grouping != Grouping::repeat_interleave) out["grouping"] = std::string(name(c.grouping));
  if (c.window) out["window"] = *c.window;
  if (c.chunk) out["chunk"] = *c.chunk;
  if (c.softcap) out["softcap"] = *c.softcap;
  if (c.sinks) {
    out["sinks"] = true;
    out["sink_logits"] = c.sink_logits;
  }
  if (c.scale) out["scale"] = *c.scale;
  if (c.alignment) out["alignment"] = std::string(name(*c.alignment));
  if (c.fully_masked) out["fully_masked"] = std::string(name(*c.fully_masked));
}

// params.<op>.shapes as a hello writes it.
json shapes_json(const SubjectInfo& info, Op op) {
  const auto it = info.shapes.ops.find(op);
  if (it == info.shapes.ops.end()) return nullptr;
  json out = json::object();
  for (const auto& [dim, e] : it->second) {
    json v;
    if (e.values.size() == 1) {
      v = e.values.front();
    } else if (!e.values.empty()) {
      v = e.values;
    } else {
      v = {{"min", e.min}};
      if (e.max) v["max"] = *e.max;
    }
    out[std::string(name(dim))] = std::move(v);
  }
  return out;
}

}  // namespace

json compute_json(const SubjectInfo& info) {
  json compute = json::object();
  if (info.compute.angles) compute["angles"] = std::string(name(*info.compute.angles));
  if (info.compute.accumulate) compute["accumulate"] = std::string(name(*info.compute.accumulate));
  return compute;

}

json params_json(const SubjectInfo& info) {
  json params = json::object();
  if (info.supports(Op::encode)) {
    json encode = json::object();
    const EncodeConvention& e = info.encode;
    if (declared(info, "params.encode.base")) encode["base"] = e.base;
    if (declared(info, "params.encode.schedule")) encode["schedule"] = std::string(name(e.schedule));
    if (declared(info, "params.encode.position_offset")) encode["position_offset"] = e.position_offset;
    if (declared(info, "params.encode.amplitude")) encode["amplitude"] = e.amplitude;
    else if (info.amplitude != 1) encode["amplitude"] = info.amplitude;
    if (e.layout != Layout::unspecified) encode["layout"] = std::string(name(e.layout));
    if (json s = shapes_json(info, Op::encode); !s.is_null()) encode["shapes"] = std::move(s);
    if (!encode.empty()) params["encode"] = encode;
  }
  if (info.supports(Op::rotate)) {
    json rotate = rotate_json(info.rotate, declared(info, "params.rotate.base"));
    if (info.rotate.scaling.type == ScalingType::none && declared(info, "params.rotate.scaling.type")) {
      rotate["scaling"] = {{"type", "none"}};
    }
    if (json s = shapes_json(info, Op::rotate); !s.is_null()) rotate["shapes"] = std::move(s);
    if (!rotate.empty()) params["rotate"] = rotate;
  }
  if (info.bias && info.supports(Op::bias)) {
    const BiasConvention& b = *info.bias;
    json bias = {{"scheme", std::string(name(b.scheme))}, {"heads", b.heads}};
    if (b.scheme == BiasScheme::t5) {
      bias["num_buckets"] = b.num_buckets;
      bias["max_distance"] = b.max_distance;
      bias["bidirectional"] = b.bidirectional;
    }
    if (b.alignment != Alignment::top_left) bias["alignment"] = std::string(name(b.alignment));
    if (json s = shapes_json(info, Op::bias); !s.is_null()) bias["shapes"] = std::move(s);
    params["bias"] = bias;
  }
  if (info.supports(Op::attention) && info.attention.any()) {
    json attention = json::object();
    attention_json(info.attention, attention);
    params["attention"] = attention;
  }
  if (info.forward && (info.supports(Op::forward) || info.supports(Op::decode))) {
    const ForwardConvention& f = *info.forward;
    json forward = {{"causal", f.causal}, {"positional", std::string(name(f.positional))}};
    if (f.width > 0) forward["width"] = f.width;
    if (f.positions != PositionsSource::given) forward["positions"] = std::string(name(f.positions));
    if (!f.layers.empty()) {
      json layers = json::array();
      for (const LayerConvention& layer : f.layers) {
        layers.push_back({{"rotate", layer.rotate ? rotate_json(*layer.rotate, true) : json()}});
      }
      forward["layers"] = layers;
    }
    if (f.segments) forward["segments"] = true;
    if (f.cache_capacity) forward["cache_capacity"] = true;
    if (f.multi_token_decode) forward["multi_token_decode"] = true;
    attention_json(f.attention, forward);
    if (json s = shapes_json(info, Op::forward); !s.is_null()) forward["shapes"] = std::move(s);
    params["forward"] = forward;
  }
  for (Op op : {Op::attention, Op::decode}) {
    if (json s = shapes_json(info, op); !s.is_null() && info.supports(op)) params[std::string(name(op))]["shapes"] = s;
  }
  return params;
}

}  // namespace pecheck::process
