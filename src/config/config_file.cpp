#include "pecheck/config/config_file.h"

#include <fmt/format.h>
#include <fnmatch.h>

#include <cmath>
#include <limits>
#include <set>
#include <toml++/toml.h>

#include "config/subject_config.h"
#include "pecheck/core/bounded_file.h"
#include "pecheck/config/profiles.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/core/suggest.h"

namespace pecheck {

namespace {

constexpr std::string_view kTopKeys[] = {"subject", "profile",         "properties", "cases",      "seed",
                                         "max_position", "subject_timeout", "report_dir", "expect", "tolerance",
                                         "model_config", "history"};
// The kinds a user names, for a message that says what to write.
std::string kinds_in_words() {
  using K = SubjectKind;
  return "write " + subject_spec_syntax({K::builtin, K::mutant, K::cmd, K::plugin, K::fd});
}

class Reader {
 public:
  Reader(std::string source, const std::vector<std::string>& known) : source_(std::move(source)), known_(known) {}

  [[noreturn]] void fail(const toml::source_region& where, std::string_view key, const std::string& why) const {
    throw ConfigError(fmt::format("{}:{}: {}: {}", source_, where.begin.line, key, why));
  }

  std::string string(const toml::node& node, std::string_view key) const {
    if (auto s = node.value<std::string>(); s && node.is_string()) return *s;
    fail(node.source(), key, fmt::format("expected a string, got {}", type_name(node)));
  }
  std::int64_t integer(const toml::node& node, std::string_view key, std::int64_t lo, std::int64_t hi) const {
    if (!node.is_integer()) fail(node.source(), key, fmt::format("expected an integer, got {}", type_name(node)));
    const std::int64_t v = *node.value<std::int64_t>();
    if (v < lo || v > hi) fail(node.source(), key, fmt::format("{} is outside [{}, {}]", v, lo, hi));
    return v;
  }
  double positive(const toml::node& node, std::string_view key,
                  double most = std::numeric_limits<double>::max()) const {
    if (!node.is_number()) fail(node.source(), key, fmt::format("expected a number, got {}", type_name(node)));
    const double v = *node.value<double>();
    if (!(v > 0) || !std::isfinite(v)) fail(node.source(), key, fmt::format("must be a positive number, got {}", v));
    if (v > most) fail(node.source(), key, fmt::format("{} is more than the largest allowed, {}", v, most));
    return v;
  }
  // A string or a non-empty array of strings (an empty one would select
  // nothing, which is never what a file means).
  std::vector<std::string> strings(const toml::node& node, std::string_view key) const {
    if (node.is_string()) return {string(node, key)};
    const toml::array* array = node.as_array();
    if (array == nullptr) fail(node.source(), key, fmt::format("expected a string or an array of strings, got {}", type_name(node)));
    if (array->empty()) {
      fail(node.source(), key, "an empty list names nothing; leave the key out for the default, or name at least one");
    }
    std::vector<std::string> out;
    for (const toml::node& item : *array) out.push_back(string(item, key));
    return out;
  }

  void property_id(const toml::source_region& where, const std::string& id, std::string_view key) const {
    for (const auto& k : known_) {
      if (k == id) return;
    }
    fail(where, key, fmt::format("no property '{}'; see 'pecheck list' (quote ids: \"pe.bounded\")", id));
  }
  void property_glob(const toml::source_region& where, const std::string& glob, std::string_view key) const {
    for (const auto& k : known_) {
      if (fnmatch(glob.c_str(), k.c_str(), 0) == 0) return;
    }
    fail(where, key, fmt::format("'{}' matches no property; see 'pecheck list'", glob));
  }
  bool is_property(const std::string& id) const {
    for (const auto& k : known_) {
      if (k == id) return true;
    }
    return false;
  }

  static std::string type_name(const toml::node& node) {
    switch (node.type()) {
      case toml::node_type::table: return "a table";
      case toml::node_type::array: return "an array";
      case toml::node_type::string: return "a string";
      case toml::node_type::integer: return "an integer";
      case toml::node_type::floating_point: return "a float";
      case toml::node_type::boolean: return "a boolean";
      default: return "a date or time";
    }
  }

