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

void read_encode(const json& object, SubjectInfo& info) {
  Fields f(object, "params.encode", info.declared, {"base", "schedule", "position_offset", "amplitude", "layout"});
  if (auto v = f.number({"base"}, 0, true, "> 0")) info.encode.base = *v;
  if (auto v = f.choice({"schedule"}, {"2i/d", "i/(h-1)"}, parse_schedule)) info.encode.schedule = *v;
  if (auto v = f.integer({"position_offset"}, 0)) info.encode.position_offset = *v;
  if (auto v = f.number({"amplitude"}, 0, true, "> 0")) info.encode.amplitude = info.amplitude = *v;
  if (auto v = f.choice({"layout"}, kLayouts, parse_layout)) info.encode.layout = *v;
}

void read_rotate(const json& object, SubjectInfo& info) {
  info.rotate = read_rotate_convention(object, "params.rotate", info.declared);
}

void read_bias(const json& object, SubjectInfo& info) {
  Fields f(object, "params.bias", info.declared,
           {"scheme", "heads", "alignment", "num_buckets", "max_distance", "bidirectional"});
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

void read_forward(const json& object, SubjectInfo& info) {
  Fields f(object, "params.forward", info.declared, {"causal", "positional", "width", "positions", "layers"});
  ForwardConvention forward;
  if (auto v = f.boolean({"causal"})) forward.causal = *v;
  if (auto v = f.choice({"positional"}, {"none", "absolute", "relative"}, parse_positional)) forward.positional = *v;
  if (auto v = f.integer({"width"}, 1, 1 << 24)) forward.width = static_cast<int>(*v);
  if (auto v = f.choice({"positions"}, {"given", "from_padding"}, parse_positions_source)) forward.positions = *v;
  if (const json* layers = f.object("layers")) forward.layers = read_layers(*layers, info.declared);
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
  Fields f(object, "params", unused, {"encode", "rotate", "bias", "forward"});
  const auto needs = [&](std::string_view key, std::initializer_list<Op> ops) {
    for (Op op : ops) {
      if (info.supports(op)) return;
    }
    bad(f.at(key), fmt::format("the subject declares params.{} but not the op {} in ops", key, key));
  };
  if (const json* v = f.object("encode")) needs("encode", {Op::encode}), read_encode(*v, info);
  if (const json* v = f.object("rotate")) needs("rotate", {Op::rotate}), read_rotate(*v, info);
  if (const json* v = f.object("bias")) needs("bias", {Op::bias}), read_bias(*v, info);
  if (const json* v = f.object("forward")) needs("forward", {Op::forward, Op::decode}), read_forward(*v, info);
}

namespace {


bool declared(const SubjectInfo& info, std::string_view path) {
  return std::find(info.declared.begin(), info.declared.end(), path) != info.declared.end();
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
    if (!encode.empty()) params["encode"] = encode;
  }
  if (info.supports(Op::rotate)) {
    json rotate = rotate_json(info.rotate, declared(info, "params.rotate.base"));
    if (info.rotate.scaling.type == ScalingType::none && declared(info, "params.rotate.scaling.type")) {
      rotate["scaling"] = {{"type", "none"}};
    }
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
    params["bias"] = bias;
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
    params["forward"] = forward;
  }
  return params;
}

}  // namespace pecheck::process
