// params.rotate (and each layer's rotate in params.forward.layers): the
// rotary convention a hello declares, read from the protocol's names and from
// transformers' (SUBJECT-PROTOCOL.md "Positional schemes" and its
// clarifications), so that a config.json's rope_scaling / rope_parameters
// dict can be pasted as `scaling` unchanged. Written back canonically.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <utility>

#include "protocol/fields.h"
#include "protocol/rotate_declarations.h"

#include "pecheck/core/suggest.h"

namespace pecheck::process {

namespace {

// The rotary's definitions in the protocol's schema (python/pecheck/protocol.schema.json).
constexpr std::string_view kScaling = "scaling", kRotate = "rotate_convention";

// A scaling type as the protocol or transformers names it, and what it means
// (the schema's x-pecheck-type-names): transformers' "default" is none,
// "dynamic" dynamic_ntk, "su" (Phi-3's first configs) longrope, and "mrope"
// (Qwen2-VL's) none with multi-axis positions.
struct TypeName {
  std::string_view text;
  ScalingType type;
};
const std::vector<TypeName>& type_table() {
  static const std::vector<TypeName> table = [] {
    std::vector<TypeName> out;
    const auto& names = schema::def(kScaling).at("x-pecheck-type-names");
    for (auto it = names.begin(); it != names.end(); ++it) {
      out.push_back({it.key(), *parse_scaling_type(it.value().get_ref<const std::string&>())});
    }
    return out;
  }();
  return table;
}

Keys type_names() {
  Keys out;
  for (const auto& t : type_table()) out.push_back(t.text);
  return out;
}

// The fields of each type beyond those every scaling may carry, and those it requires (x-pecheck-types).
const schema::Node& type_entry(ScalingType type) {
  return schema::def(kScaling).at("x-pecheck-types").at(std::string(name(type)));
}
Keys type_fields(ScalingType type) {
  Keys out;
  for (const auto& v : type_entry(type).at("fields")) out.push_back(v.get_ref<const std::string&>());
  return out;
}
bool required_field(ScalingType type, std::string_view key) {
  for (const auto& v : type_entry(type).at("required")) {
    if (v.get_ref<const std::string&>() == key) return true;
  }
  return false;
}

// What any scaling may carry: its type, and the keys transformers keeps in
// rope_parameters beside it (rope_theta, partial_rotary_factor, Qwen-VL's
// mrope_section and mrope_interleaved).
const Keys& common_fields() {
  static const Keys keys = schema::annotation(kScaling, "x-pecheck-common");
  return keys;
}

const Name kType = Fields::aliased(kScaling, "type");

// The L a family falls back on when its scaling does not say: the one given
// beside the scaling, else max_position_embeddings (transformers' default
// for dynamic, yarn and longrope).
std::optional<Position> fallback_original(ScalingType type, const RotateConvention& c,
                                          std::optional<Position> beside) {
  if (beside) return beside;
  const bool defaults_to_max =
      type == ScalingType::dynamic_ntk || type == ScalingType::yarn || type == ScalingType::longrope;
  if (defaults_to_max && c.max_position_embeddings) return c.max_position_embeddings;
  return std::nullopt;
}

// The scaling's type: `type` or transformers' `rope_type` (both, if they agree).
const TypeName& scaling_type(const json& object, const std::string& path) {
  if (!object.is_object()) bad(path, fmt::format("{} must be an object, got {}", path, brief(object)));
  const Keys names = type_names();
  const std::string type_key(kType.canonical), alias_key(kType.alias);  // type, transformers' rope_type
  if (object.contains(type_key) && object.contains(alias_key) && object[type_key] != object[alias_key]) {
    bad(path + "." + alias_key, fmt::format("{}.{} ({}) and {}.{} ({}) disagree: give one", path, type_key,
                                            brief(object[type_key]), path, alias_key, brief(object[alias_key])));
  }
  const json* type_at = object.contains(alias_key) ? &object[alias_key] : nullptr;
  if (object.contains(type_key)) type_at = &object[type_key];
  if (type_at == nullptr) {
    bad(path + ".type", fmt::format("{}.type is missing: a scaling needs a type ({}; {} is the same field)",
                                    path, list(names), alias_key));
  }
  const std::string type_text = type_at->is_string() ? type_at->get<std::string>() : "";
  const auto& table = type_table();
  const auto named = std::find_if(table.begin(), table.end(), [&](const TypeName& t) { return t.text == type_text; });
  if (named == table.end()) {
    bad(path + ".type", fmt::format("{}.type must be one of {}, got {}", path, list(names), brief(*type_at)));
  }
  return *named;
}

// Every key of the scaling is one its type has (or one transformers keeps beside it).
void check_scaling_keys(const json& object, const std::string& path, const TypeName& type, const Name& original) {
  Keys allowed = common_fields();
  const Keys own = type_fields(type.type);
  allowed.insert(allowed.end(), own.begin(), own.end());
  if (std::find(own.begin(), own.end(), original.canonical) != own.end()) allowed.push_back(original.alias);
  for (const auto& [key, value] : object.items()) {
    if (among(key, allowed)) continue;
    Keys shown = own;
    shown.insert(shown.begin(), "type");
    Keys beside;  // what transformers keeps beside the type in rope_parameters
    for (auto common : common_fields()) {
      if (common != kType.canonical && common != kType.alias) beside.push_back(common);
    }
    const std::string near = closest(key, std::vector<std::string>(allowed.begin(), allowed.end()));
    bad(path + "." + key, fmt::format("{}.{}: a field scaling type {} does not have (it has: {}; and {}){}", path,
                                      valid_utf8(key.substr(0, 100)), type.text, list(shown), list(beside),
                                      near.empty() ? "" : fmt::format("; did you mean {}?", near)));
  }
}

RopeScaling scaling_values(Fields& f, ScalingType type, const Name& original) {
  RopeScaling s;
  s.type = type;
  if (auto v = f.number({"factor"})) s.factor = *v;
  if (auto v = f.integer(original)) s.original_max_position = *v;
  if (auto v = f.number({"beta_fast"})) s.beta_fast = *v;
  if (auto v = f.number({"beta_slow"})) s.beta_slow = *v;
  if (auto v = f.boolean({"truncate"})) s.truncate = *v;
  if (auto v = f.number({"mscale"})) s.mscale = *v;
  if (auto v = f.number({"mscale_all_dim"})) s.mscale_all_dim = *v;
  if (auto v = f.number({"attention_factor"})) s.attention_factor = *v;
  if (auto v = f.number({"low_freq_factor"})) s.low_freq_factor = *v;
  if (auto v = f.number({"high_freq_factor"})) s.high_freq_factor = *v;
  if (auto v = f.positive_numbers({"short_factor"})) s.short_factor = std::move(*v);
  if (auto v = f.positive_numbers({"long_factor"})) s.long_factor = std::move(*v);
  if (auto v = f.choice({"factor_switch"}, parse_factor_switch)) s.factor_switch = *v;
  return s;
}

// What transformers keeps in rope_parameters beside the scaling proper: the
// base, the rotating fraction, mrope's sections. Each agrees with the same
// field declared beside the scaling, or is refused.
void read_beside_scaling(Fields& f, const std::string& path, const std::string& type_text,
                         std::vector<std::string>& declared, RotateConvention& c, bool declared_base) {
  if (auto v = f.number({"rope_theta"})) {
    if (declared_base && *v != c.base) {
      bad(path + ".rope_theta", fmt::format("{}.rope_theta ({:g}) and params.rotate.base ({:g}) disagree: give one",
                                            path, *v, c.base));
    }
    c.base = *v;
    declared.push_back(path.substr(0, path.size() - std::string_view(".scaling").size()) + ".base");
  }
  if (auto v = f.number({"partial_rotary_factor"})) {
    if (*v > 1) bad(path + ".partial_rotary_factor", fmt::format("{}.partial_rotary_factor must be in (0, 1], got {:g}", path, *v));
    if (c.rotary_dim || (c.rotary_fraction && *c.rotary_fraction != *v)) {
      bad(path + ".partial_rotary_factor",
          fmt::format("{}.partial_rotary_factor and the rotary width declared beside it disagree: give one", path));
    }
    c.rotary_fraction = *v;
  }
  if (auto v = f.integers({"mrope_section"}, 3, 0, 1 << 16)) {
    if (!c.mrope_section.empty()) {
      bad(path + ".mrope_section", "mrope_section is declared beside the scaling and inside it: give one");
    }
    c.mrope_section = std::move(*v);
  }
  if (auto v = f.boolean({"mrope_interleaved"})) c.mrope_interleaved = *v;
  if (type_text == "mrope" && c.mrope_section.empty()) {
    bad(path + ".mrope_section", fmt::format("scaling type mrope needs {}.mrope_section ([t, h, w] pair counts)", path));
  }
}

// The scaling as a whole: the original length L it needs (from the scaling,
// else beside it, else max_position_embeddings), its required fields, and
// the values that must agree with each other.
void check_scaling(Fields& f, const std::string& path, const std::string& type_text, RopeScaling& s,
                   const RotateConvention& c, std::optional<Position> beside_original) {
  const ScalingType type = s.type;
  const bool needs_original = type == ScalingType::dynamic_ntk || type == ScalingType::yarn ||
                              type == ScalingType::llama3 || type == ScalingType::longrope;
  if (needs_original && s.original_max_position == 0) {
    if (auto fallback = fallback_original(type, c, beside_original)) s.original_max_position = *fallback;
  }
  if (needs_original && s.original_max_position == 0) {
    bad(path + ".original_max_position",
        fmt::format("scaling type {} needs {}.original_max_position (or original_max_position_embeddings, in the "
                    "scaling or beside it in params.rotate)",
                    type_text, path));
  }
  for (std::string_view key : type_fields(type)) {
    if (required_field(type, key) && !f.has({key})) bad(path + "." + std::string(key), fmt::format("scaling type {} needs {}.{}", type_text, path, key));
  }
  if (type == ScalingType::yarn && !(s.beta_fast > s.beta_slow)) {
    bad(path + ".beta_fast", fmt::format("{}.beta_fast ({:g}) must exceed beta_slow ({:g})", path, s.beta_fast, s.beta_slow));
  }
  if (type == ScalingType::llama3 && s.high_freq_factor < s.low_freq_factor) {
    bad(path + ".high_freq_factor", fmt::format("{}.high_freq_factor ({:g}) must be at least low_freq_factor ({:g})", path,
                                                s.high_freq_factor, s.low_freq_factor));
  }
  if (type == ScalingType::longrope && s.short_factor.size() != s.long_factor.size()) {
    bad(path + ".long_factor", fmt::format("{}.short_factor has {} entries and long_factor {}: one per pair each",
                                           path, s.short_factor.size(), s.long_factor.size()));
  }
}

void read_scaling(const json& object, const std::string& path, std::vector<std::string>& declared,
                  RotateConvention& c, std::optional<Position> beside_original, bool declared_base) {
  const TypeName& type = scaling_type(object, path);
  const Name original = Fields::aliased(kScaling, "original_max_position");
  check_scaling_keys(object, path, type, original);
  Fields f(object, path, declared, kScaling, true);  // the fields' rules; the keys were checked above
  declared.push_back(path + ".type");  // type, rope_type or both (transformers writes both), read above
  RopeScaling s = scaling_values(f, type.type, original);
  read_beside_scaling(f, path, std::string(type.text), declared, c, declared_base);
  check_scaling(f, path, std::string(type.text), s, c, beside_original);
  c.scaling = std::move(s);
}

// The per-pair lists must agree with each other and with a declared rotary_dim.
void check_pairs(const RotateConvention& c, const std::string& path) {
  struct List {
    std::string field, what;
    std::size_t pairs;
  };
  std::vector<List> lists;
  if (!c.freq_factors.empty()) lists.push_back({"freq_factors", "freq_factors", c.freq_factors.size()});
  if (c.scaling.type == ScalingType::longrope) {
    lists.push_back({"scaling.short_factor", "scaling.short_factor", c.scaling.short_factor.size()});
  }
  if (c.multi_axis()) {
    int sum = 0;
    for (int s : c.mrope_section) sum += s;
    lists.push_back({"mrope_section", "mrope_section (its sum)", static_cast<std::size_t>(sum)});
  }
  for (const auto& list : lists) {
    const List& first = lists.front();
    if (list.pairs != first.pairs) {
      bad(path + "." + list.field, fmt::format("{}.{} covers {} pairs and {}.{} {}: the rotated pairs are one number",
                                               path, list.what, list.pairs, path, first.what, first.pairs));
    }
    if (c.rotary_dim && static_cast<std::size_t>(*c.rotary_dim) != 2 * list.pairs) {
      bad(path + ".rotary_dim", fmt::format("{}.rotary_dim is {}, but {}.{} covers {} pairs ({} features)", path,
                                            *c.rotary_dim, path, list.what, list.pairs, 2 * list.pairs));
    }
  }
  if (c.mrope_interleaved && !c.multi_axis()) {
    bad(path + ".mrope_interleaved", fmt::format("{}.mrope_interleaved needs mrope_section", path));
  }
  const ScalingType type = c.scaling.type;
  if ((type == ScalingType::ntk || type == ScalingType::dynamic_ntk) && c.rotary_dim && *c.rotary_dim <= 2) {
    bad(path + ".rotary_dim", fmt::format("{}.rotary_dim must be ≥ 4 for scaling type {} (base·F^(r/(r−2))), got {}",
                                          path, name(type), *c.rotary_dim));
  }
}


json scaling_json(const RopeScaling& s) {
  json out = {{"type", std::string(name(s.type))}};
  const Keys fields = type_fields(s.type);
  const auto has = [&](std::string_view key) { return std::find(fields.begin(), fields.end(), key) != fields.end(); };
  if (has("factor") && (s.type != ScalingType::longrope || s.factor != 1)) out["factor"] = s.factor;
  if (has("original_max_position")) out["original_max_position"] = s.original_max_position;
  if (s.type == ScalingType::yarn) {
    out["beta_fast"] = s.beta_fast;
    out["beta_slow"] = s.beta_slow;
    if (!s.truncate) out["truncate"] = false;
    if (s.mscale) out["mscale"] = *s.mscale;
    if (s.mscale_all_dim) out["mscale_all_dim"] = *s.mscale_all_dim;
  }
  if (s.type == ScalingType::llama3) {
    out["low_freq_factor"] = s.low_freq_factor;
    out["high_freq_factor"] = s.high_freq_factor;
  }
  if (s.type == ScalingType::longrope) {
    out["short_factor"] = s.short_factor;
    out["long_factor"] = s.long_factor;
    if (s.factor_switch != FactorSwitch::length) out["factor_switch"] = std::string(name(s.factor_switch));
  }
  if (s.attention_factor && has("attention_factor")) out["attention_factor"] = *s.attention_factor;
  return out;
}

}  // namespace

const Keys& rotate_layout_names() {
  static const Keys names = schema::choices(kRotate, "layout");
  return names;
}

namespace {

// Values pecheck decided are nonsense although in range (issue 39;
// SUBJECT-PROTOCOL.md, pecheck's decisions). A base ≤ 1 makes every
// frequency base^(−2i/r) 1 or growing with i: no rotary model has one, and at
// 1 every pair rotates alike. mrope sections of no pairs rotate nothing. A
// LongRoPE or per-pair factor divides a frequency: outside [1e-3, 1e6] it
// makes a frequency overflow or vanish (1e-320 is a subnormal: 1/f is inf),
// where published factors lie within 1 to about 100.
// The bounds are the schema's (x-pecheck-meaningful of freq_factors, short_factor, long_factor).

std::string where_declared(const std::vector<std::string>& declared, const std::string& path, const char* inside,
                           const char* beside) {
  const std::string in = path + ".scaling." + inside;
  return std::find(declared.begin(), declared.end(), in) != declared.end() ? in : path + "." + beside;
}

void check_factors(const std::vector<double>& factors, const std::string& field) {
  static const std::pair<double, double> range = schema::meaningful(kRotate, "freq_factors");
  const auto [kSmallestFactor, kLargestFactor] = range;
  for (double x : factors) {
    if (x < kSmallestFactor || x > kLargestFactor) {
      bad(field, fmt::format("{} must hold factors in [{:g}, {:g}] (each divides a frequency: outside it the "
                             "frequency overflows or vanishes), got {:g}",
                             field, kSmallestFactor, kLargestFactor, x));
    }
  }
}

void check_meaningful(const RotateConvention& c, const std::string& path, const std::vector<std::string>& declared) {
  if (c.base <= 1) {
    const std::string field = where_declared(declared, path, "rope_theta", "base");
    bad(field, fmt::format("{} must be > 1 (the frequencies base^(−2i/r) fall with i only above 1; at 1 every pair "
                           "rotates alike), got {:g}",
                           field, c.base));
  }
  if (!c.mrope_section.empty()) {
    long long pairs = 0;
    for (auto v : c.mrope_section) pairs += v;
    if (pairs == 0) {
      const std::string field = where_declared(declared, path, "mrope_section", "mrope_section");
      bad(field, fmt::format("{} gives no pair to any axis ([t, h, w] pair counts, at least one pair in all)", field));
    }
  }
  // Above its meaningful range a base sends the frequencies of a wide head into
  // subnormals (1e308^(−2i/r) → 1e-308); the scaling numbers likewise: a factor
  // of 1e308 makes every scaled position 0, a llama3 band factor of 1e-320 or a
  // YaRN beta of 1e308 puts every pair in one band (the hostile pass of issue 39
  // found each accepted). Published values lie well inside (factor 4 to 64,
  // betas 32 and 1, bands 1 and 4, bases 10⁴ to 10⁹).
  static const std::pair<double, double> base_range = schema::meaningful(kRotate, "base");
  if (c.base > base_range.second) {
    const std::string field = where_declared(declared, path, "rope_theta", "base");
    bad(field, fmt::format("{} must be at most {:g} (above it the frequencies base^(−2i/r) of a wide head vanish), "
                           "got {:g}", field, base_range.second, c.base));
  }
  for (const auto& [name, value] : std::initializer_list<std::pair<const char*, double>>{
           {"factor", c.scaling.factor},
           {"beta_fast", c.scaling.beta_fast},
           {"beta_slow", c.scaling.beta_slow},
           {"low_freq_factor", c.scaling.low_freq_factor},
           {"high_freq_factor", c.scaling.high_freq_factor}}) {
    const auto [low, high] = schema::meaningful(kScaling, name);
    if (value < low || value > high) {
      const std::string field = path + ".scaling." + name;
      bad(field, fmt::format("{} must be in [{:g}, {:g}] (outside it every position or every pair scales alike), "
                             "got {:g}", field, low, high, value));
    }
  }
  check_factors(c.scaling.short_factor, path + ".scaling.short_factor");
  check_factors(c.scaling.long_factor, path + ".scaling.long_factor");
  check_factors(c.freq_factors, path + ".freq_factors");
}

}  // namespace

RotateConvention read_rotate_convention(const json& object, const std::string& path,
                                        std::vector<std::string>& declared) {
  Fields f(object, path, declared, kRotate, true);
  RotateConvention c;
  if (f.has({"rotary_dim"}) && f.has({"rotary_fraction"})) {
    bad(path + ".rotary_fraction", fmt::format("{0}.rotary_fraction and {0}.rotary_dim are both declared: give one", path));
  }
  const bool declared_base = f.has({"base"});
  if (auto v = f.number({"base"})) c.base = *v;
  if (auto v = f.integer({"rotary_dim"})) {
    if (*v % 2 != 0) bad(path + ".rotary_dim", fmt::format("{}.rotary_dim must be even (features rotate in pairs), got {}", path, *v));
    c.rotary_dim = static_cast<int>(*v);
  }
  if (auto v = f.number({"rotary_fraction"})) {
    if (*v > 1) bad(path + ".rotary_fraction", fmt::format("{}.rotary_fraction must be a finite number in (0, 1], got {:g}", path, *v));
    c.rotary_fraction = *v;
  }
  if (auto v = f.choice({"layout"}, parse_layout)) c.layout = *v;
  if (auto v = f.integer({"max_position_embeddings"})) c.max_position_embeddings = *v;
  const std::optional<std::int64_t> beside_original = f.integer(Fields::aliased(kRotate, "original_max_position"));
  if (auto v = f.positive_numbers({"freq_factors"})) c.freq_factors = std::move(*v);
  if (auto v = f.integers({"mrope_section"}, 3, 0, 1 << 16)) c.mrope_section = std::move(*v);
  if (auto v = f.boolean({"mrope_interleaved"})) c.mrope_interleaved = *v;
  if (const json* scaling = f.object("scaling")) {
    read_scaling(*scaling, path + ".scaling", declared, c, beside_original, declared_base);
  }
  check_pairs(c, path);
  check_meaningful(c, path, declared);
  // DeepSeek MLA: nope + rope features, the last rope turn (SUBJECT-PROTOCOL.md "New conventions").
  const auto rope = f.integer({"qk_rope_head_dim"}), nope = f.integer({"qk_nope_head_dim"});
  if (rope.has_value() != nope.has_value()) {
    bad(path + (rope ? ".qk_nope_head_dim" : ".qk_rope_head_dim"),
        fmt::format("{0}.qk_rope_head_dim and {0}.qk_nope_head_dim are declared together", path));
  }
  if (rope && nope) {
    if (*rope % 2 != 0) {
      bad(path + ".qk_rope_head_dim",
          fmt::format("{}.qk_rope_head_dim must be even (features rotate in pairs), got {}", path, *rope));
    }
    if (c.rotary_dim || c.rotary_fraction || c.multi_axis()) {
      bad(path + ".qk_rope_head_dim", fmt::format("{}.qk_rope_head_dim fixes the rotated features: rotary_dim, "
                                                  "rotary_fraction and mrope_section do not stand beside it", path));
    }
    c.qk_rope_head_dim = static_cast<int>(*rope);
    c.qk_nope_head_dim = static_cast<int>(*nope);
  }
  // Vision 2-D rotary (Pixtral, Qwen2-VL): {"axes": ["h", "w"], "frequencies": "even_odd" | "halves"}.
  if (const json* two = f.object("rope_2d"); two && !two->is_null()) {
    const std::string at = path + ".rope_2d";
    Fields g(*two, at, declared, "rope_2d", true);
    Rope2d r2;
    if (!g.has({"axes"})) bad(at + ".axes", fmt::format("{}.axes is missing: [\"h\", \"w\"] (or [\"w\", \"h\"]), the order of a "
                                                    "request's position streams", at));
    const json& axes = *g.object("axes");
    if (axes == json::array({"h", "w"})) {
      r2.columns_first = false;
    } else if (axes == json::array({"w", "h"})) {
      r2.columns_first = true;
    } else {
      bad(at + ".axes", fmt::format("{}.axes must be [\"h\", \"w\"] or [\"w\", \"h\"], got {}", at, brief(axes)));
    }
    if (!g.has({"frequencies"})) {
      bad(at + ".frequencies", fmt::format("{}.frequencies is missing: \"even_odd\" (Pixtral) or \"halves\" (Qwen2-VL)", at));
    }
    r2.frequencies = *g.choice({"frequencies"}, parse_frequencies_2d);
    if (c.multi_axis() || c.decoupled()) {
      bad(at, fmt::format("{} fixes the position streams and the rotated pairs: mrope_section and qk_rope_head_dim do "
                          "not stand beside it", at));
    }
    c.rope_2d = r2;
  }
  return c;
}

json rotate_json(const RotateConvention& r, bool with_base) {
  json rotate = json::object();
  if (with_base) rotate["base"] = r.base;
  if (r.rotary_dim) rotate["rotary_dim"] = *r.rotary_dim;
  if (r.rotary_fraction) rotate["rotary_fraction"] = *r.rotary_fraction;
  if (r.layout != Layout::unspecified) rotate["layout"] = std::string(name(r.layout));
  if (r.max_position_embeddings) rotate["max_position_embeddings"] = *r.max_position_embeddings;
  if (!r.freq_factors.empty()) rotate["freq_factors"] = r.freq_factors;
  if (r.multi_axis()) rotate["mrope_section"] = r.mrope_section;
  if (r.mrope_interleaved) rotate["mrope_interleaved"] = true;
  if (r.decoupled()) {
    rotate["qk_rope_head_dim"] = *r.qk_rope_head_dim;
    rotate["qk_nope_head_dim"] = r.qk_nope_head_dim.value_or(0);
  }
  if (r.rope_2d) {
    rotate["rope_2d"] = {{"axes", r.rope_2d->columns_first ? json::array({"w", "h"}) : json::array({"h", "w"})},
                         {"frequencies", std::string(name(r.rope_2d->frequencies))}};
  }
  if (r.scaling.type != ScalingType::none) rotate["scaling"] = scaling_json(r.scaling);
  return rotate;
}

}  // namespace pecheck::process
