#pragma once
// The rotary position encoding (CLAIMS.md §3, §5, §9) under a declared
// RotateConvention (SUBJECT-PROTOCOL v2 params.rotate), the one place it is
// written:
//
//   r = rotary_width(d) features rotate, the rest pass through unchanged;
//   pair i of the rotated block, (2i, 2i+1) (interleaved; also what an
//   unspecified layout means) or (i, i + r/2) (halves, the rotate_half form),
//   turns by θ_i = t·ω_i:
//     out_a = m·(x_a cos θ − x_b sin θ),   out_b = m·(x_a sin θ + x_b cos θ),
//   ω_i = base^(−2i/r) before scaling, m = rotary_magnitude (below).
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
//                L (_compute_yarn_parameters; arXiv 2309.00071 §3.4, eq. 17–22)
//   llama3       ω_i kept where the wavelength 2π/ω_i < L/high_freq_factor, ω_i/F where
//                it is > L/low_freq_factor, and between them (1−s)·ω_i/F + s·ω_i with
//                s = (L/λ_i − low)/(high − low) (_compute_llama3_parameters)
//   longrope     ω_i / ext_i, ext the short_factor list while the length is at or
//                below L, the long_factor list past it (_compute_longrope_parameters;
//                Phi-3, arXiv 2402.13753); the rule that picks the list is declared
//                (RopeScaling::factor_switch, conventions.h)
// and then, for any family, freq_factors: ω_i / ff_i (ggml's rope_freqs:
// ggml/src/ggml-cpu/ops.cpp, rope_yarn's theta_extrap / freq_factor).
//
// The magnitude m the rotated features carry (real code multiplies the cos
// and sin tables by it, so the rotated features of the vectors it returns are
// m·R_t x; pass-through features are returned as they are):
//   yarn      the declared attention_factor; else g(F, mscale)/g(F, mscale_all_dim)
//             (DeepSeek-V2/V3: deepseek-ai's modeling_deepseek.py
//             DeepseekV2YarnRotaryEmbedding; vllm-project/vllm
//             DeepseekScalingRotaryEmbedding), g(F, s) = 0.1·s·ln F + 1 for
//             F > 1, 1 otherwise, an absent mscale 1 and an absent
//             mscale_all_dim 0 as in DeepSeek's code — with neither, the
//             paper's g(F) = 0.1·ln F + 1
//   longrope  the declared attention_factor; else √(1 + ln f / ln L), f =
//             max_position_embeddings / L (the declared factor when no
//             max_position_embeddings is given), 1 when f ≤ 1
//   others    1
// Structural claims account for it with rotary_magnitude(): ‖out_rot‖ = m·‖x_rot‖,
// (R q)·(R k) scales by m², R_0 x = m·x on the rotated block, and R_a(R_b x) =
// m·R_{a+b} x. The softmax-scale consequence of DeepSeek's YaRN (the logits
// times g(F, mscale_all_dim)², declared on attention) is yarn_softmax_scale().
//
// Multi-axis positions (mrope_section [t, h, w], Qwen2-VL: transformers
// models/qwen2_vl/modeling_qwen2_vl.py apply_multimodal_rotary_pos_emb): pair
// i turns by the position of its axis — in sections (pairs [0, t) axis t,
// [t, t + h) axis h, the rest axis w), or interleaved (Qwen3-VL,
// models/qwen3_vl/modeling_qwen3_vl.py apply_interleaved_mrope: pair i with
// i mod 3 = 1 and i < 3h is axis h, i mod 3 = 2 and i < 3w axis w, the rest
// t). The sections add up to r/2. One-axis positions mean the same position
// on every axis (text tokens).
//
// Layout interleave_then_halves (DeepSeek-V2/V3: modeling_deepseek.py
// apply_rotary_pos_emb; transformers models/deepseek_v3/modeling_deepseek_v3.py
// apply_rotary_pos_emb_interleave): pair i is read from (2i, 2i+1) and
// written to (i, i + r/2).
//
// Computed in long double (frequencies, angles, sine and cosine), then
// returned as double. Refuses (Refusal) what a convention leaves undefined:
// a rotary width that is odd, < 2 or > d; r = 2 under ntk/dynamic_ntk (the
// exponent r/(r−2) is infinite); a non-positive base or factor; llama3 with
// high_freq_factor <= low_freq_factor; yarn/llama3/dynamic_ntk/longrope
// without L; per-pair lists (factors, sections) without r/2 entries.
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
// The length the declared convention compares with L for a request: as
// above, but max(position) for LongRoPE's `position` rule (long means some
// position > L). Multi-axis: over every axis.
Position rotary_length(const Positions& positions, std::optional<Position> seq_len, const RotateConvention& convention);
Position rotary_length(const std::vector<Positions>& axes, std::optional<Position> seq_len,
                       const RotateConvention& convention);
