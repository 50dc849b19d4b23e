#include "support/planted.h"

#include <stdexcept>

#include "pecheck/planted/mutants.h"
#include "pecheck/property/registry.h"
#include "pecheck/runner/cell.h"
#include "pecheck/subjects/factory.h"

namespace pecheck::testing {

namespace {
// Every test can name planted bugs (mutant:NAME), as the CLI can.
const bool planted_installed = (install_planted_subjects(), true);
}  // namespace

PropertyResult run_property(const std::string& id, Subject& subject, QuickRun options) {
  (void)planted_installed;
  const PropertyDef* p = find_property(id);
  if (p == nullptr) throw std::invalid_argument("no property " + id);
  return run_cell(*p, subject, options, expectation_for(p->info, subject.info().scheme, options, subject.info()));
}

PropertyResult run_property(const std::string& id, const std::string& spec, QuickRun options) {
  auto subject = make_subject(spec);
  return run_property(id, *subject, options);
}

}  // namespace pecheck::testing
