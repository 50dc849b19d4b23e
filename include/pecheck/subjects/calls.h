#pragma once
// Op calls as values, so several can travel together: a Call is one request
// to a subject's op, an Answer what came back for it. perform_all sends a
// list of calls to a subject in one `batch` request where the subject
// declared `"batch": true` over the protocol (SUBJECT-PROTOCOL.md v2), and
// one by one otherwise; either way each call gets its own answer, and a
// refusal of one call refuses that call alone.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "pecheck/core/matrix.h"
#include "pecheck/core/vocabulary.h"
#include "pecheck/subjects/subject.h"

namespace pecheck {

struct EncodeCall {
  int dim = 0;
  Positions positions;
  Position seq_len = 0;
};
struct AttentionCall {
  Matrix q, k, v;
  AttentionMask mask;
  int heads = 1;  // query heads along the feature axis (Subject::attention)
};
struct RotateCall {
  Positions positions;
  Matrix x;
  std::optional<Position> seq_len;
  std::vector<Positions> axes;  // multi-axis positions (3 × n) instead of `positions`; empty: one axis
  std::optional<int> layer;     // the module layer whose rotation is asked for
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
                          DecodeTokensCall>;

// reset's answer: done, nothing to return.
struct Done {
  bool operator==(const Done&) const = default;
};
// The subject refused this call (Refusal's message).
struct Refused {
  std::string reason;
};
// Matrix: encode, attention, rotate, bias, decode of several tokens; Batch: forward; Vector: decode;
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

// One call on any subject. Refusal becomes Refused; SubjectFailure (the
// subject broke) propagates.
Answer perform(Subject& subject, const Call& call);

// A subject that can answer several calls in one exchange (a process subject
// that declared batch). Each answer is a value or Refused, in the order of
// `calls`; a broken answer anywhere is a SubjectFailure for all of them.
class BatchingSubject {
 public:
  virtual ~BatchingSubject() = default;
  virtual std::vector<Answer> perform_batch(std::span<const Call> calls) = 0;
  // The same batch sent now and answered later, so the subject works on it
  // while pecheck goes on: post_batch returns at once, collect_batch(ticket)
  // returns what perform_batch would have. A request sent in between first
  // reads the answers of the batches in flight, so nothing is answered out
  // of order.
  using Ticket = std::uint64_t;
  virtual Ticket post_batch(std::span<const Call> calls) = 0;
  virtual std::vector<Answer> collect_batch(Ticket ticket) = 0;
};

// Every call's answer, in order: one batch where the subject batches (it is a
// BatchingSubject and info().batch), else one perform() per call.
std::vector<Answer> perform_all(Subject& subject, std::span<const Call> calls);

}  // namespace pecheck
