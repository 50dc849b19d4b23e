/* Misbehaving on purpose: declares the context shift (PECHECK_OP_ROTATE_SHIFT)
 * but exports only pecheck_rotate. */
#include "pecheck_plugin.h"

PECHECK_PLUGIN_EXPORT const struct pecheck_plugin_info* pecheck_plugin_info(void) {
  static const struct pecheck_plugin_info info = {PECHECK_PLUGIN_ABI_VERSION, "c-missing-shift", "float64",
                                                   "interleaved", PECHECK_OP_ROTATE | PECHECK_OP_ROTATE_SHIFT};
  return &info;
}

PECHECK_PLUGIN_EXPORT int pecheck_rotate(const int64_t* positions, size_t n, int dim, const double* x, double* out,
                                         char* error, size_t error_size) {
  (void)positions, (void)error, (void)error_size;
  for (size_t i = 0; i < n * (size_t)dim; ++i) out[i] = x[i];
  return PECHECK_OK;
}
