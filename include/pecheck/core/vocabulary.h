#pragma once
// The vocabulary every layer speaks about subjects: the ops a subject offers,
// the layout of its (sin, cos) pairs, attention masks, and what a subject
// says about itself. Plain data, no behaviour.
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "pecheck/core/dtype.h"
#include "pecheck/core/matrix.h"

namespace pecheck {

// What a subject can do. `encode`, `attention` and `rotate` are the protocol's
// ops; `logits` and `combine` are in-process extensions used by the built-ins.
enum class Op : unsigned {
  encode = 1u << 0,
  attention = 1u << 1,
  rotate = 1u << 2,
  logits = 1u << 3,
  combine = 1u << 4,
};
std::string_view name(Op op);
std::optional<Op> parse_op(std::string_view text);

enum class Layout { unspecified, interleaved, halves };
std::string_view name(Layout layout);
std::optional<Layout> parse_layout(std::string_view text);

struct SubjectInfo {
  std::string name;                  // as the subject calls itself
  std::string spec;                  // how it was named: builtin:sinusoidal, cmd:..., plugin:...
  unsigned ops = 0;                  // bitwise or of Op
  Dtype dtype = Dtype::float64;
  Layout layout = Layout::unspecified;
  double amplitude = 1.0;            // encoders: p_t = amplitude · reference
  bool multi_head = false;           // attention: accepts heads > 1
  std::string scheme;                // whose expected verdicts apply: a built-in name or a profile
  bool supports(Op op) const { return (ops & static_cast<unsigned>(op)) != 0; }
};

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

}  // namespace pecheck
