#pragma once
// Op calls as values: a Call is one request to a subject's op, an Answer
// what came back for it. They are the whole runtime boundary: a subject
// answers calls (Subject::perform, subject.h) and nothing else. Every call
// says, besides its arguments:
//   kName     its op on the wire ("forward"; reset's is "reset")
//   kOp       the capability it needs (its row in the op table, core/op_table.h)
//   fields()  every argument, which requests are the same by (runner/request_key.h)
//   codec()   its codec, in src/protocol/<op>_codec.cpp (codec.h: wire form,
//             checks, answer shape, report form, words, reach)
// Adding an op is its Call here, its Answer's alternative, its codec, a
// reference, its claims, and its row in the op table.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <variant>
#include <vector>

#include "pecheck/core/axis.h"
#include "pecheck/core/json.h"
#include "pecheck/core/matrix.h"
#include "pecheck/core/vocabulary.h"

namespace pecheck {

// Each call's codec (src/protocol/codec.h): its wire form, checks,
// answer shape, report form, words and reach, in one file per op.
template <class C>
struct Codec;

struct EncodeCall {
  int dim = 0;
  Positions positions;
  Position seq_len = 0;
  static constexpr std::string_view kName = "encode";
  static constexpr Op kOp = Op::encode;
  auto fields() const { return std::tie(dim, positions, seq_len); }
  static const Codec<EncodeCall>& codec();
};
struct AttentionCall {
  Matrix q, k, v;
  AttentionMask mask;
  int heads = 1;  // query heads along the feature axis (TypedSubject::attention)
  static constexpr std::string_view kName = "attention";
  static constexpr Op kOp = Op::attention;
  auto fields() const { return std::tie(q, k, v, mask, heads); }
  static const Codec<AttentionCall>& codec();
};
struct RotateCall {
  Positions positions;
  Matrix x;
  std::optional<Position> seq_len;
  std::vector<Positions> axes;  // multi-axis positions (3 × n) instead of `positions`; empty: one axis
  std::optional<int> layer;     // the module layer whose rotation is asked for
  // A context shift (params.<op>.context_shift): x are keys already rotated at
  // `positions`, to be answered as the same keys rotated at positions + shift.
  std::optional<Position> shift;
  static constexpr std::string_view kName = "rotate";
  static constexpr Op kOp = Op::rotate;
  auto fields() const { return std::tie(positions, x, seq_len, axes, layer, shift); }
  static const Codec<RotateCall>& codec();
};
// The pre-softmax scores q kᵀ/√d_k (masked entries are -inf).
struct LogitsCall {
  Matrix q, k;
  AttentionMask mask;
  static constexpr std::string_view kName = "logits";
  static constexpr Op kOp = Op::logits;
  auto fields() const { return std::tie(q, k, mask); }
  static const Codec<LogitsCall>& codec();
};
// Combining token (rows of a) and position (rows of b) embeddings: a + b,
// [a | b], or the row-wise projection b_r ↦ a b_r (a is W).
struct CombineCall {
  enum class How { add, concat, project };
  How how = How::add;
  Matrix a, b;
  static constexpr std::string_view kName = "combine";
  static constexpr Op kOp = Op::combine;
  auto fields() const { return std::tie(how, a, b); }
  static const Codec<CombineCall>& codec();
};
struct BiasCall {
  int n = 0, m = 0, head = 0;
  static constexpr std::string_view kName = "bias";
  static constexpr Op kOp = Op::bias;
  auto fields() const { return std::tie(n, m, head); }
  static const Codec<BiasCall>& codec();
};
struct ForwardCall {
  Batch x;
  std::vector<Positions> positions;  // empty: 0..N−1 in every row
  BoolMatrix padding;                // 0×0: every token real
  std::optional<int> layer;          // one layer of the module alone
  std::vector<Positions> segments;   // empty: not packed; else B×N document ids
  static constexpr std::string_view kName = "forward";
  static constexpr Op kOp = Op::forward;
  auto fields() const { return std::tie(x, positions, padding, layer, segments); }
  static const Codec<ForwardCall>& codec();
};
struct DecodeCall {
  std::string session;
  Vector x;
  Position position = 0;
  static constexpr std::string_view kName = "decode";
  static constexpr Op kOp = Op::decode;
  auto fields() const { return std::tie(session, x, position); }
  static const Codec<DecodeCall>& codec();
};
// k tokens decoded in one call: the answer is k rows.
struct DecodeTokensCall {
  std::string session;
  Matrix x;  // k×d
  Positions positions;
  static constexpr std::string_view kName = "decode";
  static constexpr Op kOp = Op::decode;
  auto fields() const { return std::tie(session, x, positions); }
  static const Codec<DecodeTokensCall>& codec();
};
struct ResetCall {
  std::string session;
  std::optional<Position> capacity;  // the cache length to allocate (declared cache_capacity)
  static constexpr std::string_view kName = "reset";
  static constexpr Op kOp = Op::decode;
  auto fields() const { return std::tie(session, capacity); }
  static const Codec<ResetCall>& codec();
};
// The vector–Jacobian products of `of` at its request's inputs for the
// upstream gradient `grad` (the shape of of's answer), SUBJECT-PROTOCOL.md
// "Gradients": answered as a Batch, one matrix per array input of `of` in
// its request's order (backward_inputs): rotate → {x}; attention → {q, k, v};
// forward → {x}, the B sequences' dx packed side by side (N × B·d, as
// heads_to_columns packs a B × N × d tensor); grad of a forward is packed
// alike (N × B·d_out): the wire carries both as B × N × width tensors.
struct BackwardCall {
  std::variant<RotateCall, AttentionCall, ForwardCall> of;
  Matrix grad;
  static constexpr std::string_view kName = "backward";
  static constexpr Op kOp = Op::backward;
  auto fields() const { return std::tie(of, grad); }
  static const Codec<BackwardCall>& codec();
  // The op whose gradient is asked (Op::rotate or Op::attention).
  Op of_op() const;
};
// The names of the inputs a backward of `of` answers, in the Batch's order.
std::vector<std::string_view> backward_inputs(Op of);

using Call = std::variant<EncodeCall, AttentionCall, RotateCall, BiasCall, ForwardCall, DecodeCall, ResetCall,
                          DecodeTokensCall, LogitsCall, CombineCall, BackwardCall>;

// reset's answer: done, nothing to return.
struct Done {
  bool operator==(const Done&) const = default;
};
// The subject refused this call (Refusal's message).
struct Refused {
  std::string reason;
};
// Matrix: encode, attention, rotate, logits, combine, bias, decode of several tokens; Batch: forward, backward
// (the VJPs in backward_inputs' order); Vector: decode;
// Done: reset; Refused: any.
using Answer = std::variant<Matrix, Batch, Vector, Done, Refused>;

// The call with its defaults written out: positions 0..N−1 per row, every
// token real (what a subject's forward() receives).
ForwardCall with_defaults(ForwardCall call);

// Multi-head attention as the protocol carries it (SUBJECT-PROTOCOL.md,
// "Attention conventions"): a heads × rows × width tensor, head h being
// columns [h·width, (h+1)·width) of the packed rows × (heads·width) matrix
// the Subject interface speaks.
Batch columns_to_heads(const Matrix& packed, int heads);
Matrix heads_to_columns(const Batch& heads);

// What one call reaches (the coverage probe, runner/coverage_probe.h): its
// op, its largest position, its size on each axis and its sequence length
// (an encode's or a rotate's declared n). `decoded`: the tokens its decode
// session held before it.
struct CallReach {
  Op op = Op::encode;
  std::optional<Position> position;
  AxisSizes sizes{};
  std::optional<Position> length;
};
CallReach reach_of(const Call& call, std::int64_t decoded);

// A request as reports and history scripts hold it (the protocol's form, no
// id: {"op":"rotate","positions":[…],"x":[[…]]}, defaults left out), read
// back (std::invalid_argument naming the field, for an unknown op too), and
// in words ("rotate of 2 rows at positions 0, 300 (seq_len 301)").
json call_to_json(const Call& call);
Call call_from_json(const json& request);
std::string describe_call(const Call& call);

// The op a call asks for ("encode", …, "reset") and the capability it needs.
std::string_view op_name(const Call& call);
Op op_of(const Call& call);

}  // namespace pecheck
