#pragma once
// Typed calls on top of the one boundary (Subject::perform), both ways:
//
// - TypedSubject, for whoever implements a subject in C++ (the built-ins,
//   the planted bugs, the plugin loader, a user's class): override the typed
//   methods of the ops you offer; perform() dispatches each Call to them,
//   and a Refusal thrown becomes the Refused answer. An op not overridden is
//   refused.
// - ask::encode(subject, …) and its siblings, for whoever calls a subject
//   (the properties, the probes, tests): builds the Call, performs it and
//   returns the value, throwing Refusal for a refused call.
#include <optional>
#include <string>
#include <vector>

#include "pecheck/subjects/subject.h"

namespace pecheck {

class TypedSubject : public Subject {
 public:
  Answer perform(const Call& call) final;

  // Row r is the encoding of positions[r] in a sequence of seq_len tokens.
  virtual Matrix encode(int dim, const Positions& positions, Position seq_len);
  // softmax(q kᵀ/√d_k + mask) v, split into `heads` heads along the feature
  // axis: q is n×(H·d_h) with H = heads; k is m×(G·d_h) and v m×(G·d_v)
  // with G key/value heads (G = H, or fewer under grouped-query attention:
  // G = k.cols()/d_h); the answer is n×(H·d_v).
  virtual Matrix attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask,
                           int heads = 1);
  // Row r is R_{positions[r]} x[r]. `seq_len`, when given, is the length of
  // the sequence the positions belong to (dynamic scalings depend on it).
  virtual Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len);
  // Multi-axis positions (params.rotate.mrope_section): positions[a][r] is
  // row r's position on axis a (t, h, w); pair i of row r turns by its axis's
  // position. A subject that declares mrope answers only these.
  virtual Matrix rotate_axes(const std::vector<Positions>& positions, const Matrix& x,
                             std::optional<Position> seq_len);
  // The rotation layer `layer` (0-based) of a module applies to its queries
  // and keys, for a subject that declares params.forward.layers.
  virtual Matrix rotate_layer(int layer, const Positions& positions, const Matrix& x,
                              std::optional<Position> seq_len);
  // A context shift, for a subject that declares context_shift: x are keys
  // already rotated at `positions` (by layer `layer`'s rotary, when given);
  // row r of the answer is the same key rotated at positions[r] + shift.
  virtual Matrix rotate_shift(std::optional<int> layer, const Positions& positions, const Matrix& x, Position shift,
                              std::optional<Position> seq_len);
  // The pre-softmax scores q kᵀ/√d_k (masked entries are -inf).
  virtual Matrix logits(const Matrix& q, const Matrix& k, const AttentionMask& mask);
  // Combining token (rows of x) and position (rows of p) embeddings.
  virtual Matrix add(const Matrix& x, const Matrix& p);
  virtual Matrix concat(const Matrix& x, const Matrix& p);
  // Row r of the result is W z_r (a linear projection applied row-wise).
  virtual Matrix project(const Matrix& w, const Matrix& z);
  // The n×m additive logit bias of one head (0-based): ALiBi, T5 buckets.
  virtual Matrix bias(int n, int m, int head);
  // A whole module on a batch of sequences with the subject's own weights:
  // x[b] is N×d; positions[b] and padding row b (true: a real token) have N
  // entries each (the defaults written out: calls.h with_defaults). Returns B
  // matrices N×d_out; rows at pads are not compared.
  virtual Batch forward(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding);
  // Layer `layer` of such a module alone, as forward.
  virtual Batch forward_layer(int layer, const Batch& x, const std::vector<Positions>& positions,
                              const BoolMatrix& padding);
  // Incremental decoding with the subject's own cache: appends token x at
  // `position` to `session` and returns the output row for it.
  virtual Vector decode(const std::string& session, const Vector& x, Position position);
  // Forgets `session`'s cache.
  virtual void reset(const std::string& session);
  // SUBJECT-PROTOCOL.md "Module conventions", each refused unless the subject
  // declares it: forward on packed documents (segments[b][r] is the document
  // of token r of sequence b; each document has its own positions and sees
  // only itself); decode of k tokens in one call (rows of x, at `positions`);
  // reset with the length of the cache to allocate.
  virtual Batch forward_packed(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding,
                               const std::vector<Positions>& segments);
  virtual Matrix decode_tokens(const std::string& session, const Matrix& x, const Positions& positions);
  virtual void reset_with_capacity(const std::string& session, Position capacity);
  // The vector–Jacobian products (SUBJECT-PROTOCOL.md "Gradients"), each
  // refused unless the subject declares params.backward.of: of rotate (the
  // call's x at its positions) for the upstream gradient `grad` (n×d), {dx};
  // of attention (as attention() above) for grad n×(H·d_v), {dq, dk, dv}.
  virtual Batch rotate_backward(const RotateCall& call, const Matrix& grad);
  virtual Batch attention_backward(const AttentionCall& call, const Matrix& grad);
  // Of forward (as forward() above, on the call's x, positions and padding)
  // for the upstream gradient of each sequence's output (B matrices N×d_out):
  // dx of each sequence (B matrices N×d).
  virtual Batch forward_backward(const ForwardCall& call, const Batch& grad);
};

