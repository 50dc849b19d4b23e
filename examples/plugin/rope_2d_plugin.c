/* Pixtral's 2-D rotary of image patches (PECHECK_OP_ROTATE_AXES,
 * rope.axes_2d): with ω_k = 10000^(−2k/d) and P = d/2 interleaved pairs, pair
 * j < P/2 turns by the patch's row at ω_2j and pair P/2 + j by its column at
 * ω_(2j+1) (transformers models/pixtral/modeling_pixtral.py,
 * PixtralRotaryEmbedding: freqs[::2] by h, freqs[1::2] by w). Declared in
 * pecheck.toml: params.rotate.rope_2d = { axes = ["h", "w"], frequencies =
 * "even_odd" }. Built twice: as is, and with PECHECK_EXAMPLE_AXES_SWAPPED —
 * rows and columns swapped (the patch grid read as (w, h)). */
#include <math.h>
#include <stdio.h>

#include "pecheck_plugin.h"

#ifdef PECHECK_EXAMPLE_AXES_SWAPPED
#define ROW_AXIS 1
#define PLUGIN_NAME "c-rope-2d-swapped"
#else
#define ROW_AXIS 0
#define PLUGIN_NAME "c-rope-2d"
#endif

PECHECK_PLUGIN_EXPORT const struct pecheck_plugin_info* pecheck_plugin_info(void) {
  static const struct pecheck_plugin_info info = {PECHECK_PLUGIN_ABI_VERSION, PLUGIN_NAME, "float64", "interleaved",
                                                   PECHECK_OP_ROTATE | PECHECK_OP_ROTATE_AXES};
  return &info;
}

/* Row r turned pair by pair: pair i by rows[r] or cols[r] at its frequency. */
static int turn(const int64_t* rows, const int64_t* cols, size_t n, int dim, const double* x, double* out,
                char* error, size_t error_size) {
  if (dim % 4 != 0) {
    snprintf(error, error_size, "a 2-D rotary needs a multiple of 4 features, got %d", dim);
    return PECHECK_REFUSED;
  }
  const int pairs = dim / 2;
  for (size_t r = 0; r < n; ++r) {
    const double* a = x + r * (size_t)dim;
    double* o = out + r * (size_t)dim;
    for (int i = 0; i < pairs; ++i) {
      const int by_row = i < pairs / 2;
      const int k = by_row ? 2 * i : 2 * (i - pairs / 2) + 1;
      const double t = (double)(by_row ? rows[r] : cols[r]);
      const double angle = t * pow(10000.0, -2.0 * k / dim);
      const double c = cos(angle), s = sin(angle);
      o[2 * i] = c * a[2 * i] - s * a[2 * i + 1];
      o[2 * i + 1] = s * a[2 * i] + c * a[2 * i + 1];
    }
  }
  return PECHECK_OK;
}

/* One position per row: the patch at (t, t). */
PECHECK_PLUGIN_EXPORT int pecheck_rotate(const int64_t* positions, size_t n, int dim, const double* x, double* out,
                                         char* error, size_t error_size) {
  return turn(positions, positions, n, dim, x, out, error, error_size);
}

PECHECK_PLUGIN_EXPORT int pecheck_rotate_axes(const int64_t* positions, size_t axes, size_t n, int dim,
                                              const double* x, double* out, char* error, size_t error_size) {
  if (axes != 2) {
    snprintf(error, error_size, "a 2-D rotary takes 2 position axes, got %zu", axes);
    return PECHECK_REFUSED;
  }
  return turn(positions + ROW_AXIS * n, positions + (1 - ROW_AXIS) * n, n, dim, x, out, error, error_size);
}
