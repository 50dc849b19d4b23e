// CLAIMS.md §1, §5 and §8 — the attention family, gathered for the registry: one part per file of
// properties/attention/ (how a folder gathers: properties/family.h).
#include "family.h"
#include "pecheck/property/registry.h"

namespace pecheck::attention::order { std::vector<PropertyImpl> properties(); }
namespace pecheck::attention::logits { std::vector<PropertyImpl> properties(); }
namespace pecheck::attention::softmax { std::vector<PropertyImpl> properties(); }
namespace pecheck::attention::causal { std::vector<PropertyImpl> properties(); }
namespace pecheck::attention::grouping { std::vector<PropertyImpl> properties(); }
namespace pecheck::attention::masks { std::vector<PropertyImpl> properties(); }
namespace pecheck::attention::logit_caps { std::vector<PropertyImpl> properties(); }
namespace pecheck::attention::reference_values { std::vector<PropertyImpl> properties(); }
namespace pecheck::attention::temperature_tuning { std::vector<PropertyImpl> properties(); }
namespace pecheck::attention::poison { std::vector<PropertyImpl> properties(); }

namespace pecheck {

std::vector<PropertyImpl> attention_properties() {
  return gather({attention::order::properties, attention::logits::properties, attention::softmax::properties,
                attention::causal::properties, attention::grouping::properties, attention::masks::properties,
                attention::logit_caps::properties, attention::reference_values::properties,
                attention::temperature_tuning::properties, attention::poison::properties});
}

}  // namespace pecheck
