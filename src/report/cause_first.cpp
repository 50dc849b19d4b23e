#include "pecheck/report/cause_first.h"

#include <map>

namespace pecheck {

std::vector<FailureGroup> cause_first(const std::vector<PropertyResult>& results) {
  std::vector<FailureGroup> groups;
  std::map<std::pair<std::string, std::string>, size_t> group_of;  // (subject, cause id) → group
  for (const auto& r : results) {
    if (r.status() != Status::failed && r.status() != Status::error) continue;
    if (!r.consequence_of.empty()) continue;
    group_of[{r.subject, r.property}] = groups.size();
    groups.push_back({&r, {}});
  }
  for (const auto& r : results) {
    if (r.consequence_of.empty() || (r.status() != Status::failed && r.status() != Status::error)) continue;
    auto at = group_of.find({r.subject, r.consequence_of});
    if (at != group_of.end()) {
      groups[at->second].consequences.push_back(&r);
    } else {  // its cause is not in this report (a shard, a filtered merge): it leads itself
      groups.push_back({&r, {}});
    }
  }
  return groups;
}

std::string consequence_ids(const FailureGroup& group) {
  std::string out;
  const size_t n = group.consequences.size();
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) out += i + 1 == n ? " and " : ", ";
    out += group.consequences[i]->property;
  }
  return out;
}

}  // namespace pecheck
