#pragma once
// RapidCheck's reproduce-string codec: declared in its sources
// (src/detail/StringSerialization.cpp), exported by its library but not by a
// public header. Part of the RapidCheck glue (rapidcheck_glue.cpp,
// rapidcheck_reproduce.cpp), the only files that name rc::detail.
#include <rapidcheck/detail/Results.h>

#include <string>
#include <unordered_map>

namespace rc::detail {
std::string reproduceMapToString(const std::unordered_map<std::string, Reproduce>& map);
std::unordered_map<std::string, Reproduce> stringToReproduceMap(const std::string& str);
}  // namespace rc::detail
