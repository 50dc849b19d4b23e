#include "pecheck/planted/mutants.h"

namespace pecheck {

void install_planted_subjects() {
  static const std::vector<SubjectEntry> table = [] {
    std::vector<SubjectEntry> all;
    for (auto family : {encoder_mutants, encoder_convention_mutants, rope_mutants, rope_convention_mutants,
                        attention_mutants, combine_mutants, bias_mutants, module_mutants, attention_causal_mutants,
                        rope_scheme_mutants, layer_mutants, attention_convention_mutants, region_mutants, grad_mutants,
                        rope_decoupled_mutants, temperature_mutants,
                        rope_2d_mutants, config_mutants, poison_mutants, context_shift_mutants, dual_chunk_mutants}) {
      auto entries = family();
      all.insert(all.end(), entries.begin(), entries.end());
    }
    return all;
  }();
  set_mutant_subjects(&table);
}

std::vector<PlantedCatch> planted_catches() {
  std::vector<PlantedCatch> all;
  for (auto table : {attention_catches, pe_catches, rope_catches, combine_catches, convention_catches, module_catches,
                     scheme_catches, modern_catches, region_catches, grad_catches, config_catches}) {
    auto rows = table();
    all.insert(all.end(), rows.begin(), rows.end());
  }
  return all;
}

}  // namespace pecheck
