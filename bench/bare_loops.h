#pragma once
// The same arithmetic as the headline properties, as bare Eigen loops with a
// plain std::mt19937_64 RNG and no harness: the baseline the harness's
// overhead is measured against. Each returns how many cases it ran per second
// and accumulates a checksum so the optimiser cannot drop the work.
#include <cstdint>

namespace pecheck::bench {

struct BareResult {
  double cases_per_second = 0;
  double checksum = 0;
};

// n ∈ [1,16] tokens, d ∈ [1,32], X, Wq, Wk, Wv uniform in [−4,4]:
// max |Attn(PX) − P·Attn(X)| for a random permutation P.
BareResult attention_equivariance(int cases, std::uint64_t seed);
// d = 2h, h ∈ [1,256], t, s ∈ [0,10000], k ∈ [0,1000]: |p_t·p_{t+k} − p_s·p_{s+k}|.
BareResult offset_only_dot(int cases, std::uint64_t seed);
// d = 2h, h ∈ [1,256], t ∈ [0,100000]: max(|p_t| − 1) and |‖p_t‖² − d/2|.
BareResult bounded_norm(int cases, std::uint64_t seed);
// d_t, d_p, m ∈ [1,32] (m the projection width), n ∈ [1,8] tokens, values in
// [−4,4]: pad+add versus concat, through a
// linear projection and through attention.
BareResult add_subsumes_concat(int cases, std::uint64_t seed);

}  // namespace pecheck::bench

namespace pecheck::bench {

// A Llama-style block (d = 32, 4 heads, SwiGLU 64, RoPE halves, causal), one
// or two sequences of N ∈ [2,8] tokens at positions from t ∈ [0,10000]: the
// forward, the same forward again, and the forward with token j ∈ [1,N)
// replaced; max |Δ| over rows before j (module.causality's arithmetic).
BareResult llama_causality(int cases, std::uint64_t seed);

}  // namespace pecheck::bench
