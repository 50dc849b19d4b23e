#pragma once
// The built-in subjects: double-precision reference implementations and the
// counter-schemes the seed documents discuss, each with a stable name.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "pecheck/subjects/subject.h"

namespace pecheck {

struct SubjectEntry {
  std::string name;          // stable: builtin:NAME / mutant:NAME
  std::string description;   // one line, for `pecheck list`
  std::function<SubjectPtr()> make;
  // False for variants (e.g. "sinusoidal@float16") that are addressable by
  // name but are not columns of the default claims matrix.
  bool in_default_matrix = true;
};

// In claims-matrix column order.
const std::vector<SubjectEntry>& builtin_subjects();
// Planted bugs of the kinds real implementations have (tests, demos, replay):
// the table the planted library installs (planted/mutants.h), empty when it
// is not linked in. The default library carries no planted bug.
const std::vector<SubjectEntry>& mutant_subjects();
void set_mutant_subjects(const std::vector<SubjectEntry>* table);

}  // namespace pecheck