 private:
  std::string source_;
  const std::vector<std::string>& known_;
};

std::string joined(std::string_view prefix, std::string_view key) {
  return prefix.empty() ? std::string(key) : fmt::format("{}.{}", prefix, key);
}

// [expect]: property id = "holds" | "violated". Unquoted ids are TOML dotted
// keys (nested tables), so nested tables are flattened back into ids.
void read_expect(const Reader& r, const toml::table& table, const std::string& prefix, FileConfig& out) {
  for (const auto& [k, node] : table) {
    const std::string id = joined(prefix, k.str());
    const std::string key = "expect." + id;
    if (const toml::table* nested = node.as_table(); nested && !r.is_property(id)) {
      read_expect(r, *nested, id, out);
      continue;
    }
    r.property_id(k.source(), id, key);
    const std::string value = r.string(node, key);
    if (value == "holds") out.expect[id] = Expect::holds;
    else if (value == "violated") out.expect[id] = Expect::violated;
    else r.fail(node.source(), key, fmt::format("expected \"holds\" or \"violated\", got \"{}\"", value));
  }
}

// [tolerance]: factor = N, and per property [tolerance."id"] factor = N or bound = X.
void read_tolerance(const Reader& r, const toml::table& table, const std::string& prefix, FileConfig& out) {
  for (const auto& [k, node] : table) {
    const std::string path = joined(prefix, k.str());
    const std::string key = "tolerance." + path;
    if (prefix.empty() && k.str() == "factor") {
      out.tolerance_factor = r.positive(node, key);
      continue;
    }
    const toml::table* entry = node.as_table();
    if (entry == nullptr) {
      r.fail(k.source(), key, "unknown key; [tolerance] holds factor = N and tables [tolerance.\"PROPERTY\"]");
    }
    if (!r.is_property(path)) {
      if (!entry->empty() && !entry->contains("factor") && !entry->contains("bound")) {
        read_tolerance(r, *entry, path, out);
        continue;
      }
      r.property_id(k.source(), path, key);
    }
    for (const auto& [field, value] : *entry) {
      const std::string field_key = fmt::format("{}.{}", key, field.str());
      if (field.str() == "factor") out.tolerance_factors[path] = r.positive(value, field_key);
      else if (field.str() == "bound") out.tolerance_bounds[path] = r.positive(value, field_key);
      else r.fail(field.source(), field_key, "unknown key; a property's tolerance has factor = N or bound = X");
    }
  }
}

FileConfig read(const Reader& r, const toml::table& root, const std::string& source) {
  FileConfig out;
  out.source = source;
  for (const auto& [k, node] : root) {
    const std::string key(k.str());
    if (key == "subject" && node.is_table()) {
      read_subject_declarations(*node.as_table(), source, out);  // [subject."SPEC"] tables
    } else if (key == "subject") {
      out.subjects = r.strings(node, key);
      for (const auto& spec : out.subjects) {
        if (const std::string why = user_subject_problem(spec); !why.empty()) r.fail(node.source(), key, why);
      }
      if (const std::string twice = repeated_subject(out.subjects); !twice.empty()) {
        r.fail(node.source(), key, fmt::format("'{}' is named twice; name each subject once", twice));
      }
    } else if (key == "profile") {
      const std::string name = r.string(node, key);
      if (find_profile(name) == nullptr) r.fail(node.source(), key, fmt::format("unknown profile '{}'; known: {}", name, profile_names()));
      out.profile = name;
    } else if (key == "properties") {
      out.properties = r.strings(node, key);
      for (const auto& glob : out.properties) r.property_glob(node.source(), glob, key);
    } else if (key == "cases") {
      out.cases = static_cast<int>(r.integer(node, key, 1, 10000000));
    } else if (key == "seed") {
      if (node.is_string()) {
        out.seed = r.string(node, key);
        if (*out.seed != "random") r.fail(node.source(), key, "expected a non-negative integer or \"random\"");
      } else {
        out.seed = std::to_string(r.integer(node, key, 0, INT64_MAX));
      }
    } else if (key == "max_position") {
      out.max_position = r.integer(node, key, 1, std::int64_t{1} << 40);
    } else if (key == "history") {
      out.history = static_cast<int>(r.integer(node, key, 1, 4096));
    } else if (key == "subject_timeout") {
      out.subject_timeout = r.positive(node, key, kMaxSubjectTimeoutSeconds);
    } else if (key == "report_dir") {
      out.report_dir = r.string(node, key);
      if (out.report_dir->empty()) r.fail(node.source(), key, "must not be empty");
    } else if (key == "model_config") {
      out.model_config = r.string(node, key);
      if (out.model_config->empty()) r.fail(node.source(), key, "must not be empty (a config.json's path)");
    } else if (key == "expect" || key == "tolerance") {
      const toml::table* table = node.as_table();
      if (table == nullptr) r.fail(node.source(), key, fmt::format("expected a table [{}]", key));
      if (key == "expect") read_expect(r, *table, "", out);
      else read_tolerance(r, *table, "", out);
    } else {
      std::string known;
      std::vector<std::string> keys;
      for (auto top : kTopKeys) {
        known += (known.empty() ? "" : ", ") + std::string(top);
        keys.emplace_back(top);
      }
      const std::string near = closest(key, keys);
      r.fail(k.source(), key, fmt::format("unknown key{} (known: {})",
                                          near.empty() ? "" : fmt::format("; did you mean {}?", near), known));
    }
  }
  return out;
}

// `subject = "…"` and a [subject."SPEC"] table in one file: TOML cannot hold
// `subject` as a value and a table at once (and toml++'s own message garbles
// the key). Names both lines and the fix; "" when the file does not do that.
std::string subject_given_twice(std::string_view text, const std::string& source) {
  int line = 0, value_line = 0, table_line = 0;
  std::size_t at = 0;
  while (at <= text.size() && (value_line == 0 || table_line == 0)) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    std::string_view l = text.substr(at, end - at);
    ++line;
    l.remove_prefix(std::min(l.find_first_not_of(" \t"), l.size()));
    if (value_line == 0 && l.starts_with("subject")) {
      const std::size_t next = l.find_first_not_of(" \t", std::string_view("subject").size());
      if (next != std::string_view::npos && l[next] == '=') value_line = line;
    }
    if (table_line == 0 && (l.starts_with("[subject.") || l.starts_with("[ subject."))) table_line = line;
    at = end + 1;
  }
  if (value_line == 0 || table_line == 0) return "";
  return fmt::format("{}:{}: subject: `subject = …` (line {}) and a [subject.\"SPEC\"] table (line {}) cannot both "
                     "be given: TOML cannot hold `subject` as both a value and a table. Drop the `subject = …` line: "
                     "each [subject.\"SPEC\"] table names a subject to check, with its declarations",
                     source, table_line, value_line, table_line);
}

}  // namespace

