#include "pe_common.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "pecheck/gen/fast_random.h"
#include "pecheck/reference/sinusoidal.h"

namespace pecheck::pe {

double summed_work(int dim, Position t) {
  double sum = 0;
  for (int i = 0; i < (dim + 1) / 2; ++i) {
    sum += 2 * (1 + std::fabs(static_cast<double>(t)) * reference::frequency(i, dim));
  }
  return sum;
}

double row_work(int dim, Position t) {
  double sum = 0;
  for (int i = 0; i < (dim + 1) / 2; ++i) {
    const double w = 1 + std::fabs(static_cast<double>(t)) * reference::frequency(i, dim);
    sum += 2 * w * w;
  }
  return std::sqrt(sum);
}

rc::Gen<int> even_dim(int max_half) {
  return rc::gen::map(rc::gen::inRange(1, max_half + 1), [](int half) { return 2 * half; });
}

rc::Gen<Position> position(Position max_position) { return rc::gen::inRange<Position>(0, max_position + 1); }

rc::Gen<Position> offset(Position max_position) {
  return rc::gen::inRange<Position>(1, std::max<Position>(max_position, 1) + 1);
}

rc::Gen<Position> extra_length(Position max_position) { return rc::gen::inRange<Position>(0, max_position + 1); }

Positions sample_distinct(std::uint64_t seed, int count, Position span) {
  Positions out;
  if (span + 1 <= count) {
    for (Position t = 0; t <= span; ++t) out.push_back(t);
    return out;
  }
  // Floyd's algorithm: `count` distinct values without a table of size span.
  gen::FastRandom random(seed);
  std::unordered_set<Position> chosen;
  for (Position j = span + 1 - count; j <= span; ++j) {
    const Position r = static_cast<Position>(random.next() % static_cast<std::uint64_t>(j + 1));
    chosen.insert(chosen.count(r) ? j : r);
  }
  out.assign(chosen.begin(), chosen.end());
  std::sort(out.begin(), out.end());
  return out;
}

Matrix encode(Subject& subject, int dim, const Positions& positions, Position seq_len) {
  Matrix p = subject.encode(dim, positions, seq_len);
  require_shape(p, static_cast<Eigen::Index>(positions.size()), dim, "encode");
  return p;
}

Layout declared_or_interleaved(const SubjectInfo& subject) {
  return subject.layout == Layout::halves ? Layout::halves : Layout::interleaved;
}

}  // namespace pecheck::pe
