// The claims of the catalog (docs/CLAIMS.md) that pecheck does not implement
// yet, each with the issue that builds it. They are listed by `pecheck list`
// as pending, never run, and naming one in --properties or pecheck.toml is a
// usage error that says so: a run never reports a pending claim as covered.
// A claim leaves this table in the commit that implements it (the registry
// refuses an id that is both implemented and pending).
#include "pecheck/property/registry.h"

#include <fmt/format.h>
#include <fnmatch.h>

namespace pecheck {

const std::vector<PendingClaim>& pending_claims() {
  // None pending: the last, module.context_shift (issue 34), is implemented
  // (properties/module/context_shift.cpp).
  static const std::vector<PendingClaim> rows = {};
  return rows;
}

const PendingClaim* find_pending_claim(std::string_view id) {
  for (const auto& p : pending_claims()) {
    if (id == p.id) return &p;
  }
  return nullptr;
}

std::string pending_claims_matching(const std::string& glob) {
  std::string out;
  for (const auto& p : pending_claims()) {
    if (fnmatch(glob.c_str(), p.id, 0) == 0) out += fmt::format("{}{} (issue {})", out.empty() ? "" : ", ", p.id, p.issue);
  }
  return out;
}

}  // namespace pecheck
