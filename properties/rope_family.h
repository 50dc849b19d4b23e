#pragma once
// The rope family's properties, one factory per file; rope.cpp lists them in
// catalog order.
#include <vector>

#include "pecheck/property/property.h"

namespace pecheck::rope {

std::vector<PropertyImpl> structural_properties();  // rope.cpp: relative_dot, norm, identity, composition
PropertyImpl reference_values();                     // rope_reference.cpp
PropertyImpl pass_through();                         // rope_pass_through.cpp
PropertyImpl distinct_positions();                   // rope_distinct.cpp
PropertyImpl factor_switch();                        // rope_factor_switch.cpp (CLAIMS.md §9)
PropertyImpl axis_independence();                    // rope_axes.cpp (CLAIMS.md §9)

}  // namespace pecheck::rope
