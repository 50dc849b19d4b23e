#pragma once
// Checks a recorded input (a counterexample file, a regression-store entry)
// must pass before it is measured: types, shapes, ranges and sizes, bounded
// by the ceilings a run itself accepts (--max-width, --max-position). Each
// property's Case calls them from its `validate()`; define<Case> runs it on
// every recorded input, and the tests run it on generated cases too, so one
// definition of "a valid input" serves generation, replay and the store.
//
// A failure throws InvalidInput naming the property's field and what was
// expected: replay exits 2 with it, the regression store skips the entry.
#include <fmt/format.h>

#include <string>
#include <string_view>

#include "pecheck/core/matrix.h"
#include "pecheck/gen/permutation.h"
#include "pecheck/property/property.h"

namespace pecheck::input {

inline constexpr long long kMaxWidth = 1 << 16;               // --max-width's ceiling
inline constexpr Position kMaxPosition = Position{1} << 40;  // --max-position's ceiling
// Tokens or positions in one input: a window of 4,096 keys probed one row
// past it (W + 1, issue 36) and the module sessions a ladder may decode.
inline constexpr Eigen::Index kMaxRows = 1 << 13;
inline constexpr Eigen::Index kMaxEntries = 1 << 22;          // numbers in one matrix
inline constexpr int kMaxHeads = 1 << 10;

[[noreturn]] inline void invalid(std::string_view field, const std::string& expected) {
  throw InvalidInput(fmt::format("{}: {}", field, expected));
}

// A width (d, a head count's product, …) in [min, kMaxWidth].
inline void width(std::string_view field, long long d, long long min = 1) {
  if (d < min || d > kMaxWidth) invalid(field, fmt::format("expected a width from {} to {}, got {}", min, kMaxWidth, d));
}

// A sequence length in [1, kMaxPosition + 1].
inline void length(std::string_view field, Position n) {
  if (n < 1 || n > kMaxPosition + 1) {
    invalid(field, fmt::format("expected a sequence length from 1 to {}, got {}", kMaxPosition + 1, n));
  }
}

// A position in [0, below).
inline void position(std::string_view field, Position t, Position below = kMaxPosition + 1) {
  if (t < 0 || t >= below) invalid(field, fmt::format("expected a position from 0 to {}, got {}", below - 1, t));
}

// min_count to kMaxRows positions, each in [0, below).
inline void positions(std::string_view field, const Positions& ts, Position below = kMaxPosition + 1,
                      std::size_t min_count = 1) {
  if (ts.size() < min_count || ts.size() > static_cast<std::size_t>(kMaxRows)) {
    invalid(field, fmt::format("expected {} to {} positions, got {}", min_count, kMaxRows, ts.size()));
  }
  for (Position t : ts) position(field, t, below);
}

// A matrix of finite numbers with at least one row and column (or exactly
// `rows`/`cols` where they are ≥ 0), at most kMaxRows rows and kMaxEntries entries.
inline void matrix(std::string_view field, const Matrix& m, Eigen::Index rows = -1, Eigen::Index cols = -1) {
  if (m.rows() < 1 || m.cols() < 1 || m.rows() > kMaxRows || m.size() > kMaxEntries) {
    invalid(field, fmt::format("expected a matrix of 1 to {} rows and at most {} entries, got {}×{}", kMaxRows,
                               kMaxEntries, m.rows(), m.cols()));
  }
  if ((rows >= 0 && m.rows() != rows) || (cols >= 0 && m.cols() != cols)) {
    invalid(field, fmt::format("expected {}×{}, got {}×{}", rows >= 0 ? std::to_string(rows) : "n",
                               cols >= 0 ? std::to_string(cols) : "d", m.rows(), m.cols()));
  }
  if (!m.allFinite()) invalid(field, "expected finite numbers");
}

// A head count that divides every width it splits.
inline void heads(std::string_view field, int h, std::initializer_list<Eigen::Index> widths) {
  if (h < 1 || h > kMaxHeads) invalid(field, fmt::format("expected 1 to {} heads, got {}", kMaxHeads, h));
  for (Eigen::Index w : widths) {
    if (w % h != 0) invalid(field, fmt::format("{} heads do not divide the width {}", h, w));
  }
}

// A permutation (already one: from_json checks) of exactly n items.
inline void permutation(std::string_view field, const Permutation& p, Eigen::Index n) {
  if (p.size() != n) invalid(field, fmt::format("expected a permutation of {} items, got {}", n, p.size()));
}

}  // namespace pecheck::input
