// RapidCheck's reproduce strings read and written (pecheck/runner/reproduce.h):
// part of the RapidCheck glue, apart from the search so that the option
// checks (and their fuzz target) link it alone.
#include "pecheck/runner/reproduce.h"

#include "runner/rapidcheck_serialization.h"

namespace pecheck {

std::vector<ReproduceEntry> reproduce_entries(const std::string& text) {
  std::vector<ReproduceEntry> out;
  for (const auto& [id, reproduce] : rc::detail::stringToReproduceMap(text)) out.push_back({id, reproduce.size});
  return out;
}

std::string reproduce_string(const std::vector<ReproduceEntry>& entries) {
  std::unordered_map<std::string, rc::detail::Reproduce> map;
  for (const ReproduceEntry& e : entries) {
    rc::detail::Reproduce r{};
    r.size = e.size;
    map[e.id] = r;
  }
  return rc::detail::reproduceMapToString(map);
}

}  // namespace pecheck
