#pragma once
// The property registry: every claim of CLAIMS.md as data, in catalog order.
#include <string_view>
#include <vector>

#include "pecheck/property/property.h"

namespace pecheck {

const std::vector<PropertyDef>& all_properties();
const PropertyDef* find_property(std::string_view id);

// One function per family file.
std::vector<PropertyDef> attention_properties();
std::vector<PropertyDef> pe_properties();
std::vector<PropertyDef> rope_properties();
std::vector<PropertyDef> combine_properties();

}  // namespace pecheck
