#pragma once
// The property registry: one declarative table of claims (id, statement,
// sources, op, default expectation; the family is the id's prefix), one table
// of per-scheme expectations, and the implementations the family files
// define, joined by id. A claim without an implementation, an implementation
// without a claim, or an expectation naming an unknown property is an error
// when the registry is built — a test builds it.
#include <string>
#include <string_view>
#include <vector>

#include "pecheck/property/property.h"

namespace pecheck {

struct ClaimRow {
  const char* id;        // stable id from CLAIMS.md, e.g. "pe.offset_only_dot"
  Op op;                 // the capability a subject needs
  Expect expect;         // for a correct implementation of the reference
  const char* sources;   // seed documents the claim comes from
  const char* claim;     // the statement "for all inputs, ..."
  bool structural = true;  // false for reference values at fixed points (no precision budget)
  // Conditions on what a subject declares, besides the op (property/applicability.h):
  // "forward.causal", "bias.scheme=alibi", "op:encode|rotate and restartable"; null for none.
  const char* applies_when = nullptr;
  // Declared conventions under which a correct implementation violates the
  // claim (same grammar, one term: "attention.sinks"); null for none.
  const char* violated_when = nullptr;
};

struct ExpectationRow {
  const char* property;
  const char* scheme;    // a built-in's or planted bug's scheme, or a profile name
  Expect expect;
};

// A claim of the catalog not implemented yet, and the issue that builds it
// (properties/pending_claims.cpp): listed, never run, refused when named.
struct PendingClaim {
  const char* id;
  int issue;
};

const std::vector<ClaimRow>& claim_table();              // properties/claims.cpp
const std::vector<PendingClaim>& pending_claims();       // properties/pending_claims.cpp
const PendingClaim* find_pending_claim(std::string_view id);
// The pending claims a glob matches, as "grad.finite (issue 37), …"; empty for none.
std::string pending_claims_matching(const std::string& glob);
const std::vector<ExpectationRow>& expectation_table();  // properties/expectations.cpp

// "pe" for "pe.bounded"; the id itself when it has no prefix.
std::string family_of(std::string_view id);

// The joined registry, in catalog order. Throws std::logic_error when the
// tables and the implementations do not match.
const std::vector<PropertyDef>& all_properties();
const PropertyDef* find_property(std::string_view id);

// The implementations, one function per family file.
std::vector<PropertyImpl> attention_properties();
std::vector<PropertyImpl> pe_properties();
std::vector<PropertyImpl> rope_properties();
std::vector<PropertyImpl> combine_properties();
std::vector<PropertyImpl> bias_properties();     // properties/bias*.cpp (CLAIMS.md §6)
std::vector<PropertyImpl> module_properties();   // properties/module*.cpp (CLAIMS.md §7)
std::vector<PropertyImpl> history_properties();  // properties/history*.cpp (CLAIMS.md §7, history_independence)
std::vector<PropertyImpl> grad_properties();     // properties/grad/ (CLAIMS.md §11, the backward op)

}  // namespace pecheck
