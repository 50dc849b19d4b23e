#include "pecheck/core/op_profiles.h"

#include <algorithm>

namespace pecheck {

std::vector<std::string_view> profiles_of_ops(unsigned ops) {
  std::vector<std::string_view> out;
  for (const auto& [op, profile] : kOpProfiles) {
    if ((ops & static_cast<unsigned>(op)) == 0) continue;
    if (std::find(out.begin(), out.end(), profile) == out.end()) out.push_back(profile);
  }
  return out;
}

std::string joined_profiles_of_ops(unsigned ops) {
  std::string out;
  for (std::string_view profile : profiles_of_ops(ops)) {
    if (!out.empty()) out += '+';
    out += profile;
  }
  return out;
}

}  // namespace pecheck
