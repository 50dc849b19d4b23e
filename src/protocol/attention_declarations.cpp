#include "protocol/attention_declarations.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <string_view>
#include <utility>

#include "protocol/responses.h"
#include "protocol/rotate_declarations.h"
#include "protocol/schema.h"

namespace pecheck::process {

namespace {
// The conventions params.attention and params.forward share, and transformers' config names of them
// (num_attention_heads …), in the protocol's schema (python/pecheck/protocol.schema.json).
constexpr std::string_view kConventions = "attention_conventions";
}  // namespace

const Keys& attention_keys() {
  static const Keys keys = schema::fields(kConventions, false);
  return keys;
}

json canonical_attention(const json& object, const std::string& path, std::string_view def) {
  if (!object.is_object()) bad(path, fmt::format("{} must be an object, got {}", path, brief(object)));
  const auto aliases = schema::alias_list(def);
  json out = json::object();
  std::map<std::string, std::pair<std::string, json>> given;  // each canonical field: the key and value written
  for (const auto& [key, written] : object.items()) {
    std::string canonical = key;
    json value = written;
    for (const auto& alias : aliases) {
      if (key != alias.name || alias.of.find('.') != std::string_view::npos) continue;  // nested: below
      canonical = alias.of;
      if (alias.as == "inverse_sqrt" && !value.is_null()) {
        const double v = value.is_number() ? value.get<double>() : std::nan("");
        if (!(v > 0) || !std::isfinite(v)) {
          bad(path + "." + key, fmt::format("{}.{} must be a finite number > 0 (the logits' scale is its −1/2 power), "
                                            "got {}", path, key, brief(written)));
        }
        value = 1 / std::sqrt(v);
      }
    }
    if (value.is_null() && among(canonical, attention_keys())) continue;  // declared as absent
    if (out.contains(canonical) && out.at(canonical) != value) {
      const auto& [other_key, other_value] = given.at(canonical);
      bad(path + "." + key, fmt::format("{}.{} ({}) and {}.{} ({}) say different things: give one", path, key,
                                        brief(written), path, other_key, brief(other_value)));
    }
    out[canonical] = value;
    given[canonical] = {key, written};
  }
  return nested_aliases_resolved(std::move(out), path, def);
}

void read_attention_fields(Fields& f, AttentionConvention& c) {
  if (auto v = f.integer("heads")) c.heads = static_cast<int>(*v);
  if (auto v = f.integer("kv_heads")) {
    if (!c.heads) bad(f.at("kv_heads"), fmt::format("{} needs {} (the query heads it groups)", f.at("kv_heads"), f.at("heads")));
    if (*c.heads % *v != 0) {
      bad(f.at("kv_heads"), fmt::format("{} ({}) must divide {} ({})", f.at("kv_heads"), *v, f.at("heads"), *c.heads));
    }
    c.kv_heads = static_cast<int>(*v);
  }
  if (auto v = f.choice("grouping", parse_grouping)) {
    if (!c.heads) bad(f.at("grouping"), fmt::format("{} needs {}", f.at("grouping"), f.at("heads")));
    c.grouping = *v;
  }
  if (auto v = f.integer("window")) c.window = *v;
  if (auto v = f.integer("chunk")) c.chunk = *v;
  if (f.has("softcap")) {
    const auto v = f.number("softcap");
    if (*v == 0) {
      bad(f.at("softcap"), fmt::format("{} must be a finite number > 0, got 0 (leave it out for no cap: 0 means "
                                       "\"none\" in some kernels and \"every logit 0\" in others)", f.at("softcap")));
    }
    // A cap c·tanh(s/c) means something in every dtype pecheck judges only
    // within [1e-3, 6e4] (issue 39): above 6e4 the cap is not representable
    // in float16 (largest 65504) and leaves every real logit untouched; below
    // 1e-3 every capped logit is within 1e-3 of 0, every softmax uniform at
    // float16's resolution. Gemma 2's caps are 50 and 30.
    // (No static structured binding: GCC 12 gives two in one unity batch one assembler name.)
    static const std::pair<double, double> cap = schema::meaningful(kConventions, "softcap");  // [1e-3, 6e4]
    const auto [low, high] = cap;
    if (*v < low || *v > high) {
      bad(f.at("softcap"), fmt::format("{} must be in [{:g}, {:g}] (c·tanh(s/c) caps nothing above float16's largest "
                                       "value, and flattens every logit below {:g}), got {:g}",
                                       f.at("softcap"), low, high, low, *v));
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
  if (auto v = f.number("scale")) {
    // The logits' scale (1/√d by default: 1/256 at d = 65536) within
    // [1e-4, 1e4] (issue 39): 1e-320 is a subnormal that zeroes every logit,
    // and beyond 1e4 a logit of unit q and k overflows float16.
    static const std::pair<double, double> range = schema::meaningful(kConventions, "scale");  // [1e-4, 1e4]
    const auto [low, high] = range;
    if (*v < low || *v > high) {
      bad(f.at("scale"), fmt::format("{} must be in [{:g}, {:g}] (the default is 1/√d; outside it every logit "
                                     "vanishes or overflows float16), got {:g}",
                                     f.at("scale"), low, high, *v));
    }
    c.scale = *v;
  }
  if (auto v = f.choice("alignment", parse_alignment)) c.alignment = *v;
  if (auto v = f.choice("fully_masked", parse_fully_masked)) c.fully_masked = *v;
}

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
  if (c.dual_chunk) {
    json dc = {{"chunk_size", c.dual_chunk->chunk_size}, {"local_size", c.dual_chunk->local_size},
               {"rotate", rotate_json(c.dual_chunk->rotate, true)}};
    if (c.dual_chunk->original_max_position_embeddings) {
      dc["original_max_position_embeddings"] = *c.dual_chunk->original_max_position_embeddings;
    }
    out["dual_chunk"] = std::move(dc);
  }
}

}  // namespace pecheck::process
