#include "protocol/declarations.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "pecheck/core/escape.h"
#include "pecheck/core/size_limits.h"
#include "protocol/fields.h"
#include "protocol/responses.h"
#include "protocol/schema.h"
#include "protocol/codec.h"
#include "protocol/model_derive.h"
#include "pecheck/core/op_table.h"

namespace pecheck::process {

const Keys& dtype_names() {
  static const Keys names = schema::choices("compute", "angles");
  return names;
}

const Keys& layout_names() {
  static const Keys names = schema::choices("hello", "layout");
  return names;
}

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
// The largest size a declaration may name (the schema's $defs/size; 2^40).
Extent read_extent(const json& v, const std::string& at) {
  static const std::int64_t kLargest = schema::def("size").at("maximum").get<std::int64_t>();
  auto size = [&at](const json& x) {
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

}  // namespace

void read_shapes(const json& object, Op op, SubjectInfo& info) {
  const std::string path = fmt::format("params.{}.shapes", name(op));
  static const std::string dims_known = list(schema::fields("shapes"));  // d, heads, kv_heads, n, m, batch
  if (!object.is_object()) {
    bad(path, fmt::format("{} must be an object of {}, got {}", path, dims_known, brief(object)));
  }
  std::map<ShapeDim, Extent> dims;
  for (const auto& [key, value] : object.items()) {
    const auto dim = parse_shape_dim(key);
    const std::string at = path + "." + valid_utf8(key.substr(0, 100));
    if (!dim || !among(key, schema::fields("shapes"))) {
      bad(at, fmt::format("the subject declares {}, a dimension pecheck does not know ({} has: {})", at, path,
                          dims_known));
    }
    dims[*dim] = read_extent(value, at);
    info.declared.push_back(at);
  }
  // Within what pecheck can send (core/size_limits.h): no size it cannot
  // hold, no request it cannot afford.
  if (auto problem = size_problem(op, dims, path)) bad(path + "." + std::string(name(problem->dim)), problem->message);
  info.shapes.ops[op] = std::move(dims);
}

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

json nested_aliases_resolved(json object, const std::string& path, std::string_view def) {
  if (!object.is_object()) return object;
  for (const auto& alias : schema::alias_list(def)) {
    const auto dot = alias.of.find('.');
    const auto it = object.find(std::string(alias.name));
    if (dot == std::string_view::npos || it == object.end()) continue;
    const json value = *it;
    object.erase(it);
    const std::string outer(alias.of.substr(0, dot)), inner(alias.of.substr(dot + 1));
    json& nested = object[outer];
    if (nested.is_null()) nested = json::object();
    if (!nested.is_object()) continue;  // the reader refuses the outer field itself
    if (nested.contains(inner) && nested.at(inner) != value) {
      bad(path + "." + std::string(alias.name),
          fmt::format("{}.{} ({}) and {}.{} ({}) say different things: give one", path, alias.name, brief(value),
                      path, alias.of, brief(nested.at(inner))));
    }
    nested[inner] = value;
  }
  return object;
}

bool declared(const SubjectInfo& info, std::string_view path) {
  return std::find(info.declared.begin(), info.declared.end(), path) != info.declared.end();
}

namespace {

// Whether a subject may declare params.<op>: it supports the op, or an op of
// the protocol declared under it (decode follows forward's conventions and
// shapes: core/op_table.h).
bool declarable(const SubjectInfo& info, Op op) {
  for (Op x : all_ops()) {
    if ((x == op || (op_row(x).on_wire && declared_under(x) == op)) && info.supports(x)) return true;
  }
  return false;
}

}  // namespace

void read_compute(const json& object, SubjectInfo& info) {
  Fields f(object, "compute", info.declared, "compute", true);
  info.compute.angles = f.choice({"angles"}, parse_dtype);
  info.compute.accumulate = f.choice({"accumulate"}, parse_dtype);
}

void read_params(const json& object, SubjectInfo& info) {
  std::vector<std::string> unused;
  // Each op with a params codec, and model, a config.json (SUBJECT-PROTOCOL.md "Model configs"): the
  // schema's list, which tests/test_protocol_schema.cpp holds equal to the codecs'.
  Fields f(object, "params", unused, "params", true);
  for (Op op : all_ops()) {
    const ParamsCodec* codec = params_codec(op);
    const json* v = codec ? f.object(name(op)) : nullptr;
    if (!v) continue;
    if (!declarable(info, op)) {
      bad(f.at(name(op)), fmt::format("the subject declares params.{} but not the op {} in ops", name(op), name(op)));
    }
    codec->read(*v, info);
  }
  // After the explicit params: what the config implies is laid under them, and checked against them.
  if (const json* config = f.object("model")) model::apply_model_config(*config, info);
}

json compute_json(const SubjectInfo& info) {
  json compute = json::object();
  if (info.compute.angles) compute["angles"] = std::string(name(*info.compute.angles));
  if (info.compute.accumulate) compute["accumulate"] = std::string(name(*info.compute.accumulate));
  return compute;
}

json params_json(const SubjectInfo& info) {
  json params = json::object();
  for (Op op : all_ops()) {
    const ParamsCodec* codec = params_codec(op);
    if (!codec || !declarable(info, op)) continue;
    if (json written = codec->write(info); !written.is_null() && !written.empty()) {
      params[std::string(name(op))] = std::move(written);
    }
  }
  return params;
}

}  // namespace pecheck::process
