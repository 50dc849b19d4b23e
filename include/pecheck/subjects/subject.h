#pragma once
// A subject is an implementation under test, and it answers calls (calls.h):
// that is the whole runtime boundary. Built-in, planted, plugin, process and
// C++ subjects implement it, and so does every wrapper around a subject
// (declarations, the coverage probe, the look-ahead and its recorder).
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "pecheck/core/matrix.h"
#include "pecheck/core/vocabulary.h"
#include "pecheck/protocol/calls.h"

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

  // Answers one call: its value, or Refused where the subject refuses it (an
  // op it does not offer, an input it does not take). Throws SubjectFailure
  // when the subject breaks. Implemented in C++ with typed methods through
  // TypedSubject (typed_subject.h); called with typed arguments through
  // ask::encode(subject, …) and its siblings (the same header).
  virtual Answer perform(const Call& call) = 0;
  // The batch form: every call's answer, in order, each alone (a refusal
  // refuses its own call only; a broken answer anywhere is a SubjectFailure
  // for all). By default one perform() per call; a process subject that
  // declared batch sends them in one `batch` request.
  virtual std::vector<Answer> perform_batch(std::span<const Call> calls);

  // The stderr tail (process subjects), for reports; empty otherwise.
  virtual std::string log_tail() const { return {}; }
};

// A subject whose batches can be posted and collected later (a process
// subject): the batch is sent now and answered later, so the subject works
// on it while pecheck goes on (the look-ahead). post_batch returns at once,
// collect_batch(ticket) returns what perform_batch would have. A request sent
// in between first reads the answers of the batches in flight, so nothing is
// answered out of order.
class BatchingSubject {
 public:
  virtual ~BatchingSubject() = default;
  using Ticket = std::uint64_t;
  virtual Ticket post_batch(std::span<const Call> calls) = 0;
  virtual std::vector<Answer> collect_batch(Ticket ticket) = 0;
};

// subject.perform_batch(calls), for the callers that read better so.
inline std::vector<Answer> perform_all(Subject& subject, std::span<const Call> calls) {
  return subject.perform_batch(calls);
}

// A subject around another, forwarding each call to it: a wrapper derives
// from it and overrides what it changes (the info it declares, or perform
// to watch or serve the calls).
class SubjectDecorator : public Subject {
 public:
  explicit SubjectDecorator(Subject& inner) : inner_(&inner) {}
  const SubjectInfo& info() const override { return inner_->info(); }
  Answer perform(const Call& call) override { return inner_->perform(call); }
  std::string log_tail() const override { return inner_->log_tail(); }

 protected:
  Subject& inner() const { return *inner_; }
  void set_inner(Subject& inner) { inner_ = &inner; }

 private:
  Subject* inner_;
};

using SubjectPtr = std::unique_ptr<Subject>;

}  // namespace pecheck
