#pragma once
// Op calls as values: a Call is one request to a subject's op, an Answer
// what came back for it. They are the whole runtime boundary: a subject
// answers calls (Subject::perform, subject.h) and nothing else. Adding an op
// is its Call here, its Answer's alternative, its wire codec
// (src/subjects/process/requests.cpp, responses.cpp), a reference, its
// claims, and its row in the op table (op_name/op_of below, core/op_profiles.h).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "pecheck/core/matrix.h"
#include "pecheck/core/vocabulary.h"

namespace pecheck {

struct EncodeCall {
  int dim = 0;
  Positions positions;
  Position seq_len = 0;
};
struct AttentionCall {
  Matrix q, k, v;
  AttentionMask mask;
  int heads = 1;  // query heads along the feature axis (TypedSubject::attention)
};
struct RotateCall {
  Positions positions;
  Matrix x;
  std::optional<Position> seq_len;
  std::vector<Positions> axes;  // multi-axis positions (3 × n) instead of `positions`; empty: one axis
  std::optional<int> layer;     // the module layer whose rotation is asked for
};
// The pre-softmax scores q kᵀ/√d_k (masked entries are -inf).
struct LogitsCall {
  Matrix q, k;
  AttentionMask mask;
};
// Combining token (rows of a) and position (rows of b) embeddings: a + b,
// [a | b], or the row-wise projection b_r ↦ a b_r (a is W).
struct CombineCall {
  enum class How { add, concat, project };
  How how = How::add;
  Matrix a, b;
};
struct BiasCall {
  int n = 0, m = 0, head = 0;
};
struct ForwardCall {
  Batch x;
  std::vector<Positions> positions;  // empty: 0..N−1 in every row
  BoolMatrix padding;                // 0×0: every token real
  std::optional<int> layer;          // one layer of the module alone
  std::vector<Positions> segments;   // empty: not packed; else B×N document ids
};
struct DecodeCall {
  std::string session;
  Vector x;
  Position position = 0;
};
// k tokens decoded in one call: the answer is k rows.
struct DecodeTokensCall {
  std::string session;
  Matrix x;  // k×d
  Positions positions;
};
struct ResetCall {
  std::string session;
  std::optional<Position> capacity;  // the cache length to allocate (declared cache_capacity)
};
using Call = std::variant<EncodeCall, AttentionCall, RotateCall, BiasCall, ForwardCall, DecodeCall, ResetCall,
                          DecodeTokensCall, LogitsCall, CombineCall>;

// reset's answer: done, nothing to return.
struct Done {
  bool operator==(const Done&) const = default;
};
// The subject refused this call (Refusal's message).
struct Refused {
  std::string reason;
};
// Matrix: encode, attention, rotate, logits, combine, bias, decode of several tokens; Batch: forward; Vector: decode;
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

// The op a call asks for ("encode", …, "reset") and the capability it needs.
std::string_view op_name(const Call& call);
Op op_of(const Call& call);

}  // namespace pecheck
