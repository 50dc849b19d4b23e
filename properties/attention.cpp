// CLAIMS.md §1 — the attention family, in catalog order. The properties live
// by topic: attention_order.cpp (permutations), attention_logits.cpp (the
// logits before the softmax), attention_softmax.cpp (what the softmax
// guarantees); attention_support.h holds what they share.
#include "attention_support.h"
#include "pecheck/property/registry.h"

namespace pecheck {

std::vector<PropertyImpl> attention_properties() {
  std::vector<PropertyImpl> out;
  for (auto topic : {attention::order_properties, attention::logit_properties, attention::softmax_properties}) {
    auto defs = topic();
    out.insert(out.end(), std::make_move_iterator(defs.begin()), std::make_move_iterator(defs.end()));
  }
  out.push_back(attention::causal_no_lookahead());
  for (auto topic : {attention::grouping_properties, attention::mask_convention_properties, attention::cap_properties}) {
    auto defs = topic();
    out.insert(out.end(), std::make_move_iterator(defs.begin()), std::make_move_iterator(defs.end()));
  }
  return out;
}

}  // namespace pecheck
