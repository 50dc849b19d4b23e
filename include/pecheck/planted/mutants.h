#pragma once
// Planted bugs, one table per family: each a subject that imitates a correct
// one (and is judged by its scheme's expectations) but carries one bug of a
// kind real implementations have. Every property is shown to fail on one.
#include <vector>

#include "pecheck/subjects/builtin/builtins.h"

namespace pecheck {

std::vector<SubjectEntry> encoder_mutants();
std::vector<SubjectEntry> rope_mutants();
// Bugs behind a declared convention (SUBJECT-PROTOCOL v2): each imitates a
// published built-in (subjects/builtin/published.h), declares what that one
// declares, and is judged by its scheme.
std::vector<SubjectEntry> encoder_convention_mutants();
std::vector<SubjectEntry> rope_convention_mutants();
std::vector<SubjectEntry> attention_mutants();
std::vector<SubjectEntry> combine_mutants();
std::vector<SubjectEntry> bias_mutants();
std::vector<SubjectEntry> module_mutants();

// Makes `mutant:NAME` name the planted bugs in this process (the CLI and the
// tests call it; the default library knows none).
void install_planted_subjects();

}  // namespace pecheck
