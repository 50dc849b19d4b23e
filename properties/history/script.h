#pragma once
// A history script: a list of requests as the subject protocol writes them
// (SUBJECT-PROTOCOL.md: {"op":"rotate","positions":[…],"x":[[…]],…}, no id),
// the input of history_independence. A counterexample is such a list — the
// shortest request sequence after which the subject answers differently
// than a fresh copy — and `pecheck replay` runs it again.
#include <string>
#include <vector>

#include "pecheck/core/json.h"
#include "pecheck/protocol/calls.h"

namespace pecheck::history {

// One request in protocol form (defaults left out: forward's positions and
// padding when the call has none, rotate's seq_len when absent).
json request_to_json(const Call& call);
// Reads one; throws InvalidInput (property/property.h) for an unknown op,
// a missing field or a malformed array.
Call request_from_json(const json& request);

struct Script {
  std::vector<Call> requests;
};
void to_json(json& j, const Script& script);    // a JSON array of requests
void from_json(const json& j, Script& script);  // throws InvalidInput

// "rotate of 2 rows at positions 0, 300 (seq_len 301)": a request in words.
std::string describe(const Call& call);

}  // namespace pecheck::history
