#pragma once
// The registry entry of a property: pure data (id, family, claim, expectation,
// applicability). The claim text lives here, once, and is shown in reports.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "pecheck/core/vocabulary.h"

namespace pecheck {

enum class Expect { holds, violated };
std::string_view name(Expect e);

struct PropertyInfo {
  std::string id;        // stable id from CLAIMS.md, e.g. "pe.offset_only_dot"
  std::string family;    // "attention", "pe", "rope", "combine"
  std::string claim;     // the statement "for all inputs, ..."
  std::string sources;   // seed documents the claim comes from
  Op op = Op::encode;    // the capability a subject needs for this property
  Expect expect = Expect::holds;            // for a correct implementation of the reference
  std::map<std::string, Expect> expect_for; // per scheme (built-in name or profile) where it differs
  // A structural law (it holds at every position, so a precision budget can
  // be searched for it), not values at fixed points (reference values).
  bool structural = true;
  // What a subject must declare besides the op for the claim to apply
  // (params.forward.causal, a bias scheme, …), as the claims table writes it
  // ("" for none), and that condition evaluated (property/applicability.h
  // builds it; empty: the op alone decides).
  std::string applies_when;
  std::function<bool(const SubjectInfo&)> applicable;
  // The declared conventions under which a correct implementation violates
  // the claim (a softcap or sinks make attention.softmax_stability false):
  // as the claims table writes them ("" for none), and evaluated.
  std::string violated_when;
  std::function<bool(const SubjectInfo&)> violated_by;

  // The expectation for subjects judged as `scheme` (a built-in name or profile).
  Expect expectation(std::string_view scheme) const;
  // The same, and `violated` where the subject declares what violated_when names
  // (a scheme's own row wins).
  Expect expectation(std::string_view scheme, const SubjectInfo& subject) const;
  bool applies_to(const SubjectInfo& subject) const { return applicable ? applicable(subject) : subject.supports(op); }
};

}  // namespace pecheck
