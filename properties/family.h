#pragma once
// How a family folder (properties/<family>/) gathers its properties: each file
// of the folder is one part, a namespace pecheck::<family>::<part> with a
// `properties()` function; the folder's family.cpp lists the parts. The order
// does not matter: the registry (registry.cpp) joins them with the claims
// table by id.
#include <initializer_list>
#include <vector>

#include "pecheck/property/property.h"

namespace pecheck {

using PropertyPart = std::vector<PropertyImpl> (*)();

inline std::vector<PropertyImpl> gather(std::initializer_list<PropertyPart> parts) {
  std::vector<PropertyImpl> out;
  for (const PropertyPart part : parts) {
    for (auto& impl : part()) out.push_back(std::move(impl));
  }
  return out;
}

}  // namespace pecheck
