// CLAIMS.md §7 (history_independence) — the history family, gathered for the registry: one part per file of
// properties/history/ (how a folder gathers: properties/family.h).
#include "family.h"
#include "pecheck/property/registry.h"

namespace pecheck::history::independence { std::vector<PropertyImpl> properties(); }

namespace pecheck {

std::vector<PropertyImpl> history_properties() {
  return gather({history::independence::properties});
}

}  // namespace pecheck
