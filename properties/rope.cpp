// CLAIMS.md — the rope family.
#include "registry.h"

namespace pecheck {

std::vector<PropertyDef> rope_properties() { return {}; }

}  // namespace pecheck
