// CLAIMS.md — the combine family.
#include "registry.h"

namespace pecheck {

std::vector<PropertyDef> combine_properties() { return {}; }

}  // namespace pecheck
