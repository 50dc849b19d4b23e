// CLAIMS.md — the attention family.
#include "registry.h"

namespace pecheck {

std::vector<PropertyDef> attention_properties() { return {}; }

}  // namespace pecheck
