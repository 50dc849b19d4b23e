#pragma once
// The rotary position encoding (CLAIMS.md §3, §5) under a declared
// RotateConvention (SUBJECT-PROTOCOL v2 params.rotate), the one place it is
// written:
//
//   r = rotary_width(d) features rotate, the rest pass through unchanged;
//   pair i of the rotated block, (2i, 2i+1) (interleaved; also what an
//   unspecified layout means) or (i, i + r/2) (halves, the rotate_half form),
//   turns by θ_i = t·ω_i:
//     out_a = m·(x_a cos θ − x_b sin θ),   out_b = m·(x_a sin θ + x_b cos θ),
//   ω_i = base^(−2i/r) before scaling, m = rotary_magnitude (1 but for YaRN).
//
// The scaling families, each from its published formula (Hugging Face
// transformers, src/transformers/modeling_rope_utils.py; r is the rotary
// width, F the factor, L the original context):
//   linear       ω_i / F   (= positions t/F; _compute_linear_scaling_rope_parameters)
//   ntk          base' = base·F^(r/(r−2))   (the NTK-aware formula)
//   dynamic_ntk  base' = base·((F·len/L) − (F − 1))^(r/(r−2)) when len > L, else
//                base   (_compute_dynamic_ntk_parameters; len is the request's
//                length: seq_len, else max(position) + 1)
//   yarn         a ramp per pair between the original ω_i and ω_i/F, over the pairs
//                between the correction dims of beta_fast and beta_slow rotations in
//                L; attention factor m = 0.1·ln F + 1 (_compute_yarn_parameters;
//                arXiv 2309.00071 §3.4, eq. 17–22)
//   llama3       ω_i kept where the wavelength 2π/ω_i < L/high_freq_factor, ω_i/F where
//                it is > L/low_freq_factor, and between them (1−s)·ω_i/F + s·ω_i with
//                s = (L/λ_i − low)/(high − low) (_compute_llama3_parameters)
//
// YaRN's attention factor: real code (transformers' LlamaRotaryEmbedding with
// rope_type "yarn", and the YaRN reference implementation) multiplies the cos
// and sin tables by it, so the rotated features of the vectors it returns are
// m·R_t x. The reference includes m in the same place (the rotated block only;
// pass-through features are returned as they are). Structural claims account
// for it with rotary_magnitude(): ‖out_rot‖ = m·‖x_rot‖, (R q)·(R k) scales by
// m², R_0 x = m·x on the rotated block, and R_a(R_b x) = m·R_{a+b} x.
//
// Computed in long double (frequencies, angles, sine and cosine), then
// returned as double. Refuses (Refusal) what a convention leaves undefined:
// a rotary width that is odd, < 2 or > d; r = 2 under ntk/dynamic_ntk (the
// exponent r/(r−2) is infinite); a non-positive base or factor; llama3 with
// high_freq_factor <= low_freq_factor; yarn/llama3/dynamic_ntk without L.
#include <optional>
#include <vector>

#include "pecheck/core/conventions.h"
#include "pecheck/core/matrix.h"
#include "pecheck/core/vocabulary.h"

namespace pecheck::reference {

// The rotated width for a d-wide vector, refused where undefined.
int rotary_block(int dim, const RotateConvention& convention);
// The length a dynamic scaling sees: seq_len, else max(position) + 1 (0 for none).
Position rotary_length(const Positions& positions, std::optional<Position> seq_len);
// The base after ntk / dynamic_ntk (the declared base for the other families).
// `length` is only read by dynamic_ntk; none means "not past L".
double rotary_base(int rotary_width, const RotateConvention& convention, std::optional<Position> length);
// ω_i for the r/2 pairs of the rotated block, after scaling.
std::vector<double> rotary_inv_freq(int rotary_width, const RotateConvention& convention,
                                    std::optional<Position> length);
// The factor the rotated features carry: YaRN's 0.1·ln F + 1, else 1.
double rotary_magnitude(const RotateConvention& convention);
// YaRN's ramp per pair (0: the original ω_i, extrapolated; 1: ω_i/F,
// interpolated), as in _compute_yarn_parameters: the correction range
// [⌊dim(beta_fast)⌋, ⌈dim(beta_slow)⌉] clamped to [0, r−1], dim(n) =
// r·ln(L/(2πn)) / (2 ln base).
std::vector<double> yarn_ramp(int rotary_width, const RotateConvention& convention);

// The two columns of pair i inside the rotated block of width r.
int rotary_first_column(int pair, int rotary_width, Layout layout);
int rotary_second_column(int pair, int rotary_width, Layout layout);

// Row k of the result is R_{positions[k]} x[k] under the convention.
Matrix rotary(const Positions& positions, const Matrix& x, const RotateConvention& convention,
              std::optional<Position> seq_len);

}  // namespace pecheck::reference
