#include "subjects/process/declarations.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "pecheck/core/escape.h"
#include "subjects/process/responses.h"

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

// One object of declarations at `path` ("params.rotate"): unknown keys are
// refused up front; each getter checks one field's type and range and
// records its dotted path in `declared`.
class Fields {
 public:
  Fields(const json& object, std::string path, std::vector<std::string>& declared, const Keys& known)
      : object_(object), path_(std::move(path)), declared_(declared) {
    if (!object.is_object()) bad(path_, fmt::format("{} must be an object, got {}", path_, brief(object)));
    for (const auto& [key, value] : object.items()) {
      if (!among(key, known)) {
        bad(at(key), fmt::format("the subject declares {}, a field pecheck does not know ({} has: {})",
                                 show(at(key)), path_, list(known)));
      }
    }
  }

  bool has(std::string_view key) const { return object_.contains(key); }
  std::string at(std::string_view key) const { return path_ + "." + std::string(key); }

  // A finite number ≥ min (or > min when `strict`).
  std::optional<double> number(std::string_view key, double min, bool strict, std::string_view range) {
    const json* v = find(key);
    if (!v) return std::nullopt;
    const double x = v->is_number() ? v->get<double>() : std::numeric_limits<double>::quiet_NaN();
    if (!std::isfinite(x) || x < min || (strict && x == min)) {
      bad(at(key), fmt::format("{} must be a finite number {}, got {}", at(key), range, brief(*v)));
    }
    return x;
  }
  std::optional<std::int64_t> integer(std::string_view key, std::int64_t min, std::int64_t max = 1LL << 40) {
    const json* v = find(key);
    if (!v) return std::nullopt;
    const bool in_range = v->is_number_integer() && (v->is_number_unsigned() ? v->get<std::uint64_t>() <= static_cast<std::uint64_t>(max)
                                                                             : v->get<std::int64_t>() >= min && v->get<std::int64_t>() <= max);
    if (!in_range || v->get<std::int64_t>() < min) {
      bad(at(key), fmt::format("{} must be an integer from {} to {}, got {}", at(key), min, max, brief(*v)));
    }
    return v->get<std::int64_t>();
  }
  std::optional<bool> boolean(std::string_view key) {
    const json* v = find(key);
    if (!v) return std::nullopt;
    if (!v->is_boolean()) bad(at(key), fmt::format("{} must be true or false, got {}", at(key), brief(*v)));
    return v->get<bool>();
  }
  template <class Parse>
  auto choice(std::string_view key, const Keys& choices, Parse parse) -> decltype(parse(std::string_view())) {
    const json* v = find(key);
    if (!v) return std::nullopt;
    if (!v->is_string() || !among(v->get_ref<const std::string&>(), choices)) {
      bad(at(key), fmt::format("{} must be one of {}, got {}", at(key), list(choices), brief(*v)));
    }
    return parse(v->get_ref<const std::string&>());
  }
  // A nested object (not itself a declared leaf).
  const json* object(std::string_view key) const {
    const auto it = object_.find(key);
    return it == object_.end() ? nullptr : &*it;
  }

 private:
  const json* find(std::string_view key) {
    const auto it = object_.find(key);
    if (it == object_.end()) return nullptr;
    declared_.push_back(at(key));
    return &*it;
  }
  static std::string show(const std::string& path) { return valid_utf8(path.substr(0, 200)); }

  const json& object_;
  std::string path_;
  std::vector<std::string>& declared_;
};

