#pragma once
// The precision budget of one structural property on one encoder or rotary
// subject: the largest position (context length) up to which the property
// held within a fixed tolerance, as a plain value the writers render.
#include <cstdint>
#include <string>

#include "pecheck/core/json.h"

namespace pecheck {

struct PrecisionBudget {
  std::string property;               // property id
  std::string subject;                // subject spec
  std::string dtype;                  // the subject's declared dtype
  double target = 0;                  // the fixed absolute tolerance searched with
  std::string target_formula;         // how target was derived, for the reports
  std::int64_t holds_up_to = 0;       // largest max_position at which no case failed
  std::int64_t fails_from = 0;        // smallest max_position at which a case failed; 0: none found
  std::int64_t search_limit = 0;      // the largest max_position tried
  int cases_per_step = 0;             // cases per max_position tried
  int steps = 0;                      // max_positions tried
  double seconds = 0;
  bool stopped_early = false;         // the search ran out of its time allowance
  json witness;                       // inputs of the failing case at fails_from (null if none)
  double witness_error = 0;
  std::string witness_where;
  std::int64_t witness_position = 0;  // largest position in the shrunk witness (0: none named)
  std::string note;                   // why the search stopped, when it did not finish
};

// "holds to 3.9e-3 up to position 2048; fails beyond (shrunk witness at position 2049)" —
// the sentence every report format shows.
std::string budget_sentence(const PrecisionBudget& budget);

json to_json(const PrecisionBudget& budget);

}  // namespace pecheck
