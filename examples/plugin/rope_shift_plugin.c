/* A rotary encoding (interleaved pairs, base 10000) that answers llama.cpp's
 * context shift (PECHECK_OP_ROTATE_SHIFT, module.context_shift): keys already
 * rotated at p are turned by Δ·ω_i, which is R(p + Δ)·R(p)⁻¹ for an angle that
 * follows the position alone (llama.cpp src/llama-kv-cache.cpp,
 * build_rope_shift: ggml_rope_ext at pos = Δ). Built four times:
 *   as is;
 *   PECHECK_EXAMPLE_SHIFT_REVERSED — the shift turned by −Δ (a sign lost
 *     between the cache's position delta and the rope call);
 *   PECHECK_EXAMPLE_ROPE_TAIL=8 — DeepSeek MLA's decoupled head: only the
 *     last 8 features (qk_rope_head_dim) turn, the rest pass through
 *     (declared in pecheck.toml: params.rotate.qk_rope_head_dim = 8 and
 *     qk_nope_head_dim), its shift likewise;
 *   with PECHECK_EXAMPLE_ROPE_ON_NOPE as well — the rope applied to the first
 *     8 features, the nope slice (rope.decoupled's planted kind). */
#include <math.h>
#include <stdio.h>

#include "pecheck_plugin.h"

#if defined(PECHECK_EXAMPLE_SHIFT_REVERSED)
#define SHIFT_SIGN (-1.0)
#define PLUGIN_NAME "c-rope-shift-reversed"
#elif defined(PECHECK_EXAMPLE_ROPE_ON_NOPE)
#define SHIFT_SIGN 1.0
#define PLUGIN_NAME "c-mla-rope-on-nope"
#elif defined(PECHECK_EXAMPLE_ROPE_TAIL)
#define SHIFT_SIGN 1.0
#define PLUGIN_NAME "c-mla-rope-shift"
#else
#define SHIFT_SIGN 1.0
#define PLUGIN_NAME "c-rope-shift"
#endif

PECHECK_PLUGIN_EXPORT const struct pecheck_plugin_info* pecheck_plugin_info(void) {
  static const struct pecheck_plugin_info info = {PECHECK_PLUGIN_ABI_VERSION, PLUGIN_NAME, "float64", "interleaved",
                                                   PECHECK_OP_ROTATE | PECHECK_OP_ROTATE_SHIFT};
  return &info;
}

/* Each pair of the rotated slice of row r turned by t·ω_i, t = positions[r]
 * (or `by` for every row where positions is NULL), ω_i = 10000^(−2i/w) over
 * the slice's w features; the rest copied. */
static int turn(const int64_t* positions, double by, size_t n, int dim, const double* in, double* out, char* error,
                size_t error_size) {
#ifdef PECHECK_EXAMPLE_ROPE_TAIL
  const int width = PECHECK_EXAMPLE_ROPE_TAIL;
  if (dim < width) {
    snprintf(error, error_size, "a head has at least the %d rope features, got dim %d", width, dim);
    return PECHECK_REFUSED;
  }
#ifdef PECHECK_EXAMPLE_ROPE_ON_NOPE
  const int first = 0;
#else
  const int first = dim - width;
#endif
#else
  const int width = dim, first = 0;
#endif
  if (width % 2 != 0) {
    snprintf(error, error_size, "the rotated width must be even, got %d", width);
    return PECHECK_REFUSED;
  }
  for (size_t r = 0; r < n; ++r) {
    const double* a = in + r * (size_t)dim;
    double* o = out + r * (size_t)dim;
    for (int c = 0; c < dim; ++c) o[c] = a[c];
    for (int i = 0; i < width / 2; ++i) {
      const double t = positions != NULL ? (double)positions[r] : by;
      const double angle = t * pow(10000.0, -2.0 * i / width);
      const double c = cos(angle), s = sin(angle);
      const int j = first + 2 * i;
      o[j] = c * a[j] - s * a[j + 1];
      o[j + 1] = s * a[j] + c * a[j + 1];
    }
  }
  return PECHECK_OK;
}

PECHECK_PLUGIN_EXPORT int pecheck_rotate(const int64_t* positions, size_t n, int dim, const double* x, double* out,
                                         char* error, size_t error_size) {
  return turn(positions, 0.0, n, dim, x, out, error, error_size);
}

PECHECK_PLUGIN_EXPORT int pecheck_rotate_shift(const int64_t* positions, size_t n, int dim, int64_t shift,
                                               const double* x, double* out, char* error, size_t error_size) {
  (void)positions; /* the angle follows the position alone: a turn by Δ from wherever the key is */
  return turn(NULL, SHIFT_SIGN * (double)shift, n, dim, x, out, error, error_size);
}