std::string user_subject_problem(std::string_view spec) {
  const auto parsed = try_parse_subject_spec(spec);
  if (!parsed) return fmt::format("'{}' has no known kind; {}", spec, kinds_in_words());
  if (parsed->kind == SubjectKind::cpp) {
    return fmt::format("'{}' is a C++ object a program hands pecheck (pecheck/cpp/implementation.h), which cannot be "
                       "started from its name; {}",
                       spec, kinds_in_words());
  }
  if (parsed->kind == SubjectKind::plugin_inproc) {
    return fmt::format("'{}': {} loads the plugin into pecheck itself, where a crash ends the whole run; "
                       "it is internal to 'pecheck serve'. Write {} (the same library, in a child process)",
                       spec, kind_prefix(SubjectKind::plugin_inproc), spec_of(SubjectKind::plugin, parsed->payload));
  }
  // An empty builtin: or mutant: name is left to the factory, which lists the known ones.
  const bool blank = parsed->payload.find_first_not_of(" \t") == std::string::npos;
  if (blank && parsed->kind == SubjectKind::cmd) {
    return fmt::format("'{}' names no command; write {}", spec, spec_of(SubjectKind::cmd, "'python3 my_subject.py'"));
  }
  if (blank && parsed->kind == SubjectKind::plugin) {
    return fmt::format("'{}' names no file; write {}", spec, subject_spec_syntax({SubjectKind::plugin}));
  }
  return "";
}

std::string repeated_subject(const std::vector<std::string>& specs) {
  std::set<std::string_view> seen;
  for (const auto& spec : specs) {
    if (!seen.insert(spec).second) return spec;
  }
  return "";
}

FileConfig parse_config(std::string_view text, const std::string& source,
                        const std::vector<std::string>& known_properties) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    if (const std::string both = subject_given_twice(text, source); !both.empty()) throw ConfigError(both);
    throw ConfigError(fmt::format("{}:{}: {}", source, e.source().begin.line, e.description()));
  }
  return read(Reader(source, known_properties), root, source);
}

FileConfig load_config(const std::string& path, const std::vector<std::string>& known_properties) {
  // A regular file of bounded size: a FIFO or /dev/zero given as --config is an error, not a hang.
  std::string text;
  try {
    text = read_bounded_file(path, kMaxConfigBytes, "config file");
  } catch (const FileReadError& e) {
    throw ConfigError(e.what());
  }
  return parse_config(text, path, known_properties);
}

}  // namespace pecheck
