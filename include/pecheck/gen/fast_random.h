#pragma once
// splitmix64: a tiny, fast, well-mixed generator for filling values from one
// seed drawn from RapidCheck's Random (so runs stay reproducible by seed).
#include <cstdint>

namespace pecheck::gen {

class FastRandom {
 public:
  explicit FastRandom(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) with 53 random bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }

 private:
  std::uint64_t state_;
};

}  // namespace pecheck::gen
