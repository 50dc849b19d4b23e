/* A correct sinusoidal positional encoding as a pecheck plugin (C99):
 * p_t[2i] = sin(t·ω_i), p_t[2i+1] = cos(t·ω_i), ω_i = 10000^(-2i/d).
 *
 *   cmake --build build && build/pecheck run --subject plugin:build/examples/plugin/libsinusoidal_plugin.so
 */
#include <math.h>
#include <stdio.h>

#include "pecheck_plugin.h"

PECHECK_PLUGIN_EXPORT const struct pecheck_plugin_info* pecheck_plugin_info(void) {
  static const struct pecheck_plugin_info info = {
      PECHECK_PLUGIN_ABI_VERSION, "c-sinusoidal", "float64", "interleaved", PECHECK_OP_ENCODE};
  return &info;
}

PECHECK_PLUGIN_EXPORT int pecheck_encode(int dim, const int64_t* positions, size_t n, int64_t seq_len,
                                         double* out, char* error, size_t error_size) {
  (void)seq_len; /* an absolute encoding does not depend on the sequence length */
  if (dim % 2 != 0) {
    /* A refusal is a fact about this implementation, counted as a discard. */
    snprintf(error, error_size, "dim must be even, got %d", dim);
    return PECHECK_REFUSED;
  }
  for (size_t r = 0; r < n; ++r) {
    const double t = (double)positions[r];
    for (int i = 0; i < dim / 2; ++i) {
      const double omega = pow(10000.0, -2.0 * i / dim);
      out[r * (size_t)dim + 2 * (size_t)i] = sin(t * omega);
      out[r * (size_t)dim + 2 * (size_t)i + 1] = cos(t * omega);
    }
  }
  return PECHECK_OK;
}
