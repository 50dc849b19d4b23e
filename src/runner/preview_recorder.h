#pragma once
// The subject a case is previewed against (runner/lookahead.h): it answers a
// case's requests from the answers already obtained for them, in order, and
// stops the measurement at the first request that has none yet (thrown as
// Pending), so the look-ahead learns the case's next request with the real
// answers to the earlier ones in hand.
#include <utility>
#include <vector>

#include "pecheck/protocol/calls.h"
#include "pecheck/subjects/subject.h"
#include "runner/request_key.h"

namespace pecheck {

// A case's requests so far, each with its answer.
using Answered = std::vector<std::pair<AskedPtr, Answer>>;

class PreviewRecorder final : public Subject {
 public:
  PreviewRecorder(const SubjectInfo& info, const Answered& answered) : info_(info), answered_(answered) {}
  const SubjectInfo& info() const override { return info_; }

  // Thrown at the first request without an answer yet: `call` is it.
  struct Pending {
    Call call;
    std::size_t hash;  // hash_of(call)
  };
  // Thrown when the case would decode or reset: its requests depend on history.
  struct Stateful {};

  // A request the subject would refuse unasked (an op it does not declare,
  // several heads over the protocol) is refused here as it would be there.
  Answer perform(const Call& call) override;

 private:
  const SubjectInfo& info_;
  const Answered& answered_;
  std::size_t next_ = 0;
};

}  // namespace pecheck
