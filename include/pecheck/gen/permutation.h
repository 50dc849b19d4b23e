#pragma once
// Permutations of n items, built as a product of swaps so that shrinking
// removes swaps: a failing permutation shrinks toward a single transposition.
#include <rapidcheck.h>

#include <vector>

#include "pecheck/core/json.h"
#include "pecheck/core/matrix.h"

namespace pecheck {

struct Permutation {
  std::vector<int> image;  // row r of P·X is row image[r] of X

  int size() const { return static_cast<int>(image.size()); }
  bool is_identity() const;
  Matrix apply_rows(const Matrix& x) const;      // P·X
  Matrix apply_cols(const Matrix& x) const;      // X·Pᵀ (permutes columns)
  Matrix apply_both(const Matrix& x) const;      // P·X·Pᵀ (a mask or Gram matrix)
  BoolMatrix apply_both(const BoolMatrix& x) const;
};

void to_json(json& j, const Permutation& p);
void from_json(const json& j, Permutation& p);

namespace gen {
// A permutation of n items (n >= 1); for n >= 2 never the identity.
rc::Gen<Permutation> permutation(int n);
}  // namespace gen

}  // namespace pecheck
