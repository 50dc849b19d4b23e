#include "pecheck/subjects/factory.h"

#include <fmt/format.h>

#include "pecheck/subjects/builtin/builtins.h"
#include "pecheck/subjects/plugin_factory.h"
#include "pecheck/subjects/process_subject.h"

namespace pecheck {

namespace {
SubjectPtr from_table(const std::vector<SubjectEntry>& table, std::string_view name, std::string_view spec) {
  for (const auto& e : table) {
    if (e.name == name) return e.make();
  }
  std::string known;
  for (const auto& e : table) known += (known.empty() ? "" : ", ") + e.name;
  throw BadSubjectSpec(fmt::format("unknown subject '{}'; known: {}", spec, known));
}
}  // namespace

SubjectPtr make_subject(std::string_view spec, const SubjectOptions& options) {
  const auto colon = spec.find(':');
  if (colon == std::string_view::npos) {
    throw BadSubjectSpec(fmt::format(
        "subject '{}' has no kind; write builtin:NAME, mutant:NAME, cmd:COMMAND, fd:READ,WRITE or plugin:PATH", spec));
  }
  const auto kind = spec.substr(0, colon), rest = spec.substr(colon + 1);
  if (kind == "builtin") return from_table(builtin_subjects(), rest, spec);
  if (kind == "mutant") return from_table(mutant_subjects(), rest, spec);
  if (kind == "cmd") {
    if (rest.find_first_not_of(" \t") == std::string_view::npos) {
      throw BadSubjectSpec(fmt::format("'{}' names no command; write cmd:'python3 my_subject.py'", spec));
    }
    return make_process_subject(std::string(rest), options);
  }
  if (kind == "fd") return make_fd_subject(rest, options);
  if (kind == "plugin" || kind == "plugin-inproc") return make_plugin(kind, rest, spec, options);
  throw BadSubjectSpec(fmt::format("unknown subject kind '{}' in '{}'", kind, spec));
}

bool starts_independently(std::string_view spec, const SubjectOptions& options) {
  const auto colon = spec.find(':');
  if (colon == std::string_view::npos) return false;
  const std::string_view kind = spec.substr(0, colon);
  if (kind == "builtin" || kind == "mutant" || kind == "cmd") return true;
  return kind == "plugin" && !options.executable.empty();
}

}  // namespace pecheck
