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
  const SubjectSpec parsed = parse_subject_spec(spec);
  const std::string_view rest = parsed.payload;
  switch (parsed.kind) {
    case SubjectKind::builtin: return from_table(builtin_subjects(), rest, spec);
    case SubjectKind::mutant: return from_table(mutant_subjects(), rest, spec);
    case SubjectKind::cmd:
      if (rest.find_first_not_of(" \t") == std::string_view::npos) {
        throw BadSubjectSpec(fmt::format("'{}' names no command; write cmd:'python3 my_subject.py'", spec));
      }
      return make_process_subject(parsed.payload, options);
    case SubjectKind::fd: return make_fd_subject(rest, options);
    case SubjectKind::plugin:
    case SubjectKind::plugin_inproc: return make_plugin(parsed.kind, rest, spec, options);
  }
  throw BadSubjectSpec(fmt::format("unknown subject kind in '{}'", spec));  // not reached: every kind is above
}

bool starts_independently(std::string_view spec, const SubjectOptions& options) {
  const auto parsed = try_parse_subject_spec(spec);
  if (!parsed) return false;
  if (starts_again_from_spec(parsed->kind)) return true;
  return parsed->kind == SubjectKind::plugin && !options.executable.empty();
}

}  // namespace pecheck
