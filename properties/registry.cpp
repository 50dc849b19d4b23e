#include "pecheck/property/registry.h"

namespace pecheck {

const std::vector<PropertyDef>& all_properties() {
  static const std::vector<PropertyDef> all = [] {
    std::vector<PropertyDef> out;
    for (auto family : {attention_properties, pe_properties, rope_properties, combine_properties}) {
      auto defs = family();
      out.insert(out.end(), std::make_move_iterator(defs.begin()), std::make_move_iterator(defs.end()));
    }
    return out;
  }();
  return all;
}

const PropertyDef* find_property(std::string_view id) {
  for (const auto& p : all_properties()) {
    if (p.info.id == id) return &p;
  }
  return nullptr;
}

}  // namespace pecheck
