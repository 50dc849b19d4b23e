#pragma once
// One object of declarations at a dotted path ("params.rotate"), read field
// by field: unknown keys are refused up front; each getter checks one field's
// type and range and records its canonical dotted path in `declared`. A field
// may have an alias (transformers' spelling: "rope_type" for "type"); giving
// both is refused, so one declaration never holds two values.
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pecheck/core/escape.h"
#include "pecheck/core/suggest.h"
#include "protocol/declarations.h"
#include "protocol/responses.h"
#include "protocol/schema.h"

namespace pecheck::process {

// A field's name and, where transformers spells it otherwise, its alias.
struct Name {
  constexpr Name(const char* canonical_name) : canonical(canonical_name) {}  // NOLINT: a field without an alias
  constexpr Name(std::string_view canonical_name, std::string_view alias_name = {})  // NOLINT
      : canonical(canonical_name), alias(alias_name) {}
  std::string_view canonical;
  std::string_view alias = {};
};

class Fields {
 public:
  Fields(const json& object, std::string path, std::vector<std::string>& declared, const Keys& known)
      : object_(object), path_(std::move(path)), declared_(declared) {
    refuse_unknown(known, known);
  }

  // The fields of the schema's definition `def` (python/pecheck/protocol.schema.json): its field list,
  // and the bounds and choices of the getters below that take no bounds. Without `with_aliases` the
  // object was made canonical before (canonical_attention): a config name left in it is unknown, but
  // "did you mean" and the list of fields still name the config names (num_attention_heads …).
  Fields(const json& object, std::string path, std::vector<std::string>& declared, std::string_view def,
         bool with_aliases)
      : object_(object), path_(std::move(path)), declared_(declared), def_(def) {
    refuse_unknown(schema::fields(def, with_aliases), schema::fields(def, true));
  }

  bool has(Name key) const { return object_.contains(key.canonical) || (!key.alias.empty() && object_.contains(key.alias)); }
  std::string at(std::string_view key) const { return path_ + "." + std::string(key); }
  const std::string& path() const { return path_; }

  // A finite number ≥ min (or > min when `strict`).
  std::optional<double> number(Name key, double min, bool strict, std::string_view range) {
    const auto [v, written] = find(key);
    if (!v) return std::nullopt;
    const double x = v->is_number() ? v->get<double>() : std::numeric_limits<double>::quiet_NaN();
    if (!std::isfinite(x) || x < min || (strict && x == min)) {
      bad(at(written), fmt::format("{} must be a finite number {}, got {}{}", at(written), range, brief(*v),
                                   v->is_string() ? " (a string: write the number itself, e.g. 10000 or 1e4)" : ""));
    }
    return x;
  }
  // The same, with the bounds of the schema's field.
  std::optional<double> number(Name key) {
    const schema::Bounds b = schema::number_bounds(def_, key.canonical);
    const auto v = number(key, b.min, b.strict, b.range);
    if (v && b.max && *v > *b.max) {
      const auto [raw, written] = find(key);
      bad(at(written), fmt::format("{} must be a finite number {}, got {}", at(written), b.range, brief(*raw)));
    }
    return v;
  }
  std::optional<std::int64_t> integer(Name key) {
    const auto [min, max] = schema::integer_bounds(def_, key.canonical);
    return integer(key, min, max);
  }
  template <class Parse>
  auto choice(Name key, Parse parse) -> decltype(parse(std::string_view())) {
    return choice(key, schema::choices(def_, key.canonical), parse);
  }
  // A field's name with its alias (x-pecheck-alias-of) from the schema's definition.
  static Name aliased(std::string_view def, std::string_view canonical) {
    for (const auto& [alias, of] : schema::aliases(def)) {
      if (of == canonical) return Name(canonical, alias);
    }
    return Name(canonical);
  }

