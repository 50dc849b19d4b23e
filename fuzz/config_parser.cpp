// Fuzz target: a pecheck.toml (src/config/config_file.cpp). A config file is
// read as it is found (a CI checkout, a pull request): parse_config promises
// to throw nothing but ConfigError, so any other exception escaping here, a
// crash or a sanitizer report, is a finding.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pecheck/config/config_file.h"

namespace {

// The registry's ids (CLAIMS.md), copied so this target needs no property code.
const std::vector<std::string> kIds = {
    "attention.permutation_equivariance", "attention.kv_permutation_invariance",
    "attention.query_permutation_equivariance", "attention.causal_permutation_equivariance",
    "attention.permutation_equivariance_with_pe", "attention.logit_sum_invariance",
    "attention.logit_decomposition", "attention.convex_combination", "attention.softmax_stability",
    "attention.padding_mask_isolation", "pe.bounded", "pe.constant_norm", "pe.offset_only_dot",
    "pe.dot_symmetry", "pe.linear_shift", "pe.length_independence", "pe.distinct_positions", "pe.step_size",
    "pe.reference_values", "rope.relative_dot", "rope.norm_preservation", "rope.identity_at_zero",
    "rope.composition", "combine.add_subsumes_concat", "combine.concat_linear_split",
    "combine.orthogonal_recovery", "combine.add_injective", "combine.concat_injective"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const pecheck::FileConfig config = pecheck::parse_config(text, "fuzz.toml", kIds);
    (void)pecheck::repeated_subject(config.subjects);
  } catch (const pecheck::ConfigError&) {
  }
  return 0;
}
