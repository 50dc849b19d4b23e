#include "pecheck/runner/subject_maker.h"

#include <fmt/format.h>

#include "pecheck/subjects/declare.h"
#include "pecheck/protocol/model_config.h"

namespace pecheck {

SubjectOptions subject_options(const RunOptions& options) {
  SubjectOptions out;
  out.timeout_seconds = options.subject_timeout;
  out.executable = options.executable;
  out.fork = options.fork;
  return out;
}

namespace {

// Where a refused declaration was written: its field's line, else the nearest
// enclosing table's, else the [subject."SPEC"] table's own ("" when unknown).
std::string declared_at(const std::map<std::string, std::string>& lines, std::string field) {
  for (;;) {
    if (auto at = lines.find(field); at != lines.end()) return at->second;
    const auto dot = field.rfind('.');
    if (dot == std::string::npos) {
      const auto table = lines.find("");
      return table != lines.end() ? table->second : "";
    }
    field.resize(dot);
  }
}

}  // namespace

namespace {

// --model-config PATH: the config read as the subject's params.model, over
// every other declaration, so that each explicit field is checked against it.
SubjectPtr with_model_config(SubjectPtr subject, const RunOptions& options) {
  if (options.model_config.empty()) return subject;
  const json config = model::load_model_config(options.model_config);
  try {
    return with_declarations(std::move(subject), {{"params", {{"model", config}}}});
  } catch (const BadDeclaration& e) {
    throw BadDeclaration(e.field, fmt::format("--model-config {}: {}", options.model_config, e.what()));
  }
}

}  // namespace

// The subject with pecheck.toml's declarations for it.
namespace {
SubjectPtr declared_subject(const SubjectSpec& given, const RunOptions& options) {
  const std::string spec = format_spec(given);  // pecheck.toml's [subject."SPEC"] tables are keyed by the text
  const auto declared = options.declarations.find(spec);
  SubjectOptions made = subject_options(options);
  // A plugin in a child gets its declarations too (its hello then carries them).
  if (declared != options.declarations.end() && given.kind == SubjectKind::plugin) made.declarations = declared->second;
  SubjectPtr subject;
  try {
    subject = make_subject(given, made);
  } catch (const SubjectFailure&) {
    if (made.declarations.is_null()) throw;
    // The child refused them, or could not load the plugin: again without
    // them, so that a refused declaration is read below, naming its line.
    made.declarations = nullptr;
    subject = make_subject(given, made);
  }
  if (declared == options.declarations.end()) return subject;
  try {
    return with_declarations(std::move(subject), declared->second);  // BadDeclaration: exit 2, naming the field
  } catch (const BadDeclaration& e) {
    const auto lines = options.declaration_lines.find(spec);
    if (lines == options.declaration_lines.end()) throw;
    const std::string where = declared_at(lines->second, e.field);
    if (where.empty()) throw;
    throw BadDeclaration(e.field, fmt::format("{}: subject.\"{}\".{}: {}", where, spec, e.field, e.what()));
  }
}

}  // namespace

SubjectPtr make_subject_for(const SubjectSpec& given, const RunOptions& options) {
  return with_model_config(declared_subject(given, options), options);
}

}  // namespace pecheck