  std::optional<std::int64_t> integer(Name key, std::int64_t min, std::int64_t max = 1LL << 40) {
    const auto [v, written] = find(key);
    if (!v) return std::nullopt;
    if (!fits(*v, min, max)) {
      bad(at(written), fmt::format("{} must be an integer from {} to {}, got {}", at(written), min, max, brief(*v)));
    }
    return v->get<std::int64_t>();
  }
  std::optional<bool> boolean(Name key) {
    const auto [v, written] = find(key);
    if (!v) return std::nullopt;
    if (!v->is_boolean()) bad(at(written), fmt::format("{} must be true or false, got {}", at(written), brief(*v)));
    return v->get<bool>();
  }
  template <class Parse>
  auto choice(Name key, const Keys& choices, Parse parse) -> decltype(parse(std::string_view())) {
    const auto [v, written] = find(key);
    if (!v) return std::nullopt;
    if (!v->is_string() || !among(v->get_ref<const std::string&>(), choices)) {
      bad(at(written), fmt::format("{} must be one of {}, got {}", at(written), list(choices), brief(*v)));
    }
    return parse(v->get_ref<const std::string&>());
  }
  // A non-empty list of finite numbers > 0 (per-pair factors), at most 2^16.
  std::optional<std::vector<double>> positive_numbers(Name key) {
    const auto [v, written] = find(key);
    if (!v) return std::nullopt;
    const auto refuse = [&] {
      bad(at(written), fmt::format("{} must be a non-empty list of finite numbers > 0 (one per pair), got {}",
                                   at(written), brief(*v)));
    };
    if (!v->is_array() || v->empty() || v->size() > (1u << 16)) refuse();
    std::vector<double> out;
    out.reserve(v->size());
    for (const json& item : *v) {
      const double x = item.is_number() ? item.get<double>() : std::numeric_limits<double>::quiet_NaN();
      if (!std::isfinite(x) || x <= 0) refuse();
      out.push_back(x);
    }
    return out;
  }
  // A list of `count` integers in [min, max].
  std::optional<std::vector<int>> integers(Name key, std::size_t count, int min, int max) {
    const auto [v, written] = find(key);
    if (!v) return std::nullopt;
    const auto refuse = [&] {
      bad(at(written), fmt::format("{} must be a list of {} integers from {} to {}, got {}", at(written), count, min,
                                   max, brief(*v)));
    };
    if (!v->is_array() || v->size() != count) refuse();
    std::vector<int> out;
    for (const json& item : *v) {
      if (!fits(item, min, max)) refuse();
      out.push_back(item.get<int>());
    }
    return out;
  }
  // A list, recorded as declared.
  const json* array(Name key) {
    const auto [v, written] = find(key);
    if (v && !v->is_array()) bad(at(written), fmt::format("{} must be a list, got {}", at(written), brief(*v)));
    return v;
  }
  // A nested value (not itself a declared leaf).
  const json* object(std::string_view key) const {
    const auto it = object_.find(key);
    return it == object_.end() ? nullptr : &*it;
  }
  // The key as the subject wrote it (the canonical name or its alias).
  std::string_view written(Name key) const {
    return !key.alias.empty() && object_.contains(key.alias) ? key.alias : key.canonical;
  }

 private:
  void refuse_unknown(const Keys& known, const Keys& suggested) {
    if (!object_.is_object()) bad(path_, fmt::format("{} must be an object, got {}", path_, brief(object_)));
    for (const auto& [key, value] : object_.items()) {
      if (among(key, known)) continue;
      const std::string near = closest(key, std::vector<std::string>(suggested.begin(), suggested.end()));
      Keys config_names;  // the suggested names not listed as fields: the config names read as them
      for (auto name : suggested) {
        if (!among(name, known)) config_names.push_back(name);
      }
      bad(at(key), fmt::format("{}: a field pecheck does not know ({} has: {}{}){}", valid_utf8(at(key).substr(0, 200)),
                               path_, list(known),
                               config_names.empty() ? "" : fmt::format("; and config names: {}", list(config_names)),
                               near.empty() ? "" : fmt::format("; did you mean {}?", near)));
    }
  }
  static bool fits(const json& v, std::int64_t min, std::int64_t max) {
    if (!v.is_number_integer()) return false;
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      return u <= static_cast<std::uint64_t>(max) && (min <= 0 || u >= static_cast<std::uint64_t>(min));
    }
    return v.get<std::int64_t>() >= min && v.get<std::int64_t>() <= max;
  }
  std::pair<const json*, std::string_view> find(Name key) {
    const auto canonical = object_.find(key.canonical);
    const auto alias = key.alias.empty() ? object_.end() : object_.find(key.alias);
    if (canonical != object_.end() && alias != object_.end()) {
      bad(at(key.alias), fmt::format("{} and {} are the same field (transformers' spelling and pecheck's): give one",
                                     at(key.canonical), at(key.alias)));
    }
    const auto it = canonical != object_.end() ? canonical : alias;
    if (it == object_.end()) return {nullptr, key.canonical};
    declared_.push_back(at(key.canonical));
    return {&*it, it == canonical ? key.canonical : key.alias};
  }

  const json& object_;
  std::string path_;
  std::vector<std::string>& declared_;
  std::string_view def_;
};

}  // namespace pecheck::process
