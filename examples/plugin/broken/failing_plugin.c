/* Misbehaving on purpose: refuses odd dims (a discard) and reports a failure
 * (return 2) for every even one: a subject failure, exit 3. */
#include <stdio.h>

#include "pecheck_plugin.h"

PECHECK_PLUGIN_EXPORT const struct pecheck_plugin_info* pecheck_plugin_info(void) {
  static const struct pecheck_plugin_info info = {PECHECK_PLUGIN_ABI_VERSION, "c-failing", "float32", NULL,
                                                   PECHECK_OP_ENCODE};
  return &info;
}

PECHECK_PLUGIN_EXPORT int pecheck_encode(int dim, const int64_t* positions, size_t n, int64_t seq_len,
                                         double* out, char* error, size_t error_size) {
  (void)positions, (void)n, (void)seq_len, (void)out;
  if (dim % 2 != 0) {
    snprintf(error, error_size, "odd dim %d", dim);
    return PECHECK_REFUSED;
  }
  snprintf(error, error_size, "out of device memory");
  return 2;
}
