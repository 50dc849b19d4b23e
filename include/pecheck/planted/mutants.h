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
std::vector<SubjectEntry> attention_causal_mutants();  // src/planted/attention_causal_mutants.cpp (CLAIMS.md §5)
std::vector<SubjectEntry> combine_mutants();
std::vector<SubjectEntry> bias_mutants();
std::vector<SubjectEntry> module_mutants();
// The positional schemes of 2024–2026 models (CLAIMS.md §9): LongRoPE, YaRN
// with mscale, freq_factors, multi-axis positions, per-layer settings.
std::vector<SubjectEntry> rope_scheme_mutants();   // src/planted/rope_scheme_mutants.cpp
std::vector<SubjectEntry> layer_mutants();         // src/planted/layer_mutants.cpp
std::vector<SubjectEntry> attention_convention_mutants();  // src/planted/attention_convention_mutants.cpp (CLAIMS.md §8)
std::vector<SubjectEntry> rope_decoupled_mutants();  // src/planted/rope_decoupled_mutants.cpp (CLAIMS.md §10: MLA)
std::vector<SubjectEntry> temperature_mutants();     // src/planted/temperature_mutants.cpp (§10: Llama 4's τ)
std::vector<SubjectEntry> rope_2d_mutants();         // src/planted/rope_2d_mutants.cpp (§10: 2-D rotary)
std::vector<SubjectEntry> poison_mutants();          // src/planted/poison_mutants.cpp (§10: poisoned caches)
std::vector<SubjectEntry> context_shift_mutants();   // src/planted/context_shift_mutants.cpp (§10: context shift)
// Region adversaries (src/planted/region_mutants.cpp): correct built-ins
// exact everywhere except +1e-3 in one region of real-model sizes (a head dim
// of 128 or 256, a prefill of 256 rows, 32 or 64 tokens of attention, 64 or
// 1024 keys of a bias, modules over 16 to 64 tokens, state that drifts after
// 10 or 50 requests, a decode cache that wraps after 32 tokens).
std::vector<SubjectEntry> region_mutants();
std::vector<SubjectEntry> grad_mutants();          // src/planted/grad_mutants.cpp (CLAIMS.md §11: backward passes)
std::vector<SubjectEntry> config_mutants();        // src/planted/config_mutants.cpp (CLAIMS.md §10: what a config implies)
std::vector<SubjectEntry> dual_chunk_mutants();    // src/planted/dual_chunk_mutants.cpp (§10: Qwen2.5-1M's DCA)

// Which planted bug fails which sub-check of which property: the evidence
// that every check can fail (tests/test_planted_catalog.cpp runs every row and
// requires every declared sub-check of every property to have one), and what
// `pecheck list` prints under each claim. One table per group of claims.
struct PlantedCatch {
  const char* mutant;    // mutant:NAME
  const char* property;  // the property it fails
  const char* check;     // the sub-check that decides the failure
};
std::vector<PlantedCatch> attention_catches();   // src/planted/catches_attention.cpp
std::vector<PlantedCatch> pe_catches();          // src/planted/catches_pe.cpp
std::vector<PlantedCatch> rope_catches();        // src/planted/catches_rope.cpp
std::vector<PlantedCatch> combine_catches();     // src/planted/catches_combine.cpp
std::vector<PlantedCatch> convention_catches();  // src/planted/catches_conventions.cpp (CLAIMS.md §5)
std::vector<PlantedCatch> module_catches();      // src/planted/catches_modules.cpp (CLAIMS.md §6–7)
std::vector<PlantedCatch> scheme_catches();      // src/planted/catches_schemes.cpp (CLAIMS.md §9)
std::vector<PlantedCatch> modern_catches();      // src/planted/catches_modern.cpp (CLAIMS.md §8)
std::vector<PlantedCatch> region_catches();      // src/planted/region_mutants.cpp (the shape ladder)
std::vector<PlantedCatch> grad_catches();        // src/planted/catches_grad.cpp (CLAIMS.md §11)
std::vector<PlantedCatch> config_catches();      // src/planted/catches_config.cpp (CLAIMS.md §10, issue 34)
// All of them.
std::vector<PlantedCatch> planted_catches();

// Makes `mutant:NAME` name the planted bugs in this process (the CLI and the
// tests call it; the default library knows none).
void install_planted_subjects();

}  // namespace pecheck