// params.rotate.scaling: its type, and exactly that type's fields.
RopeScaling read_scaling(const json& object, std::vector<std::string>& declared, const RotateConvention& rotate) {
  const std::string path = "params.rotate.scaling";
  if (!object.is_object()) bad(path, fmt::format("{} must be an object, got {}", path, brief(object)));
  const auto type_at = object.find("type");
  if (type_at == object.end()) {
    bad(path + ".type", fmt::format("{}.type is missing: a scaling needs a type (linear, ntk, dynamic_ntk, yarn, llama3)", path));
  }
  const std::string type_text = type_at->is_string() ? type_at->get<std::string>() : "";
  const auto type = parse_scaling_type(type_text);
  if (!type) {
    bad(path + ".type", fmt::format("{}.type must be one of none, linear, ntk, dynamic_ntk, yarn, llama3, got {}", path,
                                    brief(*type_at)));
  }
  struct Shape {
    std::vector<std::string_view> fields, required;
  };
  const Shape shape = [&]() -> Shape {
    switch (*type) {
      case ScalingType::none: return {{"type"}, {}};
      case ScalingType::linear:
      case ScalingType::ntk: return {{"type", "factor"}, {"factor"}};
      case ScalingType::dynamic_ntk: return {{"type", "factor", "original_max_position"}, {"factor", "original_max_position"}};
      case ScalingType::yarn:
        return {{"type", "factor", "original_max_position", "beta_fast", "beta_slow"}, {"factor", "original_max_position"}};
      case ScalingType::llama3:
        return {{"type", "factor", "low_freq_factor", "high_freq_factor", "original_max_position"},
                {"factor", "low_freq_factor", "high_freq_factor", "original_max_position"}};
    }
    return {{"type"}, {}};
  }();
  for (const auto& [key, value] : object.items()) {
    if (!among(key, shape.fields)) {
      bad(path + "." + key, fmt::format("the subject declares {}.{}, a field scaling type {} does not have (it has: {})",
                                        path, valid_utf8(key.substr(0, 100)), type_text, list(shape.fields)));
    }
  }
  for (auto key : shape.required) {
    if (!object.contains(key)) {
      bad(path + "." + std::string(key), fmt::format("scaling type {} needs {}.{}", type_text, path, key));
    }
  }
  Fields f(object, path, declared, {"type", "factor", "original_max_position", "beta_fast", "beta_slow",
                                    "low_freq_factor", "high_freq_factor"});
  f.choice("type", {"none", "linear", "ntk", "dynamic_ntk", "yarn", "llama3"}, parse_scaling_type);
  RopeScaling s;
  s.type = *type;
  if (auto v = f.number("factor", 1, false, "≥ 1")) s.factor = *v;
  if (auto v = f.integer("original_max_position", 1)) s.original_max_position = *v;
  if (auto v = f.number("beta_fast", 0, true, "> 0")) s.beta_fast = *v;
  if (auto v = f.number("beta_slow", 0, true, "> 0")) s.beta_slow = *v;
  if (auto v = f.number("low_freq_factor", 0, true, "> 0")) s.low_freq_factor = *v;
  if (auto v = f.number("high_freq_factor", 0, true, "> 0")) s.high_freq_factor = *v;
  if (s.type == ScalingType::yarn && !(s.beta_fast > s.beta_slow)) {
    bad(path + ".beta_fast", fmt::format("{}.beta_fast ({:g}) must exceed beta_slow ({:g})", path, s.beta_fast, s.beta_slow));
  }
  if (s.type == ScalingType::llama3 && !(s.high_freq_factor > s.low_freq_factor)) {
    bad(path + ".high_freq_factor", fmt::format("{}.high_freq_factor ({:g}) must exceed low_freq_factor ({:g})", path,
                                                s.high_freq_factor, s.low_freq_factor));
  }
  // base·F^(r/(r−2)) needs r > 2.
  if ((s.type == ScalingType::ntk || s.type == ScalingType::dynamic_ntk) && rotate.rotary_dim && *rotate.rotary_dim <= 2) {
    bad("params.rotate.rotary_dim", fmt::format("params.rotate.rotary_dim must be ≥ 4 for scaling type {} "
                                                "(base·F^(r/(r−2))), got {}", type_text, *rotate.rotary_dim));
  }
  return s;
}

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
  if (auto v = f.number("base", 0, true, "> 0")) info.encode.base = *v;
  if (auto v = f.choice("schedule", {"2i/d", "i/(h-1)"}, parse_schedule)) info.encode.schedule = *v;
  if (auto v = f.integer("position_offset", 0)) info.encode.position_offset = *v;
  if (auto v = f.number("amplitude", 0, true, "> 0")) info.encode.amplitude = info.amplitude = *v;
  if (auto v = f.choice("layout", kLayouts, parse_layout)) info.encode.layout = *v;
}

void read_rotate(const json& object, SubjectInfo& info) {
  Fields f(object, "params.rotate", info.declared,
           {"base", "rotary_dim", "rotary_fraction", "layout", "scaling", "shapes"});
  if (const json* v = f.object("shapes")) read_shapes(*v, Op::rotate, info);
  if (f.has("rotary_dim") && f.has("rotary_fraction")) {
    bad("params.rotate.rotary_fraction",
        "params.rotate.rotary_fraction and params.rotate.rotary_dim are both declared: give one");
  }
  if (auto v = f.number("base", 0, true, "> 0")) info.rotate.base = *v;
  if (auto v = f.integer("rotary_dim", 2, 1 << 20)) {
    if (*v % 2 != 0) bad("params.rotate.rotary_dim", fmt::format("params.rotate.rotary_dim must be even (features rotate in pairs), got {}", *v));
    info.rotate.rotary_dim = static_cast<int>(*v);
  }
  if (auto v = f.number("rotary_fraction", 0, true, "in (0, 1]")) {
    if (*v > 1) bad("params.rotate.rotary_fraction", fmt::format("params.rotate.rotary_fraction must be a finite number in (0, 1], got {:g}", *v));
    info.rotate.rotary_fraction = *v;
  }
  if (auto v = f.choice("layout", kLayouts, parse_layout)) info.rotate.layout = *v;
  if (const json* scaling = f.object("scaling")) info.rotate.scaling = read_scaling(*scaling, info.declared, info.rotate);
}

