#pragma once
// The closed form of the sinusoidal encoding (CLAIMS.md §2), the one place
// the formula is written, parameterised by a declared EncodeConvention
// (SUBJECT-PROTOCOL v2 params.encode):
//
//   p_t = A · [sin((t + offset)·ω_i), cos((t + offset)·ω_i)] for each pair i,
//   ω_i = base^(−2i/d)          (schedule "2i/d": the paper), or
//   ω_i = base^(−i/(h−1)), h = d/2   (schedule "i/(h-1)": tensor2tensor, fairseq),
//
// with pair i's sine and cosine at columns (2i, 2i+1) (interleaved; also what
// an unspecified layout means) or (i, h + i) (halves [sin… | cos…]).
//
// What the reference does not define it refuses (a Refusal naming why):
// schedule i/(h−1) for h < 2 (a division by zero) or an odd d (h is not
// d/2), and the halves layout for an odd d. The interleaved 2i/d form keeps
// version 1's odd widths: they end with a lone sine.
//
// Computed in double exactly as the formula is written (ω_i by pow, one
// product for the angle, libm's sine and cosine): each value is a few ulps
// of 2^-53 from the exact one, far inside what the error model allows even a
// float64 subject (u·(1 + |t|)), and bit-identical to straightforward double
// code of the same formula (the C plugin tests rely on it).
#include <vector>

#include "pecheck/core/conventions.h"
#include "pecheck/core/matrix.h"
#include "pecheck/core/vocabulary.h"

namespace pecheck::reference {

// ω_i under a convention; refuses what the header comment says.
double frequency(int pair, int dim, const EncodeConvention& convention);
// Every ω_i of a width, the same numbers, computed once per thread (a claim
// asks the same widths case after case, and a pow a pair was a tenth of the
// cheapest's time); refuses as frequency does.
const std::vector<double>& frequencies(int dim, const EncodeConvention& convention);
// One row per position (positions as given, before the convention's offset).
Matrix sinusoidal(int dim, const Positions& positions, const EncodeConvention& convention);

// The same rows evaluated in a subject's dtypes as real code rounds them, and
// exactly (the angle to long double's accuracy, each entry within an ulp of
// the exact value): the same-dtype reference of the pe claims
// (reference/sinusoidal_rounded.cpp, issue 36).
Matrix sinusoidal_rounded(int dim, const Positions& positions, const EncodeConvention& convention, Dtype values,
                          Dtype angles);
Matrix sinusoidal_exact(int dim, const Positions& positions, const EncodeConvention& convention);

// The paper's defaults (base 10000, 2i/d, no offset): version 1's API.
double frequency(int pair, int dim);  // ω_i = 10000^(−2i/d)
Matrix sinusoidal(int dim, const Positions& positions, Layout layout = Layout::interleaved,
                  double amplitude = 1.0);
// Column index of the sine and cosine of pair i in a layout (unspecified:
// interleaved).
int sin_index(int pair, int dim, Layout layout);
int cos_index(int pair, int dim, Layout layout);

}  // namespace pecheck::reference
