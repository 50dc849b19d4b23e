#include "pecheck/subjects/builtin/builtins.h"

#include "pecheck/subjects/builtin/attention.h"
#include "pecheck/subjects/builtin/bias.h"
#include "pecheck/subjects/builtin/combine.h"
#include "pecheck/subjects/builtin/encoders.h"
#include "pecheck/subjects/builtin/modules.h"
#include "pecheck/subjects/builtin/published.h"
#include "pecheck/subjects/builtin/rope.h"
#include "pecheck/subjects/builtin/rope_2d.h"
#include "pecheck/subjects/builtin/rope_decoupled.h"

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
  static const auto table = concat(encoder_builtins(), rope_builtins(), published_builtins(), attention_builtins(),
                                   combine_builtins(), bias_builtins(), module_builtins(),
                                   rope_decoupled_builtins(), rope_2d_builtins());
  return table;
}

namespace {
const std::vector<SubjectEntry>* installed_mutants = nullptr;
}  // namespace

const std::vector<SubjectEntry>& mutant_subjects() {
  static const std::vector<SubjectEntry> none;
  return installed_mutants != nullptr ? *installed_mutants : none;
}

void set_mutant_subjects(const std::vector<SubjectEntry>* table) { installed_mutants = table; }

}  // namespace pecheck