// The base after ntk / dynamic_ntk (the declared base for the other families).
// `length` is only read by dynamic_ntk; none means "not past L".
double rotary_base(int rotary_width, const RotateConvention& convention, std::optional<Position> length);
// ω_i for the r/2 pairs of the rotated block, after scaling and freq_factors.
// `length` (rotary_length) is read by dynamic_ntk and LongRoPE; none means
// "not past L".
std::vector<double> rotary_inv_freq(int rotary_width, const RotateConvention& convention,
                                    std::optional<Position> length);
// Whether LongRoPE uses its long factors at `length` (false for other families).
bool longrope_long(const RotateConvention& convention, std::optional<Position> length);
// The factor the rotated features carry (see above).
double rotary_magnitude(const RotateConvention& convention);
// DeepSeek's softmax-scale multiplier g(F, mscale_all_dim)² (1 without
// mscale_all_dim, and for other families): the logits are q·k/√d times it.
double yarn_softmax_scale(const RopeScaling& scaling);
// YaRN's ramp per pair (0: the original ω_i, extrapolated; 1: ω_i/F,
// interpolated), as in _compute_yarn_parameters: the correction range
// [⌊dim(beta_fast)⌋, ⌈dim(beta_slow)⌉] (unrounded when truncate is false)
// clamped to [0, r−1], dim(n) = r·ln(L/(2πn)) / (2 ln base).
std::vector<double> yarn_ramp(int rotary_width, const RotateConvention& convention);

// The axis (0 t, 1 h, 2 w) whose position pair i of a rotated block of width
// r turns by; 0 for a one-axis convention.
int rotary_axis(int pair, int rotary_width, const RotateConvention& convention);
// The 1-D frequency ω_k (k into rotary_inv_freq) pair i turns at: i itself,
// but for a 2-D rotary (rope_2d, P = r/2 pairs) 2i for the row's pairs i < P/2
// and 2(i − P/2) + 1 (even_odd, Pixtral: huggingface/transformers
// models/pixtral/modeling_pixtral.py PixtralRotaryEmbedding, freqs[::2] by
// row and freqs[1::2] by column, concatenated) or 2(i − P/2) (halves,
// Qwen2-VL: modeling_qwen2_vl.py VisionRotaryEmbedding(head_dim/2), the same
// frequencies θ^(−4j/d) for h and w, concatenated) for the column's. The
// stream a 2-D pair reads (rotary_axis) is the row's unless the request's
// first stream is the column (axes ["w", "h"]).
int rotary_frequency_index(int pair, int rotary_width, const RotateConvention& convention);

// The two input columns of pair i inside the rotated block of width r.
int rotary_first_column(int pair, int rotary_width, Layout layout);
int rotary_second_column(int pair, int rotary_width, Layout layout);
// The two output columns it is written to (the input's but for interleave_then_halves).
int rotary_output_first_column(int pair, int rotary_width, Layout layout);
int rotary_output_second_column(int pair, int rotary_width, Layout layout);
// An answer's rotated block put back in the input's column order (a copy,
// but for interleave_then_halves); features ≥ r are left as they are.
Matrix rotary_input_order(const Matrix& answer, int rotary_width, Layout layout);

// Row k of the result is R_{positions[k]} x[k] under the convention (every
// axis at that position for a multi-axis convention).
// DeepSeek MLA's decoupled rotary (deepseek-ai modeling_deepseek.py
// DeepseekV2Attention: q_nope, q_pe = split(q, [qk_nope_head_dim,
// qk_rope_head_dim]); only q_pe and the shared k_pe are rotated, then
// concatenated after the nope part): the convention the rope slice turns by
// (the qk widths cleared, an unspecified layout interleaved), and R_t of a
// head of nope + rope features (other widths refused).
RotateConvention rope_slice(const RotateConvention& convention);
// A context shift (llama.cpp's K-shift): x are vectors already rotated at
// `positions` under the convention, in its output column order; the answer is
// R(p + Δ)·R(p)⁻¹ x, pair by pair — the same vectors rotated at p + Δ, the
// magnitude m they carry untouched (the rotation alone moves). One-axis,
// length-independent conventions only (a dynamic or LongRoPE base depends on
// the length, not the position alone): refused otherwise, and where p + Δ < 0.
Matrix rotary_shift(const Positions& positions, Position shift, const Matrix& x, const RotateConvention& convention);
Matrix rotary_decoupled(const Positions& positions, const Matrix& x, const RotateConvention& convention,
                        std::optional<Position> seq_len);
Matrix rotary(const Positions& positions, const Matrix& x, const RotateConvention& convention,
              std::optional<Position> seq_len);
// Multi-axis positions: axes[a][k] is row k's position on axis a.
Matrix rotary_axes(const std::vector<Positions>& axes, const Matrix& x, const RotateConvention& convention,
                   std::optional<Position> seq_len);
// The same rotations evaluated in a subject's dtypes, as real code rounds them
// (reference/rotary_rounded.cpp): the same-dtype reference of the rotary
// claims (issue 36). For float64 the rotation in double, against the long
// double one above.
Matrix rotary_axes_rounded(const std::vector<Positions>& axes, const Matrix& x, const RotateConvention& convention,
                           std::optional<Position> seq_len, Dtype values, Dtype angles);

}  // namespace pecheck::reference
