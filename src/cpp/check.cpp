#include "pecheck/cpp/check.h"

#include <fmt/format.h>

#include <cstdlib>
#include <stdexcept>

#include "pecheck/property/registry.h"

namespace pecheck::cpp {

namespace {

template <class T>
void from_env(const char* name, T& field) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return;
  try {
    size_t used = 0;
    if constexpr (std::is_same_v<T, std::string>) {
      field = text;
      used = field.size();
    } else if constexpr (std::is_same_v<T, int>) {
      field = std::stoi(text, &used);
    } else {
      if (text[0] == '-') throw std::invalid_argument(text);
      field = static_cast<T>(std::stoull(text, &used));
    }
    if (used != std::string_view(text).size()) throw std::invalid_argument(text);
  } catch (const std::exception&) {
    throw std::invalid_argument(fmt::format("{}='{}' is not a valid value", name, text));
  }
}

}  // namespace

RunOptions options_from_environment(RunOptions o) {
  from_env("PECHECK_SEED", o.seed);
  from_env("PECHECK_CASES", o.cases);
  from_env("PECHECK_MAX_POSITION", o.max_position);
  from_env("PECHECK_PROFILE", o.profile);
  from_env("PECHECK_REPRODUCE", o.reproduce);
  return o;
}

PlannedSubject plan(SubjectPtr subject, const RunOptions& options) {
  const Profile* named = named_profile(options);
  return plan_subject(std::move(subject), select_properties(options, named), named);
}

PropertyResult check_property(PlannedSubject& planned, const PropertyDef& property, const RunOptions& options) {
  return run_cell(property, *planned.subject, options,
                  expectation_for(property.info, planned.scheme, options, planned.subject->info()));
}

std::string failure_text(const PropertyResult& r, const PropertyInfo& property, const RunOptions& options,
                         const std::string& rerun) {
  std::string out = fmt::format("{} on {}: expected it to be {}, observed {}\n  claim: {}\n", r.property, r.subject,
                                name(r.expectation), name(r.outcome), property.claim);
  if (const std::string message = r.message(); !message.empty()) out += fmt::format("  {}\n", message);
  if (const Counterexample* c = r.counterexample()) {
    out += fmt::format("  inputs: {}\n  check: {}\n  where: {}\n  observed: {}\n  expected: {}\n", c->inputs.dump(),
                       c->check, c->where(), c->observed.dump(), c->expected.dump());
    out += fmt::format("  error {:.6g} > bound {:.6g}  [{}]\n", c->error, c->tolerance.bound, c->tolerance.formula);
    if (!c->note.empty()) out += fmt::format("  compared: {}\n", c->note);
  }
  if (const SubjectFailureInfo* f = r.subject_failure()) {
    out += fmt::format("  subject failure: {}\n", f->message);
    if (!f->request.empty()) out += fmt::format("  request: {}\n", f->request);
  }
  out += fmt::format("  rerun: PECHECK_SEED={} PECHECK_CASES={}", options.seed, options.cases);
  if (!r.reproduce().empty()) out += fmt::format(" PECHECK_REPRODUCE='{}'", r.reproduce());
  return out + fmt::format(" {}\n", rerun);
}

}  // namespace pecheck::cpp
