// CLAIMS.md §7 — whole modules: the family's properties, one file per claim
// (module_order.cpp, module_causality.cpp, module_padding.cpp,
// module_shift.cpp, module_batch.cpp, module_decoding.cpp, module_layers.cpp), joined here for
// the registry. Which apply to a subject follows its params.forward (the
// claims table's applies_when).
#include "pecheck/property/registry.h"

namespace pecheck {

std::vector<PropertyImpl> module_order_properties();
std::vector<PropertyImpl> module_causality_properties();
std::vector<PropertyImpl> module_padding_properties();
std::vector<PropertyImpl> module_shift_properties();
std::vector<PropertyImpl> module_batch_properties();
std::vector<PropertyImpl> module_decoding_properties();
std::vector<PropertyImpl> module_layer_properties();  // module_layers.cpp (CLAIMS.md §9)
std::vector<PropertyImpl> module_convention_properties();  // module_conventions.cpp (CLAIMS.md §8)

std::vector<PropertyImpl> module_properties() {
  std::vector<PropertyImpl> out;
  for (auto family : {module_order_properties, module_causality_properties, module_padding_properties,
                      module_shift_properties, module_batch_properties, module_decoding_properties,
                      module_layer_properties, module_convention_properties}) {
    for (auto& p : family()) out.push_back(std::move(p));
  }
  return out;
}

}  // namespace pecheck
