// CLAIMS.md §2 — the pe family, gathered for the registry: one part per file of
// properties/pe/ (how a folder gathers: properties/family.h).
#include "family.h"
#include "pecheck/property/registry.h"

namespace pecheck::pe::structure { std::vector<PropertyImpl> properties(); }
namespace pecheck::pe::dot { std::vector<PropertyImpl> properties(); }
namespace pecheck::pe::linear_shift { std::vector<PropertyImpl> properties(); }
namespace pecheck::pe::distinct { std::vector<PropertyImpl> properties(); }
namespace pecheck::pe::step_size { std::vector<PropertyImpl> properties(); }
namespace pecheck::pe::reference_values { std::vector<PropertyImpl> properties(); }

namespace pecheck {

std::vector<PropertyImpl> pe_properties() {
  return gather({pe::structure::properties, pe::dot::properties, pe::linear_shift::properties,
                pe::distinct::properties, pe::step_size::properties, pe::reference_values::properties});
}

}  // namespace pecheck
