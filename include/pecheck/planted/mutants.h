#pragma once
// Planted bugs, one table per family: each a subject that imitates a correct
// one (and is judged by its scheme's expectations) but carries one bug of a
// kind real implementations have. Every property is shown to fail on one.
#include <vector>

#include "pecheck/subjects/builtin/builtins.h"

namespace pecheck {

std::vector<SubjectEntry> encoder_mutants();
std::vector<SubjectEntry> rope_mutants();
std::vector<SubjectEntry> attention_mutants();
std::vector<SubjectEntry> combine_mutants();
std::vector<SubjectEntry> bias_mutants();
std::vector<SubjectEntry> module_mutants();

}  // namespace pecheck
