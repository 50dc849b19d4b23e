// CLAIMS.md §4 — the combine family, gathered for the registry: one part per file of
// properties/combine/ (how a folder gathers: properties/family.h).
#include "family.h"
#include "pecheck/property/registry.h"

namespace pecheck::combine::split { std::vector<PropertyImpl> properties(); }

namespace pecheck {

std::vector<PropertyImpl> combine_properties() {
  return gather({combine::split::properties});
}

}  // namespace pecheck
