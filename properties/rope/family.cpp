// CLAIMS.md §3, §5 and §9 — the rope family, gathered for the registry: one part per file of
// properties/rope/ (how a folder gathers: properties/family.h).
#include "family.h"
#include "pecheck/property/registry.h"

namespace pecheck::rope::structure { std::vector<PropertyImpl> properties(); }
namespace pecheck::rope::reference_values { std::vector<PropertyImpl> properties(); }
namespace pecheck::rope::pass_through { std::vector<PropertyImpl> properties(); }
namespace pecheck::rope::distinct { std::vector<PropertyImpl> properties(); }
namespace pecheck::rope::factor_switch { std::vector<PropertyImpl> properties(); }
namespace pecheck::rope::axes { std::vector<PropertyImpl> properties(); }
namespace pecheck::rope::decoupled { std::vector<PropertyImpl> properties(); }
namespace pecheck::rope::axes_2d { std::vector<PropertyImpl> properties(); }
namespace pecheck::rope::position_domain { std::vector<PropertyImpl> properties(); }

namespace pecheck {

std::vector<PropertyImpl> rope_properties() {
  return gather({rope::structure::properties, rope::reference_values::properties, rope::pass_through::properties,
                rope::distinct::properties, rope::factor_switch::properties, rope::axes::properties, rope::decoupled::properties,
                rope::axes_2d::properties,
                rope::position_domain::properties});
}

}  // namespace pecheck
