#include "pecheck/subjects/plugin_factory.h"

#include <fmt/format.h>

#include <filesystem>

#include "pecheck/core/shell_quote.h"
#include "pecheck/subjects/copies.h"
#include "subjects/plugin/plugin_subject.h"
#include "pecheck/subjects/process_subject.h"

namespace pecheck {

namespace {

// A plugin served by a child `pecheck serve plugin-inproc:PATH`, named as the
// user named it. A plugin declares no expectation scheme of its own: the
// profile its ops imply (or --profile) decides what it must satisfy.
class ServedPlugin : public SubjectDecorator {
 public:
  ServedPlugin(SubjectPtr child, SubjectSpec spec)
      : SubjectDecorator(*child), child_(std::move(child)), info_(child_->info()) {
    info_.spec = std::move(spec);
    info_.scheme.clear();
  }
  const SubjectInfo& info() const override { return info_; }

 protected:
  SubjectPtr child_;
  SubjectInfo info_;
};

// The same where the child `pecheck serve` forks fresh copies: each is named alike.
class ServedCopyingPlugin final : public ServedPlugin, public CopyingSubject {
 public:
  using ServedPlugin::ServedPlugin;
  SubjectPtr fresh_copy() override {
    SubjectPtr copy = fresh_copy_of(*child_);
    return copy ? std::make_unique<ServedCopyingPlugin>(std::move(copy), info_.spec) : nullptr;
  }
};

SubjectPtr served(SubjectPtr child, SubjectSpec spec) {
  if (makes_fresh_copies(*child)) return std::make_unique<ServedCopyingPlugin>(std::move(child), std::move(spec));
  return std::make_unique<ServedPlugin>(std::move(child), std::move(spec));
}

// The loader's own sentence, when the child said why it could not load.
std::string load_error(const std::string& stderr_tail) {
  constexpr std::string_view prefix = "pecheck serve: ";
  const auto at = stderr_tail.rfind(prefix);
  if (at == std::string::npos) return {};
  std::string line = stderr_tail.substr(at + prefix.size());
  return line.substr(0, line.find('\n'));
}

SubjectPtr serve_in_child(const std::string& path, const SubjectSpec& spec, const SubjectOptions& options) {
  // Fail early and plainly for the commonest mistake, before starting a child.
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw SubjectFailure(fmt::format("cannot load plugin {}: no such file", path));
  }
  // exec: the child is pecheck itself, so a crash reads as its signal, not a shell's exit 139.
  // The child shares this working directory, so the path is passed as the user spelled it.
  std::string command =
      fmt::format("exec {} serve {}", shell_quote(options.executable), shell_quote(spec_of(SubjectKind::plugin_inproc, path)));
  if (!options.declarations.is_null()) command += " --declarations " + shell_quote(options.declarations.dump());
  try {
    return served(make_process_subject(command, options), spec);
  } catch (const SubjectFailure& f) {
    const std::string why = load_error(f.stderr_tail);
    if (why.empty()) throw;
    throw SubjectFailure(why, f.request, f.received, f.stderr_tail, f.exit_status);
  }
}

}  // namespace

SubjectPtr make_plugin(const SubjectSpec& spec, const SubjectOptions& options) {
  const std::string& path = spec.payload;
  if (path.empty()) {
    throw BadSubjectSpec(fmt::format("'{}' names no file; write {} (e.g. {})", format_spec(spec),
                                     subject_spec_syntax({spec.kind}), spec_of(spec.kind, "./libmy_encoder.so")));
  }
  if (spec.kind == SubjectKind::plugin && !options.executable.empty()) return serve_in_child(path, spec, options);
  return make_plugin_subject(path, spec);
}

}  // namespace pecheck
