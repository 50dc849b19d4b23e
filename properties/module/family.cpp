// CLAIMS.md §7, §8 and §9 — the module family, gathered for the registry: one part per file of
// properties/module/ (how a folder gathers: properties/family.h).
#include "family.h"
#include "pecheck/property/registry.h"

namespace pecheck::module::order { std::vector<PropertyImpl> properties(); }
namespace pecheck::module::causality { std::vector<PropertyImpl> properties(); }
namespace pecheck::module::padding { std::vector<PropertyImpl> properties(); }
namespace pecheck::module::shift { std::vector<PropertyImpl> properties(); }
namespace pecheck::module::batch { std::vector<PropertyImpl> properties(); }
namespace pecheck::module::decoding { std::vector<PropertyImpl> properties(); }
namespace pecheck::module::layers { std::vector<PropertyImpl> properties(); }
namespace pecheck::module::conventions { std::vector<PropertyImpl> properties(); }
namespace pecheck::module::window { std::vector<PropertyImpl> properties(); }
namespace pecheck::module::conformance { std::vector<PropertyImpl> properties(); }
namespace pecheck::module::chunk { std::vector<PropertyImpl> properties(); }
namespace pecheck::module::context_shift { std::vector<PropertyImpl> properties(); }

namespace pecheck {

std::vector<PropertyImpl> module_properties() {
  return gather({module::order::properties, module::causality::properties, module::padding::properties,
                module::shift::properties, module::batch::properties, module::decoding::properties,
                module::layers::properties, module::conventions::properties, module::window::properties,
                module::conformance::properties, module::chunk::properties, module::context_shift::properties});
}

}  // namespace pecheck
