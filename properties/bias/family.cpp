// CLAIMS.md §6 — the bias family, gathered for the registry: one part per file of
// properties/bias/ (how a folder gathers: properties/family.h).
#include "family.h"
#include "pecheck/property/registry.h"

namespace pecheck::bias::structure { std::vector<PropertyImpl> properties(); }
namespace pecheck::bias::reference_values { std::vector<PropertyImpl> properties(); }

namespace pecheck {

std::vector<PropertyImpl> bias_properties() {
  return gather({bias::structure::properties, bias::reference_values::properties});
}

}  // namespace pecheck
