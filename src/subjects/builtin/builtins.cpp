#include "pecheck/subjects/builtin/builtins.h"

#include "pecheck/subjects/builtin/attention.h"
#include "pecheck/subjects/builtin/bias.h"
#include "pecheck/subjects/builtin/combine.h"
#include "pecheck/subjects/builtin/encoders.h"
#include "pecheck/subjects/builtin/modules.h"
#include "pecheck/subjects/builtin/rope.h"
#include "pecheck/planted/mutants.h"

namespace pecheck {

namespace {
template <class... Tables>
std::vector<SubjectEntry> concat(Tables... tables) {
  std::vector<SubjectEntry> all;
  (all.insert(all.end(), tables.begin(), tables.end()), ...);
  return all;
}
}  // namespace

const std::vector<SubjectEntry>& builtin_subjects() {
  static const auto table = concat(encoder_builtins(), rope_builtins(), attention_builtins(), combine_builtins(),
                                   bias_builtins(), module_builtins());
  return table;
}

const std::vector<SubjectEntry>& mutant_subjects() {
  static const auto table = concat(encoder_mutants(), rope_mutants(), attention_mutants(), combine_mutants(),
                                   bias_mutants(), module_mutants());
  return table;
}

}  // namespace pecheck
