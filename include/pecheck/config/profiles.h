#pragma once
// Profiles: what an implementation of a kind must satisfy, as data. A profile
// is an expectation scheme (the key PropertyInfo::expect_for is looked up by)
// plus the property globs that apply to that kind of implementation.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pecheck {

struct SubjectInfo;

struct Profile {
  std::string name;                      // --profile NAME; also its expectation scheme
  std::string description;               // one line, for help and errors
  std::vector<std::string> properties;   // globs over property ids
  std::string why;                       // why these properties and not others
};

const std::vector<Profile>& profiles();
const Profile* find_profile(std::string_view name);
std::string profile_names();             // "sinusoidal, rotary, attention, absolute, bias, module"

// The profile a subject without a scheme of its own (a plugin or process
// subject) is judged by when none is named: the union of sinusoidal
// (encode), rotary (rotate), attention (attention), bias (bias) and module
// (forward, decode), by the ops it declares.
// Empty properties when it declares none of those.
Profile default_profile(unsigned ops);

// The profile a subject is judged by: the one named; else, for a subject with
// no scheme of its own (plugin, C++), the one its ops imply; else none
// (built-ins, planted bugs and process subjects carry a scheme, whose
// expectations apply to every property their ops allow).
std::optional<Profile> profile_for(const SubjectInfo& subject, const Profile* named);

// Whether `profile` lets the property apply (any property, without a profile).
bool profile_applies(const std::optional<Profile>& profile, const std::string& property_id);

}  // namespace pecheck
