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

SubjectPtr make_subject(const SubjectSpec& spec, const SubjectOptions& options) {
  const std::string_view rest = spec.payload;
  switch (spec.kind) {
    case SubjectKind::builtin: return from_table(builtin_subjects(), rest, format_spec(spec));
    case SubjectKind::mutant: return from_table(mutant_subjects(), rest, format_spec(spec));
    case SubjectKind::cmd:
      if (rest.find_first_not_of(" \t") == std::string_view::npos) {
        throw BadSubjectSpec(fmt::format("'{}' names no command; write {}", format_spec(spec),
                                         spec_of(SubjectKind::cmd, "'python3 my_subject.py'")));
      }
      return make_process_subject(spec.payload, options);
    case SubjectKind::fd: return make_fd_subject(rest, options);
    case SubjectKind::plugin:
    case SubjectKind::plugin_inproc: return make_plugin(spec, options);
    case SubjectKind::cpp: break;
  }
  throw BadSubjectSpec(fmt::format("'{}' is a C++ object a program hands pecheck (pecheck/cpp/implementation.h), "
                                   "which cannot be started from its name; write {}",
                                   format_spec(spec),
                                   subject_spec_syntax({SubjectKind::builtin, SubjectKind::mutant, SubjectKind::cmd,
                                                        SubjectKind::fd, SubjectKind::plugin})));
}

SubjectPtr make_subject(std::string_view spec, const SubjectOptions& options) {
  return make_subject(parse_subject_spec(spec), options);
}

bool starts_independently(const SubjectSpec& spec, const SubjectOptions& options) {
  if (starts_again_from_spec(spec.kind)) return true;
  return spec.kind == SubjectKind::plugin && !options.executable.empty();
}

}  // namespace pecheck