void read_bias(const json& object, SubjectInfo& info) {
  Fields f(object, "params.bias", info.declared,
           {"scheme", "heads", "num_buckets", "max_distance", "bidirectional", "shapes"});
  if (const json* v = f.object("shapes")) read_shapes(*v, Op::bias, info);
  for (auto key : {"scheme", "heads"}) {
    if (!f.has(key)) bad(f.at(key), fmt::format("{} is missing (params.bias needs scheme and heads)", f.at(key)));
  }
  BiasConvention bias;
  bias.scheme = *f.choice("scheme", {"alibi", "t5"}, parse_bias_scheme);
  bias.heads = static_cast<int>(*f.integer("heads", 1, 1 << 16));
  if (bias.scheme == BiasScheme::alibi) {
    for (auto key : {"num_buckets", "max_distance", "bidirectional"}) {
      if (f.has(key)) bad(f.at(key), fmt::format("params.bias.{} is a field of scheme t5, not alibi", key));
    }
  }
  if (auto v = f.boolean("bidirectional")) bias.bidirectional = *v;
  if (auto v = f.integer("num_buckets", 2, 1 << 16)) bias.num_buckets = static_cast<int>(*v);
  if (auto v = f.integer("max_distance", 1, 1 << 30)) bias.max_distance = static_cast<int>(*v);
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

// params.attention and params.decode: only their shapes so far.
void read_shapes_only(const json& object, Op op, SubjectInfo& info) {
  Fields f(object, fmt::format("params.{}", name(op)), info.declared, {"shapes"});
  if (const json* v = f.object("shapes")) read_shapes(*v, op, info);
}

void read_forward(const json& object, SubjectInfo& info) {
  Fields f(object, "params.forward", info.declared, {"causal", "positional", "width", "shapes"});
  if (const json* v = f.object("shapes")) read_shapes(*v, Op::forward, info);
  ForwardConvention forward;
  if (auto v = f.boolean("causal")) forward.causal = *v;
  if (auto v = f.choice("positional", {"none", "absolute", "relative"}, parse_positional)) forward.positional = *v;
  if (auto v = f.integer("width", 1, 1 << 24)) forward.width = static_cast<int>(*v);
  info.forward = forward;
}

}  // namespace

void read_compute(const json& object, SubjectInfo& info) {
  Fields f(object, "compute", info.declared, {"angles", "accumulate"});
  info.compute.angles = f.choice("angles", kDtypes, parse_dtype);
  info.compute.accumulate = f.choice("accumulate", kDtypes, parse_dtype);
}

void read_params(const json& object, SubjectInfo& info) {
  std::vector<std::string> unused;
  Fields f(object, "params", unused, {"encode", "rotate", "bias", "forward", "attention", "decode"});
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
  if (const json* v = f.object("attention")) needs("attention", {Op::attention}), read_shapes_only(*v, Op::attention, info);
  if (const json* v = f.object("decode")) needs("decode", {Op::decode}), read_shapes_only(*v, Op::decode, info);
}

namespace {


bool declared(const SubjectInfo& info, std::string_view path) {
  return std::find(info.declared.begin(), info.declared.end(), path) != info.declared.end();
}

json scaling_json(const RopeScaling& s) {
  json out = {{"type", std::string(name(s.type))}};
  switch (s.type) {
    case ScalingType::none: break;
    case ScalingType::linear:
    case ScalingType::ntk: out["factor"] = s.factor; break;
    case ScalingType::dynamic_ntk:
      out["factor"] = s.factor;
      out["original_max_position"] = s.original_max_position;
      break;
    case ScalingType::yarn:
      out["factor"] = s.factor;
      out["original_max_position"] = s.original_max_position;
      out["beta_fast"] = s.beta_fast;
      out["beta_slow"] = s.beta_slow;
      break;
    case ScalingType::llama3:
      out["factor"] = s.factor;
      out["low_freq_factor"] = s.low_freq_factor;
      out["high_freq_factor"] = s.high_freq_factor;
      out["original_max_position"] = s.original_max_position;
      break;
  }
  return out;
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
    json rotate = json::object();
    const RotateConvention& r = info.rotate;
    if (declared(info, "params.rotate.base")) rotate["base"] = r.base;
    if (r.rotary_dim) rotate["rotary_dim"] = *r.rotary_dim;
    if (r.rotary_fraction) rotate["rotary_fraction"] = *r.rotary_fraction;
    if (r.layout != Layout::unspecified) rotate["layout"] = std::string(name(r.layout));
    if (r.scaling.type != ScalingType::none || declared(info, "params.rotate.scaling.type")) {
      rotate["scaling"] = scaling_json(r.scaling);
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
    if (json s = shapes_json(info, Op::bias); !s.is_null()) bias["shapes"] = std::move(s);
    params["bias"] = bias;
  }
  if (info.forward && (info.supports(Op::forward) || info.supports(Op::decode))) {
    const ForwardConvention& f = *info.forward;
    json forward = {{"causal", f.causal}, {"positional", std::string(name(f.positional))}};
    if (f.width > 0) forward["width"] = f.width;
    if (json s = shapes_json(info, Op::forward); !s.is_null()) forward["shapes"] = std::move(s);
    params["forward"] = forward;
  }
  for (Op op : {Op::attention, Op::decode}) {
    if (json s = shapes_json(info, op); !s.is_null() && info.supports(op)) params[std::string(name(op))] = {{"shapes", s}};
  }
  return params;
}

}  // namespace pecheck::process
