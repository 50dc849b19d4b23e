// The probe positions of identify's search (identify/search.h).
#include "identify/search.h"

#include <algorithm>

namespace pecheck::identify::detail {

Positions positions_up_to(std::initializer_list<Position> usual, Position max_position) {
  Positions out;
  for (Position t : usual) {
    if (t <= max_position) out.push_back(t);
  }
  return out;
}

Around around_witness(Positions usual, const Positions& witness, Position seq_len) {
  for (Position t : witness) usual.push_back(t);
  std::sort(usual.begin(), usual.end());
  usual.erase(std::unique(usual.begin(), usual.end()), usual.end());
  const Position top = usual.empty() ? 0 : usual.back();
  return {std::move(usual), std::max(seq_len, top + 1)};
}

}  // namespace pecheck::identify::detail
