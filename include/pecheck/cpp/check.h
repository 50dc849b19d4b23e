#pragma once
// Checking an in-process C++ subject: which properties apply (its profile),
// running one, and the failure text a test framework shows. The Boost.Test
// front end (boost_test.h) is a thin layer over this.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pecheck/config/profiles.h"
#include "pecheck/property/property.h"

namespace pecheck::cpp {

struct CheckOptions {
  std::string profile;                       // empty: the subject's scheme, or the profile its ops imply
  std::vector<std::string> properties;       // globs narrowing the selection (empty: all)
  std::uint64_t seed = 1;
  int cases = 100;
  Position max_position = 10000;
  double tolerance_factor = 8;
  std::map<std::string, Expect> expect;      // per property id, over the profile's expectations
  std::string reproduce;                     // RapidCheck reproduce string (rerun one case)
};

// Defaults overridden by the environment: PECHECK_SEED, PECHECK_CASES,
// PECHECK_MAX_POSITION, PECHECK_PROFILE, PECHECK_REPRODUCE. Throws
// std::invalid_argument for a malformed value.
CheckOptions options_from_environment(CheckOptions defaults = {});

struct Plan {
  std::optional<Profile> profile;            // the profile the subject is judged by
  std::vector<const PropertyDef*> properties;
};

// The properties that apply to `subject` under `options`, in registry order.
// Throws std::invalid_argument for an unknown profile.
Plan plan(const SubjectInfo& subject, const CheckOptions& options);

PropertyResult check_property(Subject& subject, const PropertyDef& property, const std::optional<Profile>& profile,
                              const CheckOptions& options);

// A failed or broken result as text: property, claim, inputs, where,
// observed, expected, error, bound, and how to rerun (`rerun` is the command
// prefix, e.g. "./my_test --run_test=suite/pe.bounded").
std::string failure_text(const PropertyResult& result, const PropertyInfo& property,
                         const CheckOptions& options, const std::string& rerun);

}  // namespace pecheck::cpp
