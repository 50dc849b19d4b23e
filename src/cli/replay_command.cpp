// `pecheck replay FILE [--subject SPEC]`: measure one recorded counterexample
// again, against the subject it was found on or another one.
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "pecheck/config/config_file.h"
#include "pecheck/core/shell_quote.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/property/registry.h"
#include "pecheck/replay/replay.h"
#include "pecheck/core/escape.h"
#include "pecheck/report/json_writer.h"
#include "pecheck/subjects/factory.h"

#ifndef PECHECK_VERSION
#define PECHECK_VERSION "0.0.0"
#endif

namespace pecheck::cli {

namespace {

std::string dump(const json& j) {
  std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > 2000) s = s.substr(0, 2000) + " …";
  return escape_terminal(s);
}

void print(const RecordedCase& recorded, const PropertyDef& property, const PropertyResult& r) {
  std::cout << fmt::format("replay {} against {}\n", r.property, escape_terminal(r.subject));
  std::cout << fmt::format("  claim:    {}\n", property.info.claim);
  std::string origin = fmt::format("  recorded: against {}", escape_terminal(recorded.subject));
  if (!recorded.pecheck_version.empty()) origin += fmt::format(" with pecheck {}", escape_terminal(recorded.pecheck_version));
  if (recorded.recorded) {
    const auto& c = *recorded.recorded;
    origin += fmt::format(": error {:.4g} vs bound {:.4g} at {}", c.error, c.tolerance.bound, escape_terminal(c.where()));
  }
  std::cout << origin << "\n";
  if (!recorded.pecheck_version.empty() && recorded.pecheck_version != PECHECK_VERSION) {
    std::cout << fmt::format("  note:     recorded with pecheck {}, this is {}\n",
                             escape_terminal(recorded.pecheck_version), PECHECK_VERSION);
  }
  std::cout << fmt::format("  inputs:   {}\n", dump(recorded.inputs));
  if (r.held() || r.violation()) {
    const Tolerance t = r.tolerance();
    std::cout << fmt::format("  now:      error {:.4g} {} bound {:.4g} ({})\n", r.error(), r.held() ? "<=" : ">",
                             t.bound, escape_terminal(t.formula));
  }
  if (const Counterexample* c = r.counterexample()) {
    std::cout << fmt::format("  at {} ({}): observed {}, expected {}\n", escape_terminal(c->where()),
                             escape_terminal(c->check), dump(c->observed), dump(c->expected));
  }
  if (const std::string message = r.message(); !message.empty()) {
    std::cout << fmt::format("  message:  {}\n", escape_terminal(message));
  }
  if (const SubjectFailureInfo* f = r.subject_failure(); f != nullptr && !f->stderr_tail.empty()) {
    std::cout << "  stderr tail:\n" << escape_terminal(f->stderr_tail) << "\n";
  }
  std::cout << fmt::format("  expected: {} (for {})\n", name(r.expectation), escape_terminal(r.subject));
  std::cout << fmt::format("verdict: {}\n", replay_verdict(r));
}

// The trust gate. A counterexample file is untrusted input (it may come from
// a CI artifact or a bug report), and a cmd: or plugin: spec in it is code to
// run: it runs only when the person replaying names the same spec (--subject,
// or the subjects of their --config), or says --trust-recorded-subject.
// Built-in and mutant subjects run nothing from outside and replay freely.
// Returns why the recorded subject may not run, or "" when it may.
std::string untrusted(const ReplayOptions& o, const std::string& spec) {
  const auto parsed = try_parse_subject_spec(spec);
  if (parsed && is_builtin_like(parsed->kind)) return "";
  const std::string file = escape_terminal(o.file);
  if (const std::string why = user_subject_problem(spec); !why.empty()) {
    return fmt::format("{} records a subject pecheck does not run: {}", file, escape_terminal(why));
  }
  if (o.trust_recorded_subject) return "";
  if (!o.config.empty()) {
    std::vector<std::string> ids;
    for (const auto& p : all_properties()) ids.push_back(p.info.id);
    const FileConfig config = load_config(o.config, ids);  // ConfigError: the caller's exit 2
    for (const auto& trusted : config.subjects) {
      if (trusted == spec) return "";
    }
  }
  const bool command = parsed && parsed->kind == SubjectKind::cmd;
  return fmt::format(
      "{} records the subject {}, which {}; pecheck does not run what a file says to run. To replay against it, "
      "name it yourself: --subject {}{}, or pass --trust-recorded-subject if you trust the file (e.g. you made it); "
      "or replay against another subject with --subject SPEC",
      file, escape_terminal(shell_quote(spec)), command ? "runs a shell command" : "loads a plugin library",
      escape_terminal(shell_quote(spec)),
      o.config.empty() ? ", or list it in the subject of a --config file"
                       : fmt::format(" (it is not among the subjects of {})", escape_terminal(o.config)));
}

}  // namespace

