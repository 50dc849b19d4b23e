/*
 * pecheck_plugin.h — the C ABI of a pecheck plugin (C99; usable from C++).
 *
 * A plugin is a shared library that implements one or more of the operations
 * pecheck verifies: an absolute positional encoding (encode), a rotary
 * encoding (rotate) or one head of scaled dot-product attention (attention).
 * pecheck loads it with dlopen and checks it with
 *
 *     pecheck run --subject plugin:./libmy_encoder.so
 *
 * The plugin runs in a child process (`pecheck serve plugin-inproc:PATH`), so a
 * crash in plugin code is reported as a subject failure (exit 3) and never
 * takes the harness down. That process is started once per run: every further
 * instance pecheck needs is a copy it forks after loading the plugin and
 * reading its info, before any operation is called (static state starts empty
 * in each copy). Loading must therefore start no thread (one that does is
 * started afresh for each instance instead) and hold nothing a forked process
 * cannot share; PECHECK_SUBJECT_FORK=0 turns forking off.
 *
 * What a plugin exports (extern "C", default visibility):
 *
 *   const struct pecheck_plugin_info* pecheck_plugin_info(void);   required
 *   pecheck_encode_fn    pecheck_encode;      required if ops has PECHECK_OP_ENCODE
 *   pecheck_rotate_fn    pecheck_rotate;      required if ops has PECHECK_OP_ROTATE
 *   pecheck_attention_fn pecheck_attention;   required if ops has PECHECK_OP_ATTENTION
 *   pecheck_rotate_backward_fn    pecheck_rotate_backward;     with PECHECK_OP_BACKWARD (below)
 *   pecheck_attention_backward_fn pecheck_attention_backward;  with PECHECK_OP_BACKWARD (below)
 *   pecheck_rotate_shift_fn pecheck_rotate_shift;  required if ops has PECHECK_OP_ROTATE_SHIFT
 *   pecheck_rotate_axes_fn  pecheck_rotate_axes;   required if ops has PECHECK_OP_ROTATE_AXES
 *
 * Gradients (CLAIMS.md §11) are a feature bit of ops, not a new ABI version,
 * so a plugin built before them loads unchanged: a plugin that sets
 * PECHECK_OP_BACKWARD exports the backward of rotate, of attention or both
 * (each only beside its forward op), and pecheck asks those it finds.
 * The rotary conventions of SUBJECT-PROTOCOL.md "New conventions" follow the
 * same rule, each a bit beside PECHECK_OP_ROTATE and an entry point it
 * requires: a context shift (PECHECK_OP_ROTATE_SHIFT, which declares
 * context_shift, so module.context_shift judges it) and positions per axis
 * (PECHECK_OP_ROTATE_AXES, for a 2-D rotary or multi-axis positions, whose
 * convention — params.rotate.rope_2d or mrope_section — the plugin declares
 * in pecheck.toml's [subject."plugin:PATH"] table, as it declares its base).
 * A decoupled head (qk_rope_head_dim, DeepSeek MLA) needs no entry point:
 * pecheck_rotate gets the whole head and turns its last qk_rope_head_dim
 * features.
 *
 * Conventions shared by every operation:
 *   - Matrices are dense, row-major arrays of double: element (r, c) of an
 *     n×d matrix is at [r * d + c]. Outputs go into buffers the caller
 *     allocated with exactly the documented shape; write every element.
 *   - A plugin that computes in a lower precision (say float32) converts at the
 *     boundary and declares that dtype in its info: pecheck scales its
 *     tolerances by the declared dtype's unit roundoff.
 *   - Return PECHECK_OK (0) on success. Return PECHECK_REFUSED (1) to refuse an
 *     input the plugin does not support (e.g. an odd dim): pecheck counts it as
 *     a discard, not a failure. Any other value is a failure of the plugin
 *     (exit 3). For a refusal or a failure, write a NUL-terminated message of
 *     at most error_size bytes (including the NUL) into `error`.
 *   - Calls come one at a time from one thread; a plugin needs no locking.
 *   - Non-finite outputs (NaN, ±Inf) are values, judged by the properties.
 */
#ifndef PECHECK_PLUGIN_H
#define PECHECK_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI this header describes. A plugin puts it in its info; pecheck
 * refuses to load a plugin built against another ABI version. */
#define PECHECK_PLUGIN_ABI_VERSION 1

/* Bits of pecheck_plugin_info.ops. */
#define PECHECK_OP_ENCODE 1u
#define PECHECK_OP_ATTENTION 2u
#define PECHECK_OP_ROTATE 4u
#define PECHECK_OP_BACKWARD 8u /* exports pecheck_rotate_backward and/or pecheck_attention_backward */
#define PECHECK_OP_ROTATE_SHIFT 16u /* exports pecheck_rotate_shift (with PECHECK_OP_ROTATE) */
#define PECHECK_OP_ROTATE_AXES 32u  /* exports pecheck_rotate_axes (with PECHECK_OP_ROTATE) */

/* Return codes of the operations. */
#define PECHECK_OK 0
#define PECHECK_REFUSED 1

/* Kinds of attention mask. */
#define PECHECK_MASK_NONE 0    /* every query sees every key */
#define PECHECK_MASK_CAUSAL 1  /* query i sees keys 0..i (n == m) */
#define PECHECK_MASK_BOOLEAN 2 /* allowed[i * m + j]: query i may attend to key j */

/* Put this before each exported definition: plugins are often built with
 * -fvisibility=hidden, and pecheck finds the entry points with dlsym. */
