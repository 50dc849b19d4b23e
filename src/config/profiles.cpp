#include "pecheck/config/profiles.h"

#include <fnmatch.h>

#include "pecheck/core/op_table.h"
#include "pecheck/core/vocabulary.h"

namespace pecheck {

const std::vector<Profile>& profiles() {
  static const std::vector<Profile> all = {
      {"sinusoidal", "an absolute sinusoidal encoding: every pe.* claim, with the reference's expectations",
       {"pe.*"},
       "every claim of CLAIMS.md §2 is stated for the sinusoidal encoding; reference values follow the "
       "layout the subject declares"},
      {"rotary", "a rotary position encoding: every rope.* claim, and module.context_shift where it declares one",
       {"rope.*", "module.context_shift"},
       "CLAIMS.md §3 states each rope.* claim for any rotation by t·ω_i; §10's context shift is a rotate request "
       "(a rotary that declares context_shift, a C plugin exporting pecheck_rotate_shift, is judged by it)"},
      {"attention", "one head of scaled dot-product attention: the attention.* claims it can be asked", {"attention.*"},
       "the claims of CLAIMS.md §1 that need only the attention op; those that need logits or combining "
       "are left out by applicability (a process or plugin subject offers neither)"},
      {"absolute", "a learned (or any lookup-table) absolute encoding",
       {"pe.length_independence", "pe.distinct_positions"},
       "a table lookup p_t = E[t] is length-independent and must give distinct positions distinct rows, or "
       "the model cannot tell them apart; nothing bounds a trained table's entries (pe.bounded is the sinusoid's "
       "[-1, 1]) and nothing makes it periodic, so constant_norm, offset_only_dot, dot_symmetry, linear_shift, "
       "step_size and reference_values are claims about the sinusoid that a learned table rightly fails "
       "(CLAIMS.md §2's counter-schemes)"},
      {"bias", "an attention bias (ALiBi, T5 buckets): the bias.* claims its declared scheme allows", {"bias.*"},
       "CLAIMS.md §6; which of them apply follows params.bias (monotone decay and the ALiBi values only for "
       "ALiBi, the bucket partition for T5)"},
      {"module", "a whole layer, block or model (forward, decode): the module.* claims, history_independence and "
                 "attention.temperature_tuning (a layer's queries, asked through forward)",
       {"module.*", "history_independence", "attention.temperature_tuning"},
       "CLAIMS.md §7; which of them apply follows params.forward (causal, positional) and the ops offered; a "
       "module with a cache is where answers come to depend on the requests before them"},
      {"gradients", "a backward pass (the backward op): the grad.* claims of the ops it differentiates", {"grad.*"},
       "CLAIMS.md §11; which of them apply follows params.backward.of (rotate: reference values and the inverse "
       "rotation; attention: reference values, causality, finiteness, permutation equivariance)"},
  };
  return all;
}

const Profile* find_profile(std::string_view name) {
  for (const auto& p : profiles()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::string profile_names() {
  std::string out;
  for (const auto& p : profiles()) out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

Profile default_profile(unsigned ops) {
  Profile out;
  for (std::string_view name : profiles_of_ops(ops)) {
    const Profile* p = find_profile(name);
    out.name += (out.name.empty() ? "" : "+") + p->name;
    out.description += (out.description.empty() ? "" : "; ") + p->description;
    out.properties.insert(out.properties.end(), p->properties.begin(), p->properties.end());
  }
  out.why = "the default: the profiles the subject's declared ops imply";
  return out;
}

std::optional<Profile> profile_for(const SubjectInfo& subject, const Profile* named) {
  if (named != nullptr) return *named;
  if (subject.scheme.empty()) return default_profile(subject.ops);
  return std::nullopt;
}

bool profile_applies(const std::optional<Profile>& profile, const std::string& property_id) {
  if (!profile) return true;
  for (const auto& glob : profile->properties) {
    if (fnmatch(glob.c_str(), property_id.c_str(), 0) == 0) return true;
  }
  return false;
}

}  // namespace pecheck
