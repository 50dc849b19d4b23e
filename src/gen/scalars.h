#pragma once
// Integers uniform over the whole range whatever RapidCheck's size, shrinking
// toward the low end. RapidCheck's own inRange scales the range with the size
// (small values first), which makes the distribution a run draws depend on the
// case count; pecheck's properties state their input distributions (and the
// benchmark compares against them), so they draw uniformly and rely on
// shrinking for small, readable counterexamples.
#include <rapidcheck.h>

#include <stdexcept>
#include <string>

namespace pecheck::gen {

// Uniform in [min, max), shrinking toward min.
template <class T>
rc::Gen<T> in_range(T min, T max) {
  if (max <= min) {
    throw std::invalid_argument("empty range [" + std::to_string(min) + ", " + std::to_string(max) + ")");
  }
  return rc::Gen<T>([=](const rc::Random& random, int) {
    const auto span = static_cast<rc::Random::Number>(max) - static_cast<rc::Random::Number>(min);
    const T value = static_cast<T>(static_cast<rc::Random::Number>(min) + rc::Random(random).next() % span);
    return rc::shrinkable::shrinkRecur(value, [=](T x) { return rc::shrink::towards<T>(x, min); });
  });
}

}  // namespace pecheck::gen
