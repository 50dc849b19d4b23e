#include "support/planted.h"

#include <stdexcept>

#include "pecheck/property/registry.h"
#include "pecheck/subjects/factory.h"

namespace pecheck::testing {

PropertyResult run_property(const std::string& id, Subject& subject, QuickRun options) {
  const PropertyDef* p = find_property(id);
  if (p == nullptr) throw std::invalid_argument("no property " + id);
  RunConfig config;
  config.seed = options.seed;
  config.cases = options.cases;
  config.max_position = options.max_position;
  return p->run(subject, config);
}

PropertyResult run_property(const std::string& id, const std::string& spec, QuickRun options) {
  auto subject = make_subject(spec);
  return run_property(id, *subject, options);
}

}  // namespace pecheck::testing
