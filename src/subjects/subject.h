#pragma once
// A subject is an implementation under test. The same property code runs
// against built-in (in-process reference), plugin (C ABI) and process (JSON
// Lines protocol) subjects through this interface.
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/matrix.h"

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

// The subject broke: could not start, crashed, hung, or broke the protocol.
// The harness stops talking to it and exits with the subject-failure status.
struct SubjectFailure : std::runtime_error {
  SubjectFailure(std::string what, std::string request = {}, std::string received = {},
                 std::string stderr_tail = {}, std::string exit_status = {})
      : std::runtime_error(std::move(what)), request(std::move(request)),
        received(std::move(received)), stderr_tail(std::move(stderr_tail)),
        exit_status(std::move(exit_status)) {}
  std::string request;      // the request being answered
  std::string received;     // the bytes that came back (truncated)
  std::string stderr_tail;  // the last part of the subject's stderr
  std::string exit_status;  // "exit 1", "signal 11 (SIGSEGV)", "running"
};

class Subject {
 public:
  virtual ~Subject() = default;
  virtual const SubjectInfo& info() const = 0;

  // Row r is the encoding of positions[r] in a sequence of seq_len tokens.
  virtual Matrix encode(int dim, const Positions& positions, Position seq_len);
  // softmax(q kᵀ/√d_k + mask) v, split into `heads` heads along the feature axis.
  virtual Matrix attention(const Matrix& q, const Matrix& k, const Matrix& v,
                           const AttentionMask& mask, int heads = 1);
  // Row r is R_{positions[r]} x[r].
  virtual Matrix rotate(const Positions& positions, const Matrix& x);
  // The pre-softmax scores q kᵀ/√d_k (masked entries are -inf).
  virtual Matrix logits(const Matrix& q, const Matrix& k, const AttentionMask& mask);
  // Combining token (rows of x) and position (rows of p) embeddings.
  virtual Matrix add(const Matrix& x, const Matrix& p);
  virtual Matrix concat(const Matrix& x, const Matrix& p);
  // Row r of the result is W z_r (a linear projection applied row-wise).
  virtual Matrix project(const Matrix& w, const Matrix& z);

  // The stderr tail (process subjects), for reports; empty otherwise.
  virtual std::string log_tail() const { return {}; }
};

using SubjectPtr = std::unique_ptr<Subject>;

}  // namespace pecheck
