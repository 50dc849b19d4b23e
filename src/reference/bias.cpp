#include "pecheck/reference/bias.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace pecheck::reference {

namespace {

bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

int largest_power_of_two_below(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

}  // namespace

std::vector<double> alibi_slopes(int heads) {
  if (heads < 1) throw std::invalid_argument(fmt::format("ALiBi needs at least one head, got {}", heads));
  std::vector<double> slopes;
  slopes.reserve(static_cast<size_t>(heads));
  const int n = is_power_of_two(heads) ? heads : largest_power_of_two_below(heads);
  for (int h = 0; h < n; ++h) slopes.push_back(std::exp2(-8.0 * (h + 1) / n));
  // The slopes of 2n heads at 0-based indices 0, 2, 4, …: 2^(−8(2k+1)/(2n)).
  for (int k = 0; static_cast<int>(slopes.size()) < heads; ++k) {
    slopes.push_back(std::exp2(-8.0 * (2 * k + 1) / (2.0 * n)));
  }
  return slopes;
}

Matrix alibi_bias(int n, int m, int head, int heads, int shift) {
  if (n < 0 || m < 0) throw std::invalid_argument(fmt::format("alibi_bias: negative shape {}×{}", n, m));
  if (head < 0 || head >= heads) {
    throw std::invalid_argument(fmt::format("alibi_bias: head {} outside 0..{}", head, heads - 1));
  }
  const double slope = alibi_slopes(heads)[static_cast<size_t>(head)];
  Matrix b(n, m);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) b(i, j) = -slope * std::abs(i + shift - j);
  }
  return b;
}

int t5_bucket(Position relative, int num_buckets, int max_distance, bool bidirectional) {
  int buckets = num_buckets;
  int bucket = 0;
  Position distance = 0;
  if (bidirectional) {
    buckets /= 2;
    if (relative > 0) bucket += buckets;
    distance = relative < 0 ? -relative : relative;
  } else {
    distance = relative < 0 ? -relative : 0;
  }
  const int max_exact = buckets / 2;
  if (max_exact < 1 || max_distance <= max_exact) {
    throw std::invalid_argument(fmt::format("t5_bucket: {} buckets ({}) and max_distance {} leave no exact range",
                                            num_buckets, bidirectional ? "bidirectional" : "unidirectional",
                                            max_distance));
  }
  if (distance < max_exact) return bucket + static_cast<int>(distance);
  const double scaled = std::log(static_cast<double>(distance) / max_exact) /
                        std::log(static_cast<double>(max_distance) / max_exact) * (buckets - max_exact);
  // Truncation toward zero, as torch's .to(torch.long); scaled ≥ 0 here.
  const auto large = static_cast<Position>(max_exact) + static_cast<Position>(scaled);
  return bucket + static_cast<int>(std::min<Position>(large, buckets - 1));
}

}  // namespace pecheck::reference
