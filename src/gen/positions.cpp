#include "pecheck/gen/positions.h"

#include <algorithm>
#include <cmath>

#include "pecheck/gen/fast_random.h"

namespace pecheck::gen {

namespace {

// The four kinds of edges, each clamped to [lo, hi] (empty kinds drop out).
std::vector<std::vector<Position>> edge_kinds(Position lo, Position hi, Dtype precision) {
  auto clamped = [lo, hi](std::vector<Position> v) {
    std::vector<Position> out;
    for (Position t : v) {
      if (t >= lo && t <= hi) out.push_back(t);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  };
  std::vector<Position> powers;
  for (Position p = 1; p > 0 && p <= hi + 1; p *= 2) {
    powers.insert(powers.end(), {p - 1, p, p + 1});
    if (p > (Position{1} << 61)) break;
  }
  const double limit = exact_integer_limit(precision);
  std::vector<Position> limits = {256, 257, 2048, 2049};
  if (limit < 9e15) {
    const auto l = static_cast<Position>(limit);
    limits.insert(limits.end(), {l - 1, l, l + 1});
  }
  std::vector<std::vector<Position>> kinds = {clamped({lo, lo + 1, lo + 2}), clamped({hi - 1, hi}),
                                              clamped(std::move(powers)), clamped(std::move(limits))};
  kinds.erase(std::remove_if(kinds.begin(), kinds.end(), [](const auto& k) { return k.empty(); }), kinds.end());
  return kinds;
}

}  // namespace

std::vector<Position> edge_positions(Position lo, Position hi, Dtype precision) {
  std::vector<Position> out;
  if (hi < lo) return out;
  for (const auto& kind : edge_kinds(lo, hi, precision)) out.insert(out.end(), kind.begin(), kind.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

rc::Gen<Position> position(Position lo, Position hi, Dtype precision, double edge_share) {
  if (hi <= lo) return rc::gen::just(lo);
  const auto kinds = edge_kinds(lo, hi, precision);
  return rc::Gen<Position>([lo, hi, kinds, edge_share](const rc::Random& random, int) {
    rc::Random r = random;
    FastRandom values(r.next());
    Position t;
    if (!kinds.empty() && values.unit() < edge_share) {
      const auto& kind = kinds[values.next() % kinds.size()];
      t = kind[values.next() % kind.size()];
    } else {
      const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
      t = lo + static_cast<Position>(values.next() % span);
    }
    return rc::shrinkable::shrinkRecur(t, [lo](Position v) { return rc::shrink::towards<Position>(v, lo); });
  });
}

}  // namespace pecheck::gen
