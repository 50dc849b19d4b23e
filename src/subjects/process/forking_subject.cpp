#include "subjects/process/forking_subject.h"

#include <fmt/format.h>

#include <chrono>

#include "pecheck/protocol/calls.h"
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

  // An op the subject does not declare is refused without taking a copy.
  Answer perform(const Call& call) override {
    if (!info().supports(op_of(call))) {
      return Refused{fmt::format("{} does not implement {}", info().name, name(op_of(call)))};
    }
    return blaming_the_zygote([&] { return copy().perform(call); });
  }

  std::vector<Answer> perform_batch(std::span<const Call> calls) override {
    return blaming_the_zygote([&] { return copy().perform_batch(calls); });
  }
  Ticket post_batch(std::span<const Call> calls) override {
    return blaming_the_zygote([&] { return batching().post_batch(calls); });
  }
  std::vector<Answer> collect_batch(Ticket ticket) override {
    return blaming_the_zygote([&] { return batching().collect_batch(ticket); });
  }

  std::string log_tail() const override { return copy_.subject ? copy_.subject->log_tail() : std::string(); }

  SubjectPtr fresh_copy() override { return std::make_unique<ForkingSubject>(zygote_); }

 private:
  // The copy this subject talks to, taken at the first request.
  Subject& copy() {
    if (!copy_.subject) copy_ = zygote_->take();
    return *copy_.subject;
  }
  // A copy lives in its zygote's process group and dies when the zygote
  // fails (on the worker's thread, preparing the next copy): the copy's
  // "ended before answering" is then a consequence, and the report leads
  // with the zygote's own failure.
  template <class Ask>
  auto blaming_the_zygote(Ask ask) -> decltype(ask()) {
    try {
      return ask();
    } catch (const SubjectFailure& copy_failure) {
      constexpr std::chrono::milliseconds kForkInProgress{2000};
      const auto zygote = zygote_->failure(kForkInProgress);
      if (!zygote || std::string_view(zygote->what()) == copy_failure.what()) throw;
      SubjectFailure cause = *zygote;
      static_cast<std::runtime_error&>(cause) = std::runtime_error(
          fmt::format("{} (the copy in use then failed too: {})", zygote->what(), copy_failure.what()));
      throw cause;
    }
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
