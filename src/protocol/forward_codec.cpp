// forward: a whole module on a batch of sequences (SUBJECT-PROTOCOL.md,
// "forward"): x B×N×d, positions and padding B×N (defaults 0..N−1 and every
// token real, left out on the wire), one declared layer alone, or packed
// documents (segments).
#include <fmt/format.h>

#include <iterator>

#include "protocol/codec.h"
#include "protocol/attention_declarations.h"
#include "protocol/rotate_declarations.h"

namespace pecheck {

namespace forward_codec {

using process::Arrays;
using process::Buffer;

bool default_positions(const ForwardCall& call) {
  if (call.positions.empty()) return true;
  for (const Positions& row : call.positions) {
    for (std::size_t t = 0; t < row.size(); ++t) {
      if (row[t] != static_cast<Position>(t)) return false;
    }
  }
  return true;
}

void put_rows(Buffer& out, const char* key, const std::vector<Positions>& rows) {
  fmt::format_to(std::back_inserter(out), ",\"{}\":[", key);
  for (std::size_t b = 0; b < rows.size(); ++b) {
    if (b) out.push_back(',');
    process::put_positions(out, rows[b]);
  }
  out.push_back(']');
}

void put(Buffer& out, const ForwardCall& c, const WireOptions& wire) {
  process::put(out, "\"op\":\"forward\",\"x\":");
  process::put_tensor(out, c.x, wire.arrays);
  if (!default_positions(c)) put_rows(out, "positions", c.positions);
  if (c.padding.size() > 0 && !c.padding.all()) {
    process::put(out, ",\"padding\":");
    process::put_bool_matrix(out, c.padding);
  }
  if (c.layer) fmt::format_to(std::back_inserter(out), ",\"layer\":{}", *c.layer);
  if (!c.segments.empty()) put_rows(out, "segments", c.segments);
}

std::size_t size_hint(const ForwardCall& c, Arrays arrays) {
  const std::size_t per_number = codec::chars_per_number(arrays);
  std::size_t n = 6 * static_cast<std::size_t>(c.padding.size());
  for (const Matrix& m : c.x) n += per_number * static_cast<std::size_t>(m.size()) + 64;
  for (const Positions& p : c.positions) n += 21 * p.size();
  return n;
}

ExpectedAnswer expected(const ForwardCall& c, bool) {
  const Eigen::Index tokens = c.x.empty() ? 0 : c.x.front().rows();
  return {ForwardCall::kName, ExpectedAnswer::Kind::batch, static_cast<Eigen::Index>(c.x.size()), tokens};
}

// x must be one B×N×d tensor with B×N positions and padding (or the
// defaults): anything else is the caller's mistake, not the subject's.
void check(const ForwardCall& c, const SubjectInfo& subject, bool) {
  const Eigen::Index n = c.x.empty() ? 0 : c.x.front().rows(), d = c.x.empty() ? 0 : c.x.front().cols();
  for (std::size_t b = 0; b < c.x.size(); ++b) {
    if (c.x[b].rows() != n || c.x[b].cols() != d) {
      throw std::invalid_argument(fmt::format("forward: sequence {} is {}×{}, sequence 0 is {}×{}", b, c.x[b].rows(),
                                              c.x[b].cols(), n, d));
    }
  }
  if (!c.positions.empty()) {
    bool ok = c.positions.size() == c.x.size();
    for (const Positions& row : c.positions) ok = ok && static_cast<Eigen::Index>(row.size()) == n;
    if (!ok) throw std::invalid_argument(fmt::format("forward: positions must be {}×{}", c.x.size(), n));
  }
  if (c.padding.size() > 0 && (c.padding.rows() != static_cast<Eigen::Index>(c.x.size()) || c.padding.cols() != n)) {
    throw std::invalid_argument(fmt::format("forward: padding is {}×{}, x is {}×{}×{}", c.padding.rows(),
                                            c.padding.cols(), c.x.size(), n, d));
  }
  if (c.layer) codec::check_layer(subject, *c.layer);
  if (!c.segments.empty() && !(subject.forward && subject.forward->segments)) {
    throw Refusal(fmt::format("{} does not declare params.forward.segments (packed documents)", subject.name));
  }
}

Call read(const json& r) {
  ForwardCall c{process::tensor_value(r.at("x"), Arrays::b64le), {}, {}};
  if (r.contains("positions")) c.positions = r["positions"].get<std::vector<Positions>>();
  if (r.contains("padding")) c.padding = bool_matrix_from_json(r["padding"]);
  if (r.contains("layer")) c.layer = r["layer"].get<int>();
  const Eigen::Index tokens = c.x.empty() ? 0 : c.x.front().rows();
  bool ok = c.positions.empty() || c.positions.size() == c.x.size();
  for (const Positions& row : c.positions) ok = ok && static_cast<Eigen::Index>(row.size()) == tokens;
  if (c.padding.size() > 0) ok = ok && c.padding.rows() == static_cast<Eigen::Index>(c.x.size()) && c.padding.cols() == tokens;
  if (!ok) throw Malformed("positions and padding must be B×N like x");
  if (r.contains("segments")) {
    c.segments = r["segments"].get<std::vector<Positions>>();
    bool shaped = c.segments.size() == c.x.size();
    for (const Positions& row : c.segments) shaped = shaped && static_cast<Eigen::Index>(row.size()) == tokens;
    if (!shaped) throw Malformed("segments must be B×N like x");
  }
  return c;
}

json to_json(const ForwardCall& c) {
  json j = {{"op", ForwardCall::kName}, {"x", c.x}};
  if (!c.positions.empty()) j["positions"] = c.positions;
  if (c.padding.size() > 0) j["padding"] = c.padding;
  if (!c.segments.empty()) j["segments"] = c.segments;
  return j;
}

Call from_json(const json& r) {
  ForwardCall c;
  const json& x = codec::field(r, "x");
  if (!x.is_array()) throw std::invalid_argument("\"x\" must be a list of sequences");
  for (const auto& sequence : x) c.x.push_back(codec::matrix(json{{"x", sequence}}, "x"));
  if (r.contains("positions")) {
    for (const auto& row : r["positions"]) c.positions.push_back(codec::positions(row, "positions"));
  }
  if (r.contains("padding")) c.padding = bool_matrix_from_json(r["padding"]);
  if (r.contains("segments")) {
    for (const auto& row : r["segments"]) c.segments.push_back(codec::positions(row, "segments"));
  }
  return c;
}

std::string describe(const ForwardCall& c) {
  return fmt::format("forward of {} sequence(s) of {} tokens{}", c.x.size(), c.x.empty() ? 0 : c.x.front().rows(),
                     c.positions.empty() ? std::string()
                                         : fmt::format(" at positions {}", codec::brief_list(c.positions.front())));
}

// Its largest position, and its width, tokens and batch.
CallReach reach(const ForwardCall& c, std::int64_t) {
  CallReach r{ForwardCall::kOp};
  for (const auto& row : c.positions) {
    const auto top = codec::largest(row);
    if (top && (!r.position || *top > *r.position)) r.position = top;
  }
  const std::int64_t width = c.x.empty() ? 0 : c.x.front().cols();
  const std::int64_t tokens = c.x.empty() ? 0 : c.x.front().rows();
  r.sizes = codec::sizes({{Axis::width, width}, {Axis::tokens, tokens}, {Axis::batch, static_cast<std::int64_t>(c.x.size())}});
  return r;
}

// A layer's attn_temperature_tuning with attn_scale and floor_scale
// (SUBJECT-PROTOCOL.md "New conventions", Llama 4): both numbers given, on a
// NoPE layer only (Llama4TextAttention tunes only where use_rope is false,
// and the claim reads the tuning as the one way positions reach the layer).
std::optional<TemperatureTuning> read_temperature_tuning(process::Fields& f, bool rotary) {
  using process::bad;
  const bool on = f.boolean({"attn_temperature_tuning"}).value_or(false);
  if (!on) {
    for (const char* key : {"attn_scale", "floor_scale"}) {
      if (f.has({key})) bad(f.at(key), fmt::format("{} is given, but not {}: true", f.at(key), f.at("attn_temperature_tuning")));
    }
    return std::nullopt;
  }
  if (rotary) {
    bad(f.at("attn_temperature_tuning"),
        fmt::format("{}: true on a rotary layer: Llama 4 tunes the temperature of its NoPE layers only "
                    "(\"rotate\": null)", f.at("attn_temperature_tuning")));
  }
  for (const char* key : {"attn_scale", "floor_scale"}) {
    if (!f.has({key})) bad(f.at(key), fmt::format("{} is missing: attn_temperature_tuning needs attn_scale and floor_scale", f.at(key)));
  }
  TemperatureTuning t;
  t.attn_scale = *f.number({"attn_scale"});    // in (0, 100] (the schema's bounds)
  t.floor_scale = *f.number({"floor_scale"});  // from 1 to 1e9
  return t;
}

// params.forward.layers: one object per layer, {"rotate": {...}} or
// {"rotate": null} for a NoPE layer (SUBJECT-PROTOCOL "Module conventions"),
// with "window": W or "chunk": C for a sliding or chunked layer.
std::vector<LayerConvention> read_layers(const json& value, std::vector<std::string>& declared) {
  using process::bad;
  const std::string path = "params.forward.layers";
  if (!value.is_array() || value.empty() || value.size() > 4096) {
    bad(path, fmt::format("{} must be a list of 1 to 4096 layers, each {{\"rotate\": {{...}}}} or {{\"rotate\": "
                          "null}} (a NoPE layer), got {}",
                          path, process::brief(value)));
  }
  std::vector<LayerConvention> layers;
  for (std::size_t k = 0; k < value.size(); ++k) {
    const std::string at = fmt::format("{}[{}]", path, k);
    std::vector<std::string> unused;
    process::Fields f(value[k], at, unused, "layer", true);
    if (!f.has({"rotate"})) {
      bad(at + ".rotate", fmt::format("{}.rotate is missing: a layer declares its rotary, or null for none", at));
    }
    LayerConvention layer;
    const json& rotate = *f.object("rotate");
    if (!rotate.is_null()) layer.rotate = process::read_rotate_convention(rotate, at + ".rotate", declared);
    layer.temperature_tuning = read_temperature_tuning(f, layer.rotate.has_value());
    // A sliding or chunked layer (module.window_no_lookback, module.config_conformance); neither: full.
    if (auto w = f.integer({"window"})) layer.window = *w;
    if (auto c = f.integer({"chunk"})) layer.chunk = *c;
    if (layer.window && layer.chunk) bad(at, fmt::format("{} declares both a window and a chunk: one or the other", at));
    layers.push_back(std::move(layer));
  }
  declared.push_back(path);
  return layers;
}

// params.forward: the module's conventions (SUBJECT-PROTOCOL.md "Module
// conventions"), its attention's, and its shapes; decode follows them.
void read_params(const json& object, SubjectInfo& info) {
  const json canonical = process::canonical_attention(object, "params.forward");
  process::Fields f(canonical, "params.forward", info.declared, "params.forward", false);
  if (const json* v = f.object("shapes")) process::read_shapes(*v, ForwardCall::kOp, info);
  ForwardConvention forward;
  if (auto v = f.boolean({"causal"})) forward.causal = *v;
  if (auto v = f.choice({"positional"}, parse_positional)) forward.positional = *v;
  if (auto v = f.integer({"width"})) forward.width = static_cast<int>(*v);
  if (auto v = f.choice({"positions"}, parse_positions_source)) forward.positions = *v;
  if (const json* layers = f.object("layers")) forward.layers = read_layers(*layers, info.declared);
  if (auto v = f.boolean({"segments"})) forward.segments = *v;
  if (auto v = f.boolean({"cache_capacity"})) forward.cache_capacity = *v;
  if (auto v = f.boolean({"multi_token_decode"})) forward.multi_token_decode = *v;
  // rotate requests may carry a shift (SUBJECT-PROTOCOL.md "New conventions"; module.context_shift).
  if (auto v = f.boolean({"context_shift"})) info.context_shift = info.context_shift || *v;
  process::read_attention_fields(f, forward.attention);
  info.forward = forward;
}

json write_params(const SubjectInfo& info) {
  if (!info.forward) return nullptr;
  const ForwardConvention& f = *info.forward;
  json forward = {{"causal", f.causal}, {"positional", std::string(name(f.positional))}};
  if (f.width > 0) forward["width"] = f.width;
  if (f.positions != PositionsSource::given) forward["positions"] = std::string(name(f.positions));
  if (!f.layers.empty()) {
    json layers = json::array();
    for (const LayerConvention& layer : f.layers) {
      json entry = {{"rotate", layer.rotate ? process::rotate_json(*layer.rotate, true) : json()}};
      if (layer.temperature_tuning) {
        entry["attn_temperature_tuning"] = true;
        entry["attn_scale"] = layer.temperature_tuning->attn_scale;
        entry["floor_scale"] = layer.temperature_tuning->floor_scale;
      }
      if (layer.window) entry["window"] = *layer.window;
      if (layer.chunk) entry["chunk"] = *layer.chunk;
      layers.push_back(std::move(entry));
    }
    forward["layers"] = layers;
  }
  if (f.segments) forward["segments"] = true;
  if (f.cache_capacity) forward["cache_capacity"] = true;
  if (f.multi_token_decode) forward["multi_token_decode"] = true;
  if (info.context_shift && process::declared(info, "params.forward.context_shift")) forward["context_shift"] = true;
  process::attention_json(f.attention, forward);
  if (json s = process::shapes_json(info, ForwardCall::kOp); !s.is_null()) forward["shapes"] = std::move(s);
  return forward;
}

}  // namespace forward_codec

const Codec<ForwardCall>& ForwardCall::codec() {
  static const Codec<ForwardCall> codec{
      .put = &forward_codec::put,
      .size_hint = &forward_codec::size_hint,
      .expected = &forward_codec::expected,
      .check = &forward_codec::check,
      .read = &forward_codec::read,
      .to_json = &forward_codec::to_json,
      .from_json = &forward_codec::from_json,
      .describe = &forward_codec::describe,
      .reach = &forward_codec::reach,
      .params = {.read = &forward_codec::read_params, .write = &forward_codec::write_params}};
  return codec;
}

}  // namespace pecheck
