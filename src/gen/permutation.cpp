#include "pecheck/gen/permutation.h"

#include <fmt/format.h>

#include <numeric>
#include <stdexcept>

namespace pecheck {

bool Permutation::is_identity() const {
  for (int i = 0; i < size(); ++i) {
    if (image[static_cast<size_t>(i)] != i) return false;
  }
  return true;
}

Matrix Permutation::apply_rows(const Matrix& x) const {
  Matrix out(x.rows(), x.cols());
  for (int r = 0; r < size(); ++r) out.row(r) = x.row(image[static_cast<size_t>(r)]);
  return out;
}

Matrix Permutation::apply_cols(const Matrix& x) const {
  Matrix out(x.rows(), x.cols());
  for (int c = 0; c < size(); ++c) out.col(c) = x.col(image[static_cast<size_t>(c)]);
  return out;
}

Matrix Permutation::apply_both(const Matrix& x) const { return apply_cols(apply_rows(x)); }

BoolMatrix Permutation::apply_both(const BoolMatrix& x) const {
  BoolMatrix out(x.rows(), x.cols());
  for (int r = 0; r < size(); ++r) {
    for (int c = 0; c < size(); ++c) {
      out(r, c) = x(image[static_cast<size_t>(r)], image[static_cast<size_t>(c)]);
    }
  }
  return out;
}

void to_json(json& j, const Permutation& p) { j = p.image; }
void from_json(const json& j, Permutation& p) {
  p.image = j.get<std::vector<int>>();
  // A recorded permutation is one: each of 0..n−1 exactly once (an index out
  // of range would read outside the rows it permutes).
  std::vector<char> seen(p.image.size(), 0);
  for (int i : p.image) {
    if (i < 0 || static_cast<std::size_t>(i) >= p.image.size() || seen[static_cast<std::size_t>(i)]) {
      throw std::invalid_argument(fmt::format("a permutation must hold each of 0..{} once; {} is out of range or repeated",
                                              static_cast<long long>(p.image.size()) - 1, i));
    }
    seen[static_cast<std::size_t>(i)] = 1;
  }
}

namespace gen {

rc::Gen<Permutation> permutation(int n) {
  if (n < 2) return rc::gen::just(Permutation{std::vector<int>(static_cast<size_t>(std::max(n, 0)), 0)});
  // A non-empty list of swaps (i, j), i != j; shrinking drops swaps and lowers indices.
  auto swap = rc::gen::suchThat(
      rc::gen::pair(rc::gen::inRange(0, n), rc::gen::inRange(0, n)),
      [](const std::pair<int, int>& s) { return s.first != s.second; });
  auto swaps = rc::gen::suchThat(rc::gen::resize(std::min(n, 8), rc::gen::container<std::vector<std::pair<int, int>>>(swap)),
                                 [](const auto& v) { return !v.empty(); });
  return rc::gen::suchThat(
      rc::gen::map(swaps,
                   [n](const std::vector<std::pair<int, int>>& list) {
                     Permutation p;
                     p.image.resize(static_cast<size_t>(n));
                     std::iota(p.image.begin(), p.image.end(), 0);
                     for (auto [i, j] : list) std::swap(p.image[static_cast<size_t>(i)], p.image[static_cast<size_t>(j)]);
                     return p;
                   }),
      [](const Permutation& p) { return !p.is_identity(); });
}

}  // namespace gen
}  // namespace pecheck
