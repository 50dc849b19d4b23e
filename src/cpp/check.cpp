#include "pecheck/cpp/check.h"

#include <fmt/format.h>

#include <cstdlib>
#include <stdexcept>

#include "pecheck/property/registry.h"
#include "pecheck/runner/session.h"

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
      field = static_cast<T>(std::stoull(text, &used));
    }
    if (used != std::string_view(text).size()) throw std::invalid_argument(text);
  } catch (const std::exception&) {
    throw std::invalid_argument(fmt::format("{}='{}' is not a valid value", name, text));
  }
}

}  // namespace

CheckOptions options_from_environment(CheckOptions o) {
  from_env("PECHECK_SEED", o.seed);
  from_env("PECHECK_CASES", o.cases);
  from_env("PECHECK_MAX_POSITION", o.max_position);
  from_env("PECHECK_PROFILE", o.profile);
  from_env("PECHECK_REPRODUCE", o.reproduce);
  return o;
}

Plan plan(const SubjectInfo& subject, const CheckOptions& options) {
  const Profile* named = nullptr;
  if (!options.profile.empty() && (named = find_profile(options.profile)) == nullptr) {
    throw std::invalid_argument(fmt::format("unknown profile '{}'; known: {}", options.profile, profile_names()));
  }
  Plan out;
  out.profile = profile_for(subject, named);
  for (const auto& p : all_properties()) {
    if (p.info.applies_to(subject) && matches_any(p.info.id, options.properties) &&
        profile_applies(out.profile, p.info.id)) {
      out.properties.push_back(&p);
    }
  }
  return out;
}

PropertyResult check_property(Subject& subject, const PropertyDef& property, const std::optional<Profile>& profile,
                              const CheckOptions& options) {
  RunConfig config;
  config.seed = options.seed;
  config.cases = options.cases;
  config.max_position = options.max_position;
  config.model.factor = options.tolerance_factor;
  config.reproduce = options.reproduce;
  config.expectations = options.expect;
  if (profile) config.scheme = profile->name;
  return property.run(subject, config);
}

std::string failure_text(const PropertyResult& r, const PropertyInfo& property, const CheckOptions& options,
                         const std::string& rerun) {
  std::string out = fmt::format("{} on {}: expected it to be {}, observed {}\n  claim: {}\n", r.property, r.subject,
                                name(r.expectation), name(r.outcome), property.claim);
  if (!r.message.empty()) out += fmt::format("  {}\n", r.message);
  if (r.counterexample) {
    const Counterexample& c = *r.counterexample;
    out += fmt::format("  inputs: {}\n  where: {}\n  observed: {}\n  expected: {}\n", c.inputs.dump(), c.where,
                       c.observed.dump(), c.expected.dump());
    out += fmt::format("  error {:.6g} > bound {:.6g}  [{}]\n", c.error, c.tolerance.bound, c.tolerance.formula);
    if (!c.note.empty()) out += fmt::format("  compared: {}\n", c.note);
  }
  if (r.subject_failure) {
    const SubjectFailureInfo& f = *r.subject_failure;
    out += fmt::format("  subject failure: {}\n", f.message);
    if (!f.request.empty()) out += fmt::format("  request: {}\n", f.request);
  }
  out += fmt::format("  rerun: PECHECK_SEED={} PECHECK_CASES={}", options.seed, options.cases);
  if (!r.reproduce.empty()) out += fmt::format(" PECHECK_REPRODUCE='{}'", r.reproduce);
  return out + fmt::format(" {}\n", rerun);
}

}  // namespace pecheck::cpp
