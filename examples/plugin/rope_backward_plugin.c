/* A rotary encoding (interleaved pairs) with its own backward, as a fused
 * training kernel has one (CLAIMS.md §11): the forward turns row r by
 * +positions[r]·ω_i, the backward turns the upstream gradient back by −θ
 * (Rᵀ = R(−θ)). Built twice: as is, and with PECHECK_EXAMPLE_PLUS_THETA, the
 * published bug of a backward that reuses the forward's sin table without
 * its sign (Liger-Kernel's fused RoPE kind) — an exact forward whose
 * backward turns by +θ, which grad.rotary_inverse catches. */
#include <math.h>
#include <stdio.h>

#include "pecheck_plugin.h"

#ifdef PECHECK_EXAMPLE_PLUS_THETA
#define BACKWARD_SIGN 1.0
#define PLUGIN_NAME "c-rope-backward-plus-theta"
#else
#define BACKWARD_SIGN -1.0
#define PLUGIN_NAME "c-rope-backward"
#endif

PECHECK_PLUGIN_EXPORT const struct pecheck_plugin_info* pecheck_plugin_info(void) {
  static const struct pecheck_plugin_info info = {PECHECK_PLUGIN_ABI_VERSION, PLUGIN_NAME, "float64", "interleaved",
                                                   PECHECK_OP_ROTATE | PECHECK_OP_BACKWARD};
  return &info;
}

/* Each pair (in[2i], in[2i+1]) of every row turned by sign·positions[r]·ω_i. */
static int turn(const int64_t* positions, size_t n, int dim, const double* in, double* out, double sign, char* error,
                size_t error_size) {
  if (dim % 2 != 0) {
    snprintf(error, error_size, "dim must be even, got %d", dim);
    return PECHECK_REFUSED;
  }
  for (size_t r = 0; r < n; ++r) {
    const double* a = in + r * (size_t)dim;
    double* o = out + r * (size_t)dim;
    for (int i = 0; i < dim / 2; ++i) {
      const double angle = (double)positions[r] * pow(10000.0, -2.0 * i / dim);
      const double c = cos(angle), s = sign * sin(angle);
      o[2 * i] = c * a[2 * i] - s * a[2 * i + 1];
      o[2 * i + 1] = s * a[2 * i] + c * a[2 * i + 1];
    }
  }
  return PECHECK_OK;
}

PECHECK_PLUGIN_EXPORT int pecheck_rotate(const int64_t* positions, size_t n, int dim, const double* x, double* out,
                                         char* error, size_t error_size) {
  return turn(positions, n, dim, x, out, 1.0, error, error_size);
}

PECHECK_PLUGIN_EXPORT int pecheck_rotate_backward(const int64_t* positions, size_t n, int dim, const double* x,
                                                  const double* grad, double* dx, char* error, size_t error_size) {
  (void)x; /* a rotation is linear: its backward does not depend on x */
  return turn(positions, n, dim, grad, dx, BACKWARD_SIGN, error, error_size);
}
