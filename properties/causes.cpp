// Which failing claim explains which (pecheck/property/causes.h): the claims
// built for one convention first, then the by-value claims whose diagnosis
// names a cause, then what only they explain. A row's globs never match the
// row's own claim. Kept narrow on purpose: two independent bugs in one subject
// must not be folded into one, so a structural claim is listed under a cause
// only where that cause is known to make it fail.
#include "pecheck/property/causes.h"

#include <fnmatch.h>

#include <map>
#include <sstream>
#include <string>

namespace pecheck {

const std::vector<CauseRow>& cause_table() {
  static const std::vector<CauseRow> rows = {
      // Attention conventions (CLAIMS.md §8, §10): each makes the §1 claims and the by-value claim fail.
      {"attention.gqa_grouping", "attention.* module.* grad.*"},
      {"attention.alignment", "attention.* grad.*"},
      // sink_mass before the masks: it asks with no mask, so no window or chunk bug fails it, while a sink
      // carrying key 0's value makes every row seem to see key 0 (issue 40).
      {"attention.sink_mass", "attention.* grad.*"},
      {"attention.window_no_lookback", "attention.* grad.*"},
      {"attention.chunk_isolation", "attention.* grad.*"},
      {"attention.softcap_bound", "attention.* grad.*"},
      {"attention.fully_masked_rows",
       "attention.padding_mask_isolation attention.softmax_stability attention.reference_values grad.finite"},
      {"attention.softmax_stability", "attention.reference_values attention.convex_combination grad.finite"},
      {"attention.causal_no_lookahead",
       "attention.causal_permutation_equivariance attention.reference_values attention.convex_combination grad.*"},
      {"attention.reference_values", "attention.* grad.*"},
      // Rotary schemes (CLAIMS.md §5, §9, §10): the scheme's own claim before the values, the values before
      // the structure.
      {"rope.decoupled", "rope.*"},
      {"rope.axes_2d", "rope.*"},
      {"rope.pass_through", "rope.*"},
      {"rope.axis_independence", "rope.*"},
      {"rope.factor_switch", "rope.*"},
      {"rope.reference_values",
       "rope.relative_dot rope.norm_preservation rope.identity_at_zero rope.composition rope.distinct_positions "
       "grad.*"},
      {"pe.reference_values", "pe.*"},
      {"bias.reference_values", "bias.*"},
      // Modules: a layer's declared settings before what they break downstream.
      {"attention.temperature_tuning", "module.*"},
      {"module.layer_schedule", "module.* rope.* attention.*"},
      // Gradients: the claim that isolates the backward's defect before the by-value one.
      {"grad.rotary_inverse", "grad.*"},
      {"grad.causality", "grad.reference_values grad.permutation_equivariance"},
      {"grad.finite", "grad.reference_values"},
  };
  return rows;
}

namespace {

bool explains(const CauseRow& row, const std::string& id) {
  if (id == row.cause) return false;
  std::istringstream globs(row.consequences);
  for (std::string glob; globs >> glob;) {
    if (fnmatch(glob.c_str(), id.c_str(), 0) == 0) return true;
  }
  return false;
}

// A claim that failed on a counterexample of its own (not an error of the harness or the subject).
bool failing(const PropertyResult& r) { return r.status() == Status::failed && !r.subject_failure(); }

}  // namespace

void mark_consequences(std::vector<PropertyResult>& results) {
  // The failing results of each subject, by property id.
  std::map<std::string, std::map<std::string, PropertyResult*>> failed;
  for (auto& r : results) {
    if (failing(r)) failed[r.subject][r.property] = &r;
  }
  for (auto& [subject, by_id] : failed) {
    for (const auto& row : cause_table()) {
      auto cause = by_id.find(row.cause);
      if (cause == by_id.end() || !cause->second->consequence_of.empty()) continue;
      for (auto& [id, r] : by_id) {
        if (r->consequence_of.empty() && explains(row, id)) r->consequence_of = row.cause;
      }
    }
  }
}

}  // namespace pecheck
