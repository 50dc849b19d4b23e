#include "pecheck/core/subject_spec.h"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace pecheck {

namespace {

constexpr std::array<std::pair<SubjectKind, std::string_view>, 6> kKinds{{
    {SubjectKind::builtin, "builtin"},
    {SubjectKind::mutant, "mutant"},
    {SubjectKind::cmd, "cmd"},
    {SubjectKind::plugin, "plugin"},
    {SubjectKind::plugin_inproc, "plugin-inproc"},
    {SubjectKind::fd, "fd"},
}};

std::optional<SubjectKind> kind_named(std::string_view name) {
  for (const auto& [kind, spelt] : kKinds) {
    if (spelt == name) return kind;
  }
  return std::nullopt;
}

}  // namespace

std::string_view kind_name(SubjectKind kind) {
  for (const auto& [k, spelt] : kKinds) {
    if (k == kind) return spelt;
  }
  return "?";
}

std::optional<SubjectSpec> try_parse_subject_spec(std::string_view spec) {
  const auto colon = spec.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const auto kind = kind_named(spec.substr(0, colon));
  if (!kind) return std::nullopt;
  return SubjectSpec{*kind, std::string(spec.substr(colon + 1))};
}

SubjectSpec parse_subject_spec(std::string_view spec) {
  if (auto parsed = try_parse_subject_spec(spec)) return std::move(*parsed);
  const auto colon = spec.find(':');
  if (colon == std::string_view::npos) {
    throw BadSubjectSpec(fmt::format(
        "subject '{}' has no kind; write builtin:NAME, mutant:NAME, cmd:COMMAND, fd:READ,WRITE or plugin:PATH", spec));
  }
  throw BadSubjectSpec(fmt::format("unknown subject kind '{}' in '{}'", spec.substr(0, colon), spec));
}

std::string spec_of(SubjectKind kind, std::string_view payload) {
  std::string out(kind_name(kind));
  out += ':';
  out += payload;
  return out;
}

std::string format_spec(const SubjectSpec& spec) { return spec_of(spec.kind, spec.payload); }

bool is_kind(std::string_view spec, SubjectKind kind) {
  const auto parsed = try_parse_subject_spec(spec);
  return parsed && parsed->kind == kind;
}

bool is_builtin_like(SubjectKind kind) { return kind == SubjectKind::builtin || kind == SubjectKind::mutant; }

bool starts_again_from_spec(SubjectKind kind) { return is_builtin_like(kind) || kind == SubjectKind::cmd; }

bool runs_in_another_process(SubjectKind kind) {
  return kind == SubjectKind::cmd || kind == SubjectKind::fd || kind == SubjectKind::plugin;
}

}  // namespace pecheck
