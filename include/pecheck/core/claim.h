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

  // Beyond the op: what a subject must declare for the claim to apply (empty:
  // nothing), as a predicate and in words (e.g. rope.pass_through needs a
  // declared partial rotary: with none, no feature passes through).
  std::function<bool(const SubjectInfo&)> requires_declared;
  std::string requires_words;

  // The expectation for subjects judged as `scheme` (a built-in name or profile).
  Expect expectation(std::string_view scheme) const;
  bool applies_to(const SubjectInfo& subject) const {
    return subject.supports(op) && (!requires_declared || requires_declared(subject));
  }
};

}  // namespace pecheck
