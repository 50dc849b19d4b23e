/* Misbehaving on purpose: answers the first two encode calls correctly, then
 * dies of SIGSEGV. pecheck must survive it (the plugin runs in a child),
 * keep the results it has, write its reports and exit 3. */
#include <math.h>
#include <signal.h>

#include "pecheck_plugin.h"

PECHECK_PLUGIN_EXPORT const struct pecheck_plugin_info* pecheck_plugin_info(void) {
  static const struct pecheck_plugin_info info = {PECHECK_PLUGIN_ABI_VERSION, "c-crashing", "float64", NULL,
                                                   PECHECK_OP_ENCODE};
  return &info;
}

PECHECK_PLUGIN_EXPORT int pecheck_encode(int dim, const int64_t* positions, size_t n, int64_t seq_len,
                                         double* out, char* error, size_t error_size) {
  static int calls = 0;
  (void)seq_len, (void)error, (void)error_size;
  if (++calls > 2) raise(SIGSEGV);
  for (size_t r = 0; r < n; ++r) {
    for (int j = 0; j < dim; ++j) {
      const double omega = pow(10000.0, -2.0 * (j / 2) / dim);
      const double angle = (double)positions[r] * omega;
      out[r * (size_t)dim + (size_t)j] = j % 2 == 0 ? sin(angle) : cos(angle);
    }
  }
  return PECHECK_OK;
}