#if defined(_WIN32)
#define PECHECK_PLUGIN_EXPORT __declspec(dllexport)
#else
#define PECHECK_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* What the plugin is. The pointer returned by pecheck_plugin_info() must stay
 * valid while the library is loaded (return the address of a static). */
struct pecheck_plugin_info {
  int abi_version;    /* PECHECK_PLUGIN_ABI_VERSION */
  const char* name;   /* how reports name the implementation */
  const char* dtype;  /* "float64", "float32", "bfloat16" or "float16" */
  const char* layout; /* NULL, "interleaved" or "halves" (encoders, rotaries) */
  unsigned ops;       /* bitwise or of PECHECK_OP_* */
};

/* Entry point every plugin exports. (Like `struct stat` and stat(), the struct
 * and the function share a name; in C++ write `struct pecheck_plugin_info`.) */
const struct pecheck_plugin_info* pecheck_plugin_info(void);

/* encode: row r of `out` (n × dim) is the encoding of positions[r] in a
 * sequence of seq_len tokens; 0 <= positions[r] < seq_len. */
typedef int (*pecheck_encode_fn)(int dim, const int64_t* positions, size_t n, int64_t seq_len,
                                 double* out, char* error, size_t error_size);
int pecheck_encode(int dim, const int64_t* positions, size_t n, int64_t seq_len, double* out,
                   char* error, size_t error_size);

/* rotate: row r of `out` (n × dim) is R_{positions[r]} applied to row r of
 * x (n × dim). */
typedef int (*pecheck_rotate_fn)(const int64_t* positions, size_t n, int dim, const double* x,
                                 double* out, char* error, size_t error_size);
int pecheck_rotate(const int64_t* positions, size_t n, int dim, const double* x, double* out,
                   char* error, size_t error_size);

/* attention (one head): out (n × d_v) = softmax(q kᵀ / sqrt(d_k) + mask) v,
 * with q n × d_k, k m × d_k, v m × d_v. `allowed` is NULL unless mask_kind is
 * PECHECK_MASK_BOOLEAN, when it is an n × m row-major array. */
typedef int (*pecheck_attention_fn)(const double* q, const double* k, const double* v, size_t n,
                                    size_t m, size_t d_k, size_t d_v, int mask_kind,
                                    const bool* allowed, double* out, char* error,
                                    size_t error_size);
int pecheck_attention(const double* q, const double* k, const double* v, size_t n, size_t m,
                      size_t d_k, size_t d_v, int mask_kind, const bool* allowed, double* out,
                      char* error, size_t error_size);

/* The backward of rotate: dx (n × dim) = (∂ rotate(positions, x) / ∂x)ᵀ grad,
 * grad n × dim the upstream gradient (for a rotation, R_{positions[r]}ᵀ
 * applied to row r of grad). */
typedef int (*pecheck_rotate_backward_fn)(const int64_t* positions, size_t n, int dim, const double* x,
                                          const double* grad, double* dx, char* error, size_t error_size);
int pecheck_rotate_backward(const int64_t* positions, size_t n, int dim, const double* x, const double* grad,
                            double* dx, char* error, size_t error_size);

/* The backward of attention (one head, the arguments of pecheck_attention):
 * for the upstream gradient grad (n × d_v), dq (n × d_k), dk (m × d_k) and
 * dv (m × d_v), the vector–Jacobian products w.r.t. q, k and v. */
typedef int (*pecheck_attention_backward_fn)(const double* q, const double* k, const double* v, size_t n,
                                             size_t m, size_t d_k, size_t d_v, int mask_kind,
                                             const bool* allowed, const double* grad, double* dq, double* dk,
                                             double* dv, char* error, size_t error_size);
int pecheck_attention_backward(const double* q, const double* k, const double* v, size_t n, size_t m,
                               size_t d_k, size_t d_v, int mask_kind, const bool* allowed, const double* grad,
                               double* dq, double* dk, double* dv, char* error, size_t error_size);

/* A context shift (llama.cpp's, when a full cache drops its oldest tokens):
 * x (n × dim) are keys already rotated at positions[r]; row r of `out` is the
 * same key rotated at positions[r] + shift instead, R_{p + Δ} R_p⁻¹ x[r]
 * (for a rotary whose angle follows the position alone, a turn of every pair
 * by Δ·ω_i). shift may be negative; every positions[r] + shift is >= 0. */
typedef int (*pecheck_rotate_shift_fn)(const int64_t* positions, size_t n, int dim, int64_t shift, const double* x,
                                       double* out, char* error, size_t error_size);
int pecheck_rotate_shift(const int64_t* positions, size_t n, int dim, int64_t shift, const double* x, double* out,
                         char* error, size_t error_size);

/* rotate with one position per axis: positions is axes × n, row-major —
 * positions[a * n + r] is row r's position on axis a — and row r of `out`
 * (n × dim) is row r of x turned pair by pair by its axis's position. The
 * axes come in the order the declared convention names them: for
 * params.rotate.rope_2d, its `axes` (["h", "w"]: the patch's row, then its
 * column; axes == 2); for mrope_section, t, h, w (axes == 3). */
typedef int (*pecheck_rotate_axes_fn)(const int64_t* positions, size_t axes, size_t n, int dim, const double* x,
                                      double* out, char* error, size_t error_size);
int pecheck_rotate_axes(const int64_t* positions, size_t axes, size_t n, int dim, const double* x, double* out,
                        char* error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif /* PECHECK_PLUGIN_H */
