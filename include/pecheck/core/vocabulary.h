#pragma once
// The vocabulary every layer speaks about subjects: the ops a subject offers,
// the layout of its (sin, cos) pairs, attention masks, and what a subject
// says about itself. Plain data, no behaviour.
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "pecheck/core/conventions.h"
#include "pecheck/core/dtype.h"
#include "pecheck/core/matrix.h"
#include "pecheck/core/shapes.h"
#include "pecheck/core/subject_spec.h"

namespace pecheck {

// What a subject can do. `encode`, `attention`, `rotate`, `bias`, `forward`
// and `decode` (with `reset`) are the protocol's ops; `logits` and `combine`
// are in-process extensions used by the built-ins.
enum class Op : unsigned {
  encode = 1u << 0,
  attention = 1u << 1,
  rotate = 1u << 2,
  logits = 1u << 3,
  combine = 1u << 4,
  bias = 1u << 5,
  forward = 1u << 6,
  decode = 1u << 7,
  backward = 1u << 8,  // the vector–Jacobian products of another op (CLAIMS.md §11)
};
// Each op's row, its name included, is in the op table (pecheck/core/op_table.h).
std::string_view name(Op op);
std::optional<Op> parse_op(std::string_view text);

struct SubjectInfo {
  std::string name;                  // as the subject calls itself
  SubjectSpec spec;                  // how it was named: builtin:sinusoidal, cmd:..., plugin:... (format_spec)
  unsigned ops = 0;                  // bitwise or of Op
  Dtype dtype = Dtype::float64;      // the precision of the values it returns
  Compute compute;                   // finer precision per stage (v2), each defaulting to dtype
  Layout layout = Layout::unspecified;  // v1's top-level layout: the default of encode and rotate
  double amplitude = 1.0;            // encoders: p_t = amplitude · reference
  EncodeConvention encode;           // params.encode (v2); encode.layout wins over layout
  RotateConvention rotate;           // params.rotate (v2); rotate.layout wins over layout
  AttentionConvention attention;     // params.attention (turn of 2026-11-26): heads, window, cap, sinks, …
  std::optional<BiasConvention> bias;        // params.bias (v2)
  std::optional<ForwardConvention> forward;  // params.forward (v2)
  unsigned backward_of = 0;          // params.backward.of: the ops (bitwise or of Op) whose VJPs it answers
  bool batch = false;                // accepts `batch` requests (v2)
  bool b64le = false;                // accepts b64le arrays (v2)
  std::vector<std::string> declared; // the v2 fields it declared, e.g. "params.rotate.base", for reports
  bool multi_head = false;           // attention: accepts heads > 1
  DeclaredShapes shapes;             // params.<op>.shapes: the sizes it supports (none: any)
  // params.rotate.context_shift or params.forward.context_shift: rotate
  // requests may carry "shift": Δ (keys rotated at p re-rotated to p + Δ,
  // llama.cpp's context shift; module.context_shift).
  bool context_shift = false;
  std::string scheme;                // whose expected verdicts apply: a built-in name or a profile
  bool supports(Op op) const { return (ops & static_cast<unsigned>(op)) != 0; }
  // The precision of each stage: what compute declares, else dtype.
  Dtype angles_dtype() const { return compute.angles.value_or(dtype); }
  Dtype accumulate_dtype() const { return compute.accumulate.value_or(dtype); }
  // The layout of each op's pairs: params.<op>.layout, else the top-level one.
  Layout encode_layout() const { return encode.layout != Layout::unspecified ? encode.layout : layout; }
  Layout rotate_layout() const { return rotate.layout != Layout::unspecified ? rotate.layout : layout; }
};

// A batch of sequences for `forward`: B matrices of N×d (one per sequence).
using Batch = std::vector<Matrix>;

struct AttentionMask {
  enum class Kind { none, causal, boolean };
  Kind kind = Kind::none;
  BoolMatrix allowed;                // Kind::boolean: true where query i may attend to key j
  static AttentionMask none() { return {}; }
  static AttentionMask causal() { return {Kind::causal, {}}; }
  static AttentionMask boolean(BoolMatrix allowed) { return {Kind::boolean, std::move(allowed)}; }
};


// The subject refuses this input (e.g. an odd dim it does not support): a fact
// about the subject, counted as a discard, never a crash.
struct Refusal : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// pecheck itself passes over this input (a window's probe longer than a case
// holds, dot products beyond the dtype's range, a reference that refuses
// it): a discard, like a refusal, but never counted as the subject's (issue
// 36: "9 refused (64%)" of probes pecheck had discarded), nor in a refusal
// streak. A Refusal, so that a diagnosis that gives up on one gives up alike.
struct HarnessDiscard : Refusal {
  using Refusal::Refusal;
};

}  // namespace pecheck