// Typed calls on any subject: each builds its Call, performs it and returns
// the value; throws Refusal when the subject refuses, SubjectFailure when it
// breaks. Arguments are taken by value and moved into the call.
namespace ask {
Matrix encode(Subject& subject, int dim, Positions positions, Position seq_len);
Matrix attention(Subject& subject, Matrix q, Matrix k, Matrix v, AttentionMask mask, int heads = 1);
Matrix rotate(Subject& subject, Positions positions, Matrix x, std::optional<Position> seq_len);
Matrix rotate_axes(Subject& subject, std::vector<Positions> positions, Matrix x, std::optional<Position> seq_len);
Matrix rotate_layer(Subject& subject, int layer, Positions positions, Matrix x, std::optional<Position> seq_len);
Matrix rotate_shift(Subject& subject, std::optional<int> layer, Positions positions, Matrix x, Position shift,
                    std::optional<Position> seq_len = std::nullopt);
Matrix logits(Subject& subject, Matrix q, Matrix k, AttentionMask mask);
Matrix add(Subject& subject, Matrix x, Matrix p);
Matrix concat(Subject& subject, Matrix x, Matrix p);
Matrix project(Subject& subject, Matrix w, Matrix z);
Matrix bias(Subject& subject, int n, int m, int head);
Batch forward(Subject& subject, Batch x, std::vector<Positions> positions = {}, BoolMatrix padding = {});
Batch forward_layer(Subject& subject, int layer, Batch x, std::vector<Positions> positions = {},
                    BoolMatrix padding = {});
Batch forward_packed(Subject& subject, Batch x, std::vector<Positions> positions, BoolMatrix padding,
                     std::vector<Positions> segments);
Vector decode(Subject& subject, std::string session, Vector x, Position position);
Matrix decode_tokens(Subject& subject, std::string session, Matrix x, Positions positions);
void reset(Subject& subject, std::string session);
void reset_with_capacity(Subject& subject, std::string session, Position capacity);
// {dx} and {dq, dk, dv}: backward_inputs' order (calls.h).
Batch rotate_backward(Subject& subject, RotateCall call, Matrix grad);
Batch attention_backward(Subject& subject, AttentionCall call, Matrix grad);
// dx of each sequence of a forward for the upstream gradient of each sequence's output.
Batch forward_backward(Subject& subject, ForwardCall call, const Batch& grad);
// The value of an answer: Refused is thrown as Refusal.
template <class T>
T value(Answer answer) {
  if (auto* refused = std::get_if<Refused>(&answer)) throw Refusal(std::move(refused->reason));
  return std::get<T>(std::move(answer));
}
}  // namespace ask

}  // namespace pecheck
