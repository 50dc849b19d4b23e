/* A correct rotary encoding (interleaved pairs) and one head of scaled
 * dot-product attention in one plugin (C99), showing the rotate and
 * attention entry points and the mask kinds. */
#include <math.h>
#include <stdio.h>

#include "pecheck_plugin.h"

PECHECK_PLUGIN_EXPORT const struct pecheck_plugin_info* pecheck_plugin_info(void) {
  static const struct pecheck_plugin_info info = {PECHECK_PLUGIN_ABI_VERSION, "c-rope-attention", "float64",
                                                   "interleaved", PECHECK_OP_ROTATE | PECHECK_OP_ATTENTION};
  return &info;
}

/* Row r: each pair (x[2i], x[2i+1]) rotated by positions[r]·ω_i. */
PECHECK_PLUGIN_EXPORT int pecheck_rotate(const int64_t* positions, size_t n, int dim, const double* x, double* out,
                                         char* error, size_t error_size) {
  if (dim % 2 != 0) {
    snprintf(error, error_size, "dim must be even, got %d", dim);
    return PECHECK_REFUSED;
  }
  for (size_t r = 0; r < n; ++r) {
    const double* in = x + r * (size_t)dim;
    double* o = out + r * (size_t)dim;
    for (int i = 0; i < dim / 2; ++i) {
      const double angle = (double)positions[r] * pow(10000.0, -2.0 * i / dim);
      const double c = cos(angle), s = sin(angle);
      o[2 * i] = c * in[2 * i] - s * in[2 * i + 1];
      o[2 * i + 1] = s * in[2 * i] + c * in[2 * i + 1];
    }
  }
  return PECHECK_OK;
}

static int visible(int mask_kind, const bool* allowed, size_t m, size_t i, size_t j) {
  if (mask_kind == PECHECK_MASK_CAUSAL) return j <= i;
  if (mask_kind == PECHECK_MASK_BOOLEAN) return allowed[i * m + j];
  return 1;
}

/* softmax(q kᵀ/√d_k + mask) v, with the row maximum subtracted before exp. */
PECHECK_PLUGIN_EXPORT int pecheck_attention(const double* q, const double* k, const double* v, size_t n, size_t m,
                                            size_t d_k, size_t d_v, int mask_kind, const bool* allowed,
                                            double* out, char* error, size_t error_size) {
  if (m > 4096) {
    snprintf(error, error_size, "at most 4096 keys, got %zu", m);
    return PECHECK_REFUSED;
  }
  double score[4096];
  const double scale = 1.0 / sqrt((double)d_k);
  for (size_t i = 0; i < n; ++i) {
    double top = -INFINITY;
    for (size_t j = 0; j < m; ++j) {
      double dot = 0;
      for (size_t c = 0; c < d_k; ++c) dot += q[i * d_k + c] * k[j * d_k + c];
      score[j] = visible(mask_kind, allowed, m, i, j) ? dot * scale : -INFINITY;
      if (score[j] > top) top = score[j];
    }
    double total = 0;
    for (size_t j = 0; j < m; ++j) {
      score[j] = top == -INFINITY ? 0 : exp(score[j] - top);
      total += score[j];
    }
    for (size_t c = 0; c < d_v; ++c) {
      double acc = 0;
      for (size_t j = 0; j < m; ++j) acc += score[j] * v[j * d_v + c];
      out[i * d_v + c] = total > 0 ? acc / total : NAN;
    }
  }
  return PECHECK_OK;
}
