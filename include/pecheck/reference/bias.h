#pragma once
// Additive attention-logit biases (CLAIMS.md §6), the one place their
// formulas are written: ALiBi (Press et al., "Train Short, Test Long") and
// T5's relative position buckets (Raffel et al., from mesh-tensorflow).
#include <vector>

#include "pecheck/core/matrix.h"

namespace pecheck::reference {

// ALiBi's slope of every head, 0-based head h of H:
//   H a power of two: 2^(−8(h+1)/H), a geometric sequence starting at 2^(−8/H);
//   otherwise, with n the largest power of two below H: the n slopes of n
//   heads, then every other slope of 2n heads (the 1st, 3rd, …) until H.
// As ofirpress/attention_with_linear_biases, fairseq/models/transformer.py
// (get_slopes) defines them; each slope here is 2^(exponent) in one exp2, so
// it is the exact power (the published code multiplies start·ratio^i and
// lands a few ulps away). Refuses heads < 1 (std::invalid_argument).
std::vector<double> alibi_slopes(int heads);

// The n×m bias of head `head` (0-based) of `heads`: b[i][j] = −slope_h·|i−j|
// (query i, key j). For j ≤ i this is the causal form slope_h·(j−i).
// `shift`: the key position of query 0 (0 top-left; m − n bottom-right, queries at the last n keys).
Matrix alibi_bias(int n, int m, int head, int heads, int shift = 0);

// T5's bucket of the relative position `relative` = key − query (j − i), as
// huggingface/transformers src/transformers/models/t5/modeling_t5.py
// (T5Attention._relative_position_bucket) defines it:
//   bidirectional: half the buckets for each direction (the upper half for
//     j > i), distance |j − i|; unidirectional: distance max(i − j, 0), so
//     every future key shares the bucket of distance 0;
//   max_exact = (buckets per direction)/2; a distance below max_exact is its
//     own bucket; a larger one gets max_exact + ⌊log(dist/max_exact) /
//     log(max_distance/max_exact) · (buckets − max_exact)⌋, at most the last
//     bucket of its direction.
// HF computes the logarithm in float32; double gives the same buckets for
// the configurations tested (tests/test_bias_reference.cpp holds HF's values).
// Refuses num_buckets < 2 (4 when bidirectional) or max_distance ≤ max_exact.
int t5_bucket(Position relative, int num_buckets, int max_distance, bool bidirectional);

}  // namespace pecheck::reference
