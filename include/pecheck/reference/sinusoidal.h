#pragma once
// The closed form of the sinusoidal encoding (CLAIMS.md §2), the one place
// the formula is written: ω_i = 10000^(-2i/d), p_t[2i] = sin(t·ω_i),
// p_t[2i+1] = cos(t·ω_i) (interleaved) or p_t[i] = sin, p_t[d/2+i] = cos (halves).
#include "pecheck/core/matrix.h"
#include "pecheck/core/vocabulary.h"

namespace pecheck::reference {

double frequency(int pair, int dim);  // ω_i
// One row per position; odd dims end with a lone sine (interleaved) component.
Matrix sinusoidal(int dim, const Positions& positions, Layout layout = Layout::interleaved,
                  double amplitude = 1.0);
// Column index of the sine and cosine of pair i in a layout.
int sin_index(int pair, int dim, Layout layout);
int cos_index(int pair, int dim, Layout layout);

}  // namespace pecheck::reference
