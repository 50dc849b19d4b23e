/* A planted bug of a kind real implementations have: the cosine of pair i is
 * taken at the next pair's frequency (an off-by-one in the exponent), so
 * sin²+cos² ≠ 1 and ‖p_t‖² drifts from d/2. pecheck must reject it with a
 * counterexample (exit 1). Otherwise identical to sinusoidal_plugin.c. */
#include <math.h>
#include <stdio.h>

#include "pecheck_plugin.h"

PECHECK_PLUGIN_EXPORT const struct pecheck_plugin_info* pecheck_plugin_info(void) {
  static const struct pecheck_plugin_info info = {
      PECHECK_PLUGIN_ABI_VERSION, "c-sinusoidal-frequency-mismatch", "float64", "interleaved", PECHECK_OP_ENCODE};
  return &info;
}

PECHECK_PLUGIN_EXPORT int pecheck_encode(int dim, const int64_t* positions, size_t n, int64_t seq_len,
                                         double* out, char* error, size_t error_size) {
  (void)seq_len;
  if (dim % 2 != 0) {
    snprintf(error, error_size, "dim must be even, got %d", dim);
    return PECHECK_REFUSED;
  }
  for (size_t r = 0; r < n; ++r) {
    const double t = (double)positions[r];
    for (int i = 0; i < dim / 2; ++i) {
      const double omega_sin = pow(10000.0, -2.0 * i / dim);
      const double omega_cos = pow(10000.0, -2.0 * (i + 1) / dim); /* BUG: should be omega_sin */
      out[r * (size_t)dim + 2 * (size_t)i] = sin(t * omega_sin);
      out[r * (size_t)dim + 2 * (size_t)i + 1] = cos(t * omega_cos);
    }
  }
  return PECHECK_OK;
}
