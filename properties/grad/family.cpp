// CLAIMS.md §11 — the gradient family, gathered for the registry: one part per
// file of properties/grad/ (how a folder gathers: properties/family.h).
#include "family.h"
#include "pecheck/property/registry.h"

namespace pecheck::grad::reference_values { std::vector<PropertyImpl> properties(); }
namespace pecheck::grad::rotary_inverse { std::vector<PropertyImpl> properties(); }
namespace pecheck::grad::causality { std::vector<PropertyImpl> properties(); }
namespace pecheck::grad::finite { std::vector<PropertyImpl> properties(); }
namespace pecheck::grad::permutation { std::vector<PropertyImpl> properties(); }

namespace pecheck {

std::vector<PropertyImpl> grad_properties() {
  return gather({grad::reference_values::properties, grad::rotary_inverse::properties, grad::causality::properties,
                 grad::finite::properties, grad::permutation::properties});
}

}  // namespace pecheck
