#include "config/subject_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "pecheck/core/subject_spec.h"
#include "pecheck/core/suggest.h"

namespace pecheck {

namespace {

constexpr std::string_view kFields[] = {"dtype", "layout", "compute", "params", "max_position"};

[[noreturn]] void fail(const std::string& source, const toml::source_region& where, const std::string& key,
                       const std::string& why) {
  throw ConfigError(fmt::format("{}:{}: {}: {}", source, where.begin.line, key, why));
}

// A TOML value as the JSON a hello would carry (tables, arrays, strings,
// numbers, booleans; a date is no declaration). `path` is the field's dotted
// path in the declarations; `lines` gets where each field is written.
json to_json(const toml::node& node, const std::string& source, const std::string& key, const std::string& path,
             std::map<std::string, std::string>& lines) {
  if (const auto* t = node.as_table()) {
    json out = json::object();
    for (const auto& [k, v] : *t) {
      const std::string field(k.str());
      lines[path + "." + field] = fmt::format("{}:{}", source, k.source().begin.line);
      out[field] = to_json(v, source, key + "." + field, path + "." + field, lines);
    }
    return out;
  }
  if (const auto* a = node.as_array()) {
    json out = json::array();
    for (const auto& v : *a) out.push_back(to_json(v, source, key, path, lines));
    return out;
  }
  if (node.is_string()) return *node.value<std::string>();
  if (node.is_integer()) return *node.value<std::int64_t>();
  if (node.is_floating_point()) {
    // JSON has no nan or inf: kept, they would read as null ("got null").
    const double v = *node.value<double>();
    if (!std::isfinite(v)) {
      fail(source, node.source(), key,
           fmt::format("{} is not allowed in a declaration: write a finite number", std::isnan(v) ? "nan" : "inf"));
    }
    return v;
  }
  if (node.is_boolean()) return *node.value<bool>();
  fail(source, node.source(), key, "a date or time is not a declaration");
}

}  // namespace

void read_subject_declarations(const toml::table& table, const std::string& source, FileConfig& out) {
  for (const auto& [k, node] : table) {
    const std::string spec(k.str());
    const std::string key = fmt::format("subject.\"{}\"", spec);
    if (!try_parse_subject_spec(spec)) {
      using K = SubjectKind;
      fail(source, k.source(), key,
           "has no known kind; write " + subject_spec_syntax({K::builtin, K::mutant, K::cmd, K::fd, K::plugin}));
    }
    const toml::table* fields = node.as_table();
    if (fields == nullptr) {
      fail(source, node.source(), key, "expected a table of declarations (dtype, layout, compute, params, max_position)");
    }
    SubjectDeclaration d;
    d.where = fmt::format("{}:{}", source, k.source().begin.line);
    for (const auto& [field, value] : *fields) {
      const std::string name(field.str());
      const std::string field_key = key + "." + name;
      if (std::find(std::begin(kFields), std::end(kFields), name) == std::end(kFields)) {
        const std::string near = closest(name, std::vector<std::string>(std::begin(kFields), std::end(kFields)));
        fail(source, field.source(), field_key,
             fmt::format("unknown key{} (a subject's table holds dtype, layout, compute, params — as a version-2 "
                         "hello declares them — and max_position)",
                         near.empty() ? "" : fmt::format("; did you mean {}?", near)));
      }
      if (name == "max_position") {
        if (!value.is_integer() || *value.value<std::int64_t>() < 1 || *value.value<std::int64_t>() > (std::int64_t{1} << 40)) {
          fail(source, value.source(), field_key, "expected an integer in [1, 2^40]");
        }
        d.max_position = *value.value<std::int64_t>();
        continue;
      }
      d.lines[name] = fmt::format("{}:{}", source, field.source().begin.line);
      d.declared[name] = to_json(value, source, field_key, name, d.lines);
    }
    if (std::find(out.subjects.begin(), out.subjects.end(), spec) == out.subjects.end()) out.subjects.push_back(spec);
    out.subject_declarations[spec] = std::move(d);
  }
}

}  // namespace pecheck
