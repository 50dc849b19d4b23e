#pragma once
// A subject is an implementation under test. The same property code runs
// against built-in (in-process reference), plugin (C ABI) and process (JSON
// Lines protocol) subjects through this interface.
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "pecheck/core/matrix.h"
#include "pecheck/core/vocabulary.h"

namespace pecheck {

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
  // softmax(q kᵀ/√d_k + mask) v, split into `heads` heads along the feature
  // axis: q is n×(H·d_h) with H = heads; k is m×(G·d_h) and v m×(G·d_v)
  // with G key/value heads (G = H, or fewer under grouped-query attention:
  // G = k.cols()/d_h); the answer is n×(H·d_v).
  virtual Matrix attention(const Matrix& q, const Matrix& k, const Matrix& v,
                           const AttentionMask& mask, int heads = 1);
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
  virtual Matrix rotate_layer(int layer, const Positions& positions, const Matrix& x, std::optional<Position> seq_len);
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
  // entries each. Returns B matrices N×d_out; rows at pads are not compared.
  virtual Batch forward(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding);
  // Layer `layer` of such a module alone, as forward.
  virtual Batch forward_layer(int layer, const Batch& x, const std::vector<Positions>& positions,
                              const BoolMatrix& padding);
  // Incremental decoding with the subject's own cache: appends token x at
  // `position` to `session` and returns the output row for it.
  virtual Vector decode(const std::string& session, const Vector& x, Position position);
  // Forgets `session`'s cache.
  virtual void reset(const std::string& session);

  // SUBJECT-PROTOCOL.md "Module conventions" (turn of 2026-11-26), each
  // refused unless the subject declares it:
  // forward on packed documents: segments[b][r] is the document of token r of
  // sequence b; each document has its own positions and sees only itself.
  virtual Batch forward_packed(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding,
                               const std::vector<Positions>& segments);
  // decode of k tokens in one call (rows of x, at `positions`): the k output rows.
  virtual Matrix decode_tokens(const std::string& session, const Matrix& x, const Positions& positions);
  // reset with the length of the cache to allocate.
  virtual void reset_with_capacity(const std::string& session, Position capacity);

  // The stderr tail (process subjects), for reports; empty otherwise.
  virtual std::string log_tail() const { return {}; }
};

using SubjectPtr = std::unique_ptr<Subject>;

}  // namespace pecheck
