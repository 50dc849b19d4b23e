#include "subjects/process/forking_subject.h"

#include <fmt/format.h>

#include "pecheck/subjects/calls.h"
#include "pecheck/subjects/copies.h"

namespace pecheck::process {

namespace {

class ForkingSubject final : public Subject, public BatchingSubject, public CopyingSubject {
 public:
  explicit ForkingSubject(std::shared_ptr<Zygote> zygote) : zygote_(std::move(zygote)) {}
  ~ForkingSubject() override {
    if (copy_.subject) zygote_->give_back(std::move(copy_));
  }

  const SubjectInfo& info() const override { return zygote_->info(); }

  Matrix encode(int dim, const Positions& positions, Position seq_len) override {
    if (!info().supports(Op::encode)) return Subject::encode(dim, positions, seq_len);
    return copy().encode(dim, positions, seq_len);
  }
  Matrix attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask, int heads) override {
    if (!info().supports(Op::attention)) return Subject::attention(q, k, v, mask, heads);
    return copy().attention(q, k, v, mask, heads);
  }
  Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override {
    if (!info().supports(Op::rotate)) return Subject::rotate(positions, x, seq_len);
    return copy().rotate(positions, x, seq_len);
  }
  Matrix bias(int n, int m, int head) override {
    if (!info().supports(Op::bias)) return Subject::bias(n, m, head);
    return copy().bias(n, m, head);
  }
  Batch forward(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding) override {
    if (!info().supports(Op::forward)) return Subject::forward(x, positions, padding);
    return copy().forward(x, positions, padding);
  }
  Vector decode(const std::string& session, const Vector& x, Position position) override {
    if (!info().supports(Op::decode)) return Subject::decode(session, x, position);
    return copy().decode(session, x, position);
  }
  void reset(const std::string& session) override {
    if (!info().supports(Op::decode)) return Subject::reset(session);
    copy().reset(session);
  }
  // The conventions of issues 20 and 21 (multi-axis and per-layer rotations,
  // layers alone, packed documents, k-token decode, cache capacity): the copy
  // refuses what its declaration lacks, as the process subject does.
  Matrix rotate_axes(const std::vector<Positions>& positions, const Matrix& x,
                     std::optional<Position> seq_len) override {
    if (!info().supports(Op::rotate)) return Subject::rotate_axes(positions, x, seq_len);
    return copy().rotate_axes(positions, x, seq_len);
  }
  Matrix rotate_layer(int layer, const Positions& positions, const Matrix& x,
                      std::optional<Position> seq_len) override {
    if (!info().supports(Op::rotate)) return Subject::rotate_layer(layer, positions, x, seq_len);
    return copy().rotate_layer(layer, positions, x, seq_len);
  }
  Batch forward_layer(int layer, const Batch& x, const std::vector<Positions>& positions,
                      const BoolMatrix& padding) override {
    if (!info().supports(Op::forward)) return Subject::forward_layer(layer, x, positions, padding);
    return copy().forward_layer(layer, x, positions, padding);
  }
  Batch forward_packed(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding,
                       const std::vector<Positions>& segments) override {
    if (!info().supports(Op::forward)) return Subject::forward_packed(x, positions, padding, segments);
    return copy().forward_packed(x, positions, padding, segments);
  }
  Matrix decode_tokens(const std::string& session, const Matrix& x, const Positions& positions) override {
    if (!info().supports(Op::decode)) return Subject::decode_tokens(session, x, positions);
    return copy().decode_tokens(session, x, positions);
  }
  void reset_with_capacity(const std::string& session, Position capacity) override {
    if (!info().supports(Op::decode)) return Subject::reset_with_capacity(session, capacity);
    copy().reset_with_capacity(session, capacity);
  }

  std::vector<Answer> perform_batch(std::span<const Call> calls) override { return batching().perform_batch(calls); }
  Ticket post_batch(std::span<const Call> calls) override { return batching().post_batch(calls); }
  std::vector<Answer> collect_batch(Ticket ticket) override { return batching().collect_batch(ticket); }

  std::string log_tail() const override { return copy_.subject ? copy_.subject->log_tail() : std::string(); }

  SubjectPtr fresh_copy() override { return std::make_unique<ForkingSubject>(zygote_); }

 private:
  // The copy this subject talks to, taken at the first request.
  Subject& copy() {
    if (!copy_.subject) copy_ = zygote_->take();
    return *copy_.subject;
  }
  BatchingSubject& batching() {
    auto* batching = dynamic_cast<BatchingSubject*>(&copy());
    if (batching == nullptr) throw std::logic_error("a forked copy that takes no batches");
    return *batching;
  }

  std::shared_ptr<Zygote> zygote_;
  Copy copy_;
};

}  // namespace

SubjectPtr make_forking_subject(std::shared_ptr<Zygote> zygote) {
  return std::make_unique<ForkingSubject>(std::move(zygote));
}

}  // namespace pecheck::process
