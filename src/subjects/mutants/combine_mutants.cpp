#include "subjects/mutants/mutants.h"

namespace pecheck {

std::vector<SubjectEntry> combine_mutants() { return {}; }

}  // namespace pecheck
