/* Misbehaving on purpose: declares encode and rotate but exports only encode. */
#include "pecheck_plugin.h"

PECHECK_PLUGIN_EXPORT const struct pecheck_plugin_info* pecheck_plugin_info(void) {
  static const struct pecheck_plugin_info info = {PECHECK_PLUGIN_ABI_VERSION, "c-missing-rotate", "float64", NULL,
                                                   PECHECK_OP_ENCODE | PECHECK_OP_ROTATE};
  return &info;
}

PECHECK_PLUGIN_EXPORT int pecheck_encode(int dim, const int64_t* positions, size_t n, int64_t seq_len,
                                         double* out, char* error, size_t error_size) {
  (void)dim, (void)positions, (void)n, (void)seq_len, (void)out, (void)error, (void)error_size;
  return PECHECK_OK;
}
