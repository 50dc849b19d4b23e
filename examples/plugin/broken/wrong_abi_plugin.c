/* Misbehaving on purpose: built against a future ABI version. */
#include "pecheck_plugin.h"

PECHECK_PLUGIN_EXPORT const struct pecheck_plugin_info* pecheck_plugin_info(void) {
  static const struct pecheck_plugin_info info = {PECHECK_PLUGIN_ABI_VERSION + 41, "c-wrong-abi", "float64", NULL,
                                                   PECHECK_OP_ENCODE};
  return &info;
}
