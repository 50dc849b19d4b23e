#pragma once
// The protocol's schema (python/pecheck/protocol.schema.json, embedded at
// build time: one file, read by these readers and by the Python package):
// the names and the per-field rules of a hello's declarations. The hello
// readers take from here every field list, choice list, alias and numeric
// bound, so a name or a number lives in the schema alone; the rules that join
// several fields (kv_heads divides heads, a type's required fields) stay in
// the readers. The schema is JSON Schema 2020-12; this reader interprets the
// subset the file uses: properties (own, then allOf's and $ref's, in order),
// enum, minimum / exclusiveMinimum / maximum, and the x-pecheck-* annotations.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace pecheck::process::schema {

using Node = nlohmann::ordered_json;
using Names = std::vector<std::string_view>;  // views into the parsed schema, alive for the whole run

// The schema's text as embedded, and the parsed whole.
std::string_view text();
const Node& root();

// A definition under $defs ("params.rotate", "scaling", "attention_conventions").
const Node& def(std::string_view name);

// Its field names in the schema's order (own properties, then allOf's, then
// $ref's); `with_aliases` false leaves out the fields that are another
// field's config name (x-pecheck-alias-of).
Names fields(std::string_view def_name, bool with_aliases = true);
// The alias → canonical pairs of a definition's fields.
std::vector<std::pair<std::string_view, std::string_view>> aliases(std::string_view def_name);
// The same with how a value is read (x-pecheck-as: "" as written, "inverse_sqrt" 1/√v); `of` may be a
// dotted path into a nested object ("shapes.d").
struct Alias {
  std::string_view name, of, as;
};
std::vector<Alias> alias_list(std::string_view def_name);
// The string choices of a field (its enum, after $ref; null left out).
Names choices(std::string_view def_name, std::string_view field);
// A string list kept as an annotation (x-pecheck-common, x-pecheck-v1-ops …)
// of a definition, or of the root when `def_name` is empty.
Names annotation(std::string_view def_name, std::string_view key);

// A numeric field's bounds: min (strict when exclusiveMinimum), max, and how
// a refusal words the range (x-pecheck-range, else derived).
struct Bounds {
  double min = 0;
  bool strict = false;
  std::optional<double> max;
  std::string range;
};
Bounds number_bounds(std::string_view def_name, std::string_view field);
// A field's meaningful range (x-pecheck-meaningful: [low, high], issue 39), within its type's bounds.
std::pair<double, double> meaningful(std::string_view def_name, std::string_view field);
// An integer field's [min, max].
std::pair<std::int64_t, std::int64_t> integer_bounds(std::string_view def_name, std::string_view field);

}  // namespace pecheck::process::schema
