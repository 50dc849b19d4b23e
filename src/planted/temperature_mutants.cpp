// Planted bugs of Llama 4's attention temperature tuning (CLAIMS.md §10,
// attention.temperature_tuning): each declares what llama4-block@tuned
// declares (attn_scale 0.1, floor_scale 8192 on the NoPE layer) and computes
// the query temperature otherwise, the way ports get it wrong.
#include <cmath>

#include "pecheck/planted/mutants.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/subjects/builtin/modules_layered.h"

namespace pecheck {

namespace planted::temperature_mutants {  // the file's own names (the planted bugs compile in unity batches)

using Temperature = std::function<double(const TemperatureTuning&, Position)>;

SubjectPtr tuned_with(const std::string& name, Temperature temperature) {
  auto built = llama4_tuned_layers();
  for (auto& layer : built) layer.temperature = temperature;
  return std::make_unique<LayeredBlockSubject>(
      layered_block_info(name, mutant_spec(name), llama4_tuned_layers(), "llama4-block@tuned"), std::move(built));
}

}  // namespace planted::temperature_mutants

std::vector<SubjectEntry> temperature_mutants() {
  using namespace planted::temperature_mutants;
  return {
      {"llama4-tuning-floor-missing",
       "Llama 4's query temperature without the floor: 1 + attn_scale·ln((p + 1)/floor_scale + 1), so τ grows at "
       "every position instead of stepping at multiples of floor_scale",
       [] {
         return tuned_with("llama4-tuning-floor-missing", [](const TemperatureTuning& t, Position p) {
           return 1.0 + t.attn_scale * std::log((static_cast<double>(p) + 1.0) / t.floor_scale + 1.0);
         });
       }},
      {"llama4-tuning-off-by-one",
       "Llama 4's query temperature from ⌊p/floor_scale⌋ instead of ⌊(p + 1)/floor_scale⌋: every step one position "
       "late",
       [] {
         return tuned_with("llama4-tuning-off-by-one", [](const TemperatureTuning& t, Position p) {
           return 1.0 + t.attn_scale * std::log(std::floor(static_cast<double>(p) / t.floor_scale) + 1.0);
         });
       }},
      {"llama4-tuning-ignored",
       "Llama 4's attn_temperature_tuning declared but never applied: τ = 1 at every position",
       [] { return tuned_with("llama4-tuning-ignored", [](const TemperatureTuning&, Position) { return 1.0; }); }},
  };
}

}  // namespace pecheck
