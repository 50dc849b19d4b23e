#include "pecheck/result/budget.h"

#include <fmt/format.h>

namespace pecheck {

std::string budget_sentence(const PrecisionBudget& b) {
  std::string s;
  if (b.fails_from == 0) {
    s = fmt::format("holds to {:.2g} at every position tried, up to {}", b.target, b.search_limit);
  } else if (b.holds_up_to == 0) {
    s = fmt::format("does not hold to {:.2g} even at the shortest context tried (positions up to {})", b.target,
                    b.fails_from);
  } else {
    s = fmt::format("holds to {:.2g} up to position {}; fails beyond", b.target, b.holds_up_to);
    s += b.witness_position > 0 ? fmt::format(" (shrunk witness at position {})", b.witness_position)
                                : fmt::format(" (a case failed with positions up to {})", b.fails_from);
  }
  if (b.stopped_early) s += b.note.empty() ? " — search stopped by its time allowance" : " — " + b.note;
  return s;
}

json to_json(const PrecisionBudget& b) {
  return {{"property", b.property},
          {"subject", b.subject},
          {"dtype", b.dtype},
          {"target", number_to_json(b.target)},
          {"target_formula", b.target_formula},
          {"holds_up_to", b.holds_up_to},
          {"fails_from", b.fails_from},
          {"search_limit", b.search_limit},
          {"cases_per_step", b.cases_per_step},
          {"steps", b.steps},
          {"seconds", b.seconds},
          {"stopped_early", b.stopped_early},
          {"witness", b.witness},
          {"witness_error", number_to_json(b.witness_error)},
          {"witness_where", b.witness_where},
          {"witness_position", b.witness_position},
          {"note", b.note},
          {"summary", budget_sentence(b)}};
}

}  // namespace pecheck
