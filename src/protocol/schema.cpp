#include "protocol/schema.h"

#include <fmt/format.h>

#include <stdexcept>

namespace pecheck::process::schema {

// Defined in the file CMake generates from python/pecheck/protocol.schema.json.
extern const char* const kEmbeddedSchema;

namespace {

// A broken schema is a build defect, not a subject's mistake.
[[noreturn]] void broken(const std::string& what) {
  throw std::logic_error("python/pecheck/protocol.schema.json: " + what);
}

const Node& resolve(const Node& node) {
  if (!node.is_object() || !node.contains("$ref")) return node;
  const std::string ref = node.at("$ref").get<std::string>();
  if (ref.rfind("#", 0) != 0) broken("a $ref outside the file: " + ref);
  const Node::json_pointer pointer(ref.substr(1));
  if (!root().contains(pointer)) broken("a $ref to nothing: " + ref);
  return resolve(root().at(pointer));
}

// The property nodes of a definition, own first, then allOf's and $ref's.
void collect(const Node& node, std::vector<std::pair<std::string_view, const Node*>>& out) {
  if (const auto p = node.find("properties"); p != node.end()) {
    // it.key() is a reference into the parsed schema: the views stay valid.
    for (auto it = p->begin(); it != p->end(); ++it) out.emplace_back(it.key(), &it.value());
  }
  if (const auto all = node.find("allOf"); all != node.end()) {
    for (const Node& part : *all) collect(resolve(part), out);
  }
  if (node.contains("$ref")) collect(resolve(node), out);
}

std::vector<std::pair<std::string_view, const Node*>> properties(std::string_view def_name) {
  std::vector<std::pair<std::string_view, const Node*>> out;
  collect(def(def_name), out);
  return out;
}

const Node& field_node(std::string_view def_name, std::string_view field) {
  for (const auto& [key, value] : properties(def_name)) {
    if (key == field) return resolve(*value);
  }
  broken(fmt::format("$defs/{} has no field {}", def_name, field));
}

std::string number_text(double x) { return fmt::format("{:g}", x); }

}  // namespace

std::string_view text() { return kEmbeddedSchema; }

const Node& root() {
  static const Node parsed = Node::parse(kEmbeddedSchema);
  return parsed;
}

const Node& def(std::string_view name) {
  const Node& defs = root().at("$defs");
  const auto it = defs.find(std::string(name));
  if (it == defs.end()) broken(fmt::format("no $defs/{}", name));
  return *it;
}

Names fields(std::string_view def_name, bool with_aliases) {
  Names out;
  for (const auto& [key, value] : properties(def_name)) {
    if (!with_aliases && value->contains("x-pecheck-alias-of")) continue;
    out.push_back(key);
  }
  return out;
}

std::vector<std::pair<std::string_view, std::string_view>> aliases(std::string_view def_name) {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  for (const auto& [key, value] : properties(def_name)) {
    if (const auto of = value->find("x-pecheck-alias-of"); of != value->end()) {
      out.emplace_back(key, of->get_ref<const std::string&>());
    }
  }
  return out;
}

std::vector<Alias> alias_list(std::string_view def_name) {
  std::vector<Alias> out;
  for (const auto& [key, value] : properties(def_name)) {
    if (const auto of = value->find("x-pecheck-alias-of"); of != value->end()) {
      const auto as = value->find("x-pecheck-as");
      out.push_back({key, of->get_ref<const std::string&>(),
                     as == value->end() ? std::string_view() : std::string_view(as->get_ref<const std::string&>())});
    }
  }
  return out;
}

Names choices(std::string_view def_name, std::string_view field) {
  const Node& node = field_node(def_name, field);
  const auto e = node.find("enum");
  if (e == node.end()) broken(fmt::format("$defs/{}.{} has no enum", def_name, field));
  Names out;
  for (const Node& v : *e) {
    if (v.is_string()) out.push_back(v.get_ref<const std::string&>());
  }
  return out;
}

Names annotation(std::string_view def_name, std::string_view key) {
  const Node& node = def_name.empty() ? root() : def(def_name);
  const auto it = node.find(std::string(key));
  if (it == node.end() || !it->is_array()) broken(fmt::format("no list {} in {}", key, def_name));
  Names out;
  for (const Node& v : *it) out.push_back(v.get_ref<const std::string&>());
  return out;
}

Bounds number_bounds(std::string_view def_name, std::string_view field) {
  const Node& node = field_node(def_name, field);
  Bounds b;
  if (const auto m = node.find("exclusiveMinimum"); m != node.end()) {
    b.min = m->get<double>();
    b.strict = true;
  } else if (const auto m2 = node.find("minimum"); m2 != node.end()) {
    b.min = m2->get<double>();
  } else {
    broken(fmt::format("$defs/{}.{} has no minimum", def_name, field));
  }
  if (const auto m = node.find("maximum"); m != node.end()) b.max = m->get<double>();
  if (const auto r = node.find("x-pecheck-range"); r != node.end()) {
    b.range = r->get<std::string>();
  } else if (b.max) {
    b.range = fmt::format("in {}{}, {}]", b.strict ? "(" : "[", number_text(b.min), number_text(*b.max));
  } else {
    b.range = fmt::format("{} {}", b.strict ? ">" : "≥", number_text(b.min));
  }
  return b;
}

std::pair<double, double> meaningful(std::string_view def_name, std::string_view field) {
  const Node& node = field_node(def_name, field);
  const auto it = node.find("x-pecheck-meaningful");
  if (it == node.end() || !it->is_array() || it->size() != 2) {
    broken(fmt::format("$defs/{}.{} has no x-pecheck-meaningful [low, high]", def_name, field));
  }
  return {it->at(0).get<double>(), it->at(1).get<double>()};
}

std::pair<std::int64_t, std::int64_t> integer_bounds(std::string_view def_name, std::string_view field) {
  const Node& node = field_node(def_name, field);
  if (!node.contains("minimum") || !node.contains("maximum")) {
    broken(fmt::format("$defs/{}.{} needs minimum and maximum", def_name, field));
  }
  return {node.at("minimum").get<std::int64_t>(), node.at("maximum").get<std::int64_t>()};
}

}  // namespace pecheck::process::schema
