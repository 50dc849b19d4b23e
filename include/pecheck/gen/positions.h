#pragma once
// Positions with their edges mixed in. A defect at one position (fairseq's
// zeroed padding row at position 1, a cache that wraps at 2048, positions
// that collapse once they pass a format's exact-integer limit) hides from
// uniform draws: 1 in 10000 per draw. So a modest share of draws is taken
// from the boundary values instead — the ends of the range, powers of two
// and their neighbours, 256/257 and 2048/2049 (bfloat16's and float16's
// integer limits: where positions of 16-bit code collapse), and the
// subject's own precision's limit — each clamped to the range. Every draw
// shrinks toward the low end, so a witness still reads at a glance.
#include <rapidcheck.h>

#include <vector>

#include "pecheck/core/dtype.h"
#include "pecheck/core/matrix.h"

namespace pecheck::gen {

// The boundary values in [lo, hi], sorted and distinct: lo, lo + 1, lo + 2,
// hi − 1, hi; 2^k − 1, 2^k, 2^k + 1; 256, 257, 2048, 2049; and
// exact_integer_limit(precision) with its neighbours.
std::vector<Position> edge_positions(Position lo, Position hi, Dtype precision);

// A position in [lo, hi]: an edge (one of four kinds — the low end, the
// high end, a power of two or a neighbour, a precision limit — chosen
// alike) with probability `edge_share`, else uniform; shrinking toward lo.
inline constexpr double kEdgeShare = 0.25;
rc::Gen<Position> position(Position lo, Position hi, Dtype precision, double edge_share = kEdgeShare);

}  // namespace pecheck::gen
