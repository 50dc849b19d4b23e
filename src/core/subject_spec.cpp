#include "pecheck/core/subject_spec.h"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace pecheck {

namespace {

// Each kind: as spelt before the ':', and the placeholder of its payload in
// help texts and messages.
struct KindRow {
  SubjectKind kind;
  std::string_view spelt;
  std::string_view placeholder;
};

constexpr std::array<KindRow, 7> kKinds{{
    {SubjectKind::builtin, "builtin", "NAME"},
    {SubjectKind::mutant, "mutant", "NAME"},
    {SubjectKind::cmd, "cmd", "COMMAND"},
    {SubjectKind::plugin, "plugin", "PATH"},
    {SubjectKind::plugin_inproc, "plugin-inproc", "PATH"},
    {SubjectKind::fd, "fd", "READ,WRITE"},
    {SubjectKind::cpp, "cpp", "NAME"},
}};

const KindRow& row_of(SubjectKind kind) {
  for (const auto& row : kKinds) {
    if (row.kind == kind) return row;
  }
  return kKinds.front();  // unreachable: every kind has a row
}

std::optional<SubjectKind> kind_named(std::string_view name) {
  for (const auto& row : kKinds) {
    if (row.spelt == name) return row.kind;
  }
  return std::nullopt;
}

}  // namespace

std::string_view kind_name(SubjectKind kind) { return row_of(kind).spelt; }

SubjectSpec builtin_spec(std::string_view name) { return {SubjectKind::builtin, std::string(name)}; }
SubjectSpec mutant_spec(std::string_view name) { return {SubjectKind::mutant, std::string(name)}; }
SubjectSpec cpp_spec(std::string_view name) { return {SubjectKind::cpp, std::string(name)}; }

std::string subject_spec_syntax(std::initializer_list<SubjectKind> kinds) {
  std::string out;
  std::size_t i = 0;
  for (SubjectKind kind : kinds) {
    if (i > 0) out += i + 1 == kinds.size() ? " or " : ", ";
    out += spec_of(kind, row_of(kind).placeholder);
    ++i;
  }
  return out;
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
    using K = SubjectKind;
    throw BadSubjectSpec(fmt::format("subject '{}' has no kind; write {}", spec,
                                     subject_spec_syntax({K::builtin, K::mutant, K::cmd, K::fd, K::plugin})));
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

std::string kind_prefix(SubjectKind kind) { return spec_of(kind, ""); }

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