int replay(const ReplayOptions& o) {
  RecordedCase recorded;
  try {
    recorded = read_recorded_case(o.file);
  } catch (const ReplayFileError& e) {
    std::cerr << "pecheck: " << escape_terminal(e.what()) << "\n";
    return kExitUsage;
  }
  const PropertyDef* property = find_property(recorded.property);
  if (property == nullptr) {
    std::cerr << fmt::format("pecheck: {} names property '{}', which this pecheck does not have; see 'pecheck list'\n",
                             escape_terminal(o.file), escape_terminal(recorded.property));
    return kExitUsage;
  }
  // The inputs must fit the property before any subject is started for them.
  try {
    property->impl.validate(recorded.inputs);
  } catch (const InvalidInput& e) {
    std::cerr << fmt::format("pecheck: {}: the recorded inputs do not fit {}: {}\n", escape_terminal(o.file),
                             recorded.property, escape_terminal(e.what()));
    return kExitUsage;
  }
  const std::string spec = o.subject.empty() ? recorded.subject : o.subject;
  if (o.subject.empty()) {
    try {
      if (const std::string why = untrusted(o, spec); !why.empty()) {
        std::cerr << "pecheck: " << why << "\n";
        return kExitUsage;
      }
    } catch (const ConfigError& e) {
      std::cerr << "pecheck: " << escape_terminal(e.what()) << "\n";
      return kExitUsage;
    }
  }
  SubjectPtr subject;
  try {
    subject = make_subject(spec, {.timeout_seconds = o.subject_timeout, .executable = o.executable});
  } catch (const BadSubjectSpec& e) {
    std::cerr << "pecheck: " << escape_terminal(e.what()) << "\n";
    return kExitUsage;
  } catch (const SubjectFailure& f) {
    std::cerr << "pecheck: subject failure: " << escape_terminal(f.what()) << "\n";
    return kExitSubject;
  }
  if (!property->info.applies_to(subject->info())) {
    std::cerr << fmt::format("pecheck: {} does not apply to {}: it needs the '{}' op\n", recorded.property,
                             escape_terminal(spec), name(property->info.op));
    return kExitUsage;
  }
  PropertyResult result;
  try {
    // Judged as the run judged it (its profile and configured expectations),
    // also when a fixed subject is swapped in.
    result = replay_case(*property, *subject, recorded.inputs, recorded.error_model,
                         recorded.expectation.value_or(property->info.expectation(subject->info().scheme, subject->info())));
  } catch (const ReplayFileError& e) {
    std::cerr << "pecheck: " << escape_terminal(e.what()) << "\n";
    return kExitUsage;
  }
  if (o.json) {
    json j = to_json(result);
    j["verdict"] = replay_verdict(result);
    j["recorded_subject"] = recorded.subject;
    j["exit_code"] = replay_exit_code(result);
    std::cout << j.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  } else {
    print(recorded, *property, result);
  }
  return replay_exit_code(result);
}

}  // namespace pecheck::cli
