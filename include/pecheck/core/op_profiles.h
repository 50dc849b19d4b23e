#pragma once
// Which profile (config/profiles.cpp) each op a subject offers implies: the
// one table both the default profile and a process subject's scheme read.
#include <string>
#include <string_view>
#include <vector>

#include "pecheck/core/vocabulary.h"

namespace pecheck {

struct OpProfile {
  Op op;
  std::string_view profile;  // a profile's name in config/profiles.cpp
};

// In the order profiles are joined ("sinusoidal+rotary+attention"); forward
// and decode both imply the one module profile.
inline constexpr OpProfile kOpProfiles[] = {{Op::encode, "sinusoidal"}, {Op::rotate, "rotary"},
                                            {Op::attention, "attention"}, {Op::bias, "bias"},
                                            {Op::forward, "module"}, {Op::decode, "module"}};

// The profiles the ops in `ops` (a bitwise or of Op) imply, each once, in the
// table's order.
std::vector<std::string_view> profiles_of_ops(unsigned ops);

// The same joined with '+' ("" for none).
std::string joined_profiles_of_ops(unsigned ops);

}  // namespace pecheck
