#pragma once
// The pieces transformer modules are built of (CLAIMS.md §7), each written
// once, in float64, rows as tokens: normalisations, activations, affine maps,
// the rotary embedding of a head (halves layout, with dynamic NTK), and one
// head of masked attention. The built-in modules (subjects/builtin/modules_*)
// compose them; tests compose them to state what a module must compute.
#include <optional>
#include <vector>

#include "pecheck/core/matrix.h"

namespace pecheck::reference {

// Row-wise LayerNorm (Ba et al.; torch.nn.LayerNorm): (x − mean)/√(var + eps)
// ⊙ gamma + beta, var the biased variance over the features of one token.
Matrix layer_norm(const Matrix& x, const Vector& gamma, const Vector& beta, double eps = 1e-5);
// Row-wise RMSNorm (Zhang & Sennrich; Llama): x/√(mean(x²) + eps) ⊙ weight.
Matrix rms_norm(const Matrix& x, const Vector& weight, double eps = 1e-6);

Matrix relu(const Matrix& x);
// The exact GELU x·Φ(x) = x/2·(1 + erf(x/√2)) (torch's default, not the tanh form).
Matrix gelu(const Matrix& x);
// SiLU x·σ(x) (Llama's SwiGLU gate).
Matrix silu(const Matrix& x);

// Row-wise x W + b: x is N×in, w in×out, b (optional, empty = none) out.
Matrix affine(const Matrix& x, const Matrix& w, const Vector& b = {});

// RoPE frequencies of a rotary head of even width d: ω_i = base^(−2i/d), i < d/2.
std::vector<double> rope_frequencies(int dim, double base);
// Dynamic NTK (SUBJECT-PROTOCOL v2; huggingface/transformers
// modeling_rope_utils.py _compute_dynamic_ntk_parameters): for a sequence of
// seq_len > L tokens the base becomes base·((F·len/L) − (F − 1))^(d/(d−2)),
// d the rotary width; at or below L it is the original base.
double dynamic_ntk_base(double base, double factor, Position seq_len, Position original_max_position, int dim);
// Row r of x (one rotary head, pairs (i, i + d/2): the rotate_half layout of
// Llama) rotated by positions[r]·ω_i.
Matrix rotate_halves(const Matrix& x, const Positions& positions, const std::vector<double>& frequencies);

// One head of softmax(q kᵀ/√d_k + mask) v, key j allowed for query i where
// allowed(i, j). The softmax runs over the allowed keys only (a masked key
// contributes exactly nothing); a query with no allowed key (a pad before
// any real token) gets a zero row, which no claim compares.
Matrix masked_attention(const Matrix& q, const Matrix& k, const Matrix& v, const BoolMatrix& allowed);

}  // namespace pecheck::reference
