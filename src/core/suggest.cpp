#include "pecheck/core/suggest.h"

#include <algorithm>
#include <numeric>

namespace pecheck {

int edit_distance(std::string_view a, std::string_view b) {
  // Three rows: the one before the previous is needed for a transposition.
  const size_t m = b.size();
  std::vector<int> before(m + 1), previous(m + 1), current(m + 1);
  std::iota(previous.begin(), previous.end(), 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = static_cast<int>(i);
    for (size_t j = 1; j <= m; ++j) {
      const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[m];
}

std::string closest(std::string_view typed, const std::vector<std::string>& known) {
  const int allowed = std::clamp(static_cast<int>(typed.size()) / 3, 1, 3);
  std::string best;
  int best_distance = allowed + 1;
  for (const auto& word : known) {
    const int d = edit_distance(typed, word);
    if (d < best_distance) {
      best_distance = d;
      best = word;
    }
  }
  return best;
}

}  // namespace pecheck
