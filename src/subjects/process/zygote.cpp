#include "subjects/process/zygote.h"

#include <unistd.h>

#include <fmt/format.h>

#include "subjects/process/process_stat.h"

namespace pecheck::process {

namespace {

constexpr std::size_t kPrepared = 2;                       // copies kept forked and greeted ahead
constexpr std::chrono::milliseconds kExitGrace{2000};      // a copy told to shut down has this to exit
constexpr std::chrono::milliseconds kLastExits{200};       // at the end, before the rest are killed
constexpr std::chrono::milliseconds kSweepEvery{10};

}  // namespace

Zygote::Zygote(std::unique_ptr<ZygoteLink> link, SocketFolder sockets, const SubjectOptions& options)
    : link_(std::move(link)), options_(options), sockets_(std::move(sockets)) {}

Zygote::~Zygote() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (worker_.joinable()) worker_.join();
  auto end = [this](Copy& copy) {
    if (copy.peer != nullptr) copy.peer->release_to(exits_);
    copy.subject.reset();
  };
  for (Copy& copy : ready_) end(copy);
  for (Copy& copy : closing_) end(copy);
  ready_.clear();
  closing_.clear();
  const auto until = CopyClock::now() + kLastExits;
  while (exits_->sweep() > 0 && CopyClock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  exits_->kill_all();
  link_.reset();  // shutdown, then the zygote's stop: for cmd:, its group and marked descendants
}

int Zygote::forked() const {
  std::lock_guard lock(mutex_);
  return forked_;
}

std::optional<SubjectFailure> Zygote::failure(std::chrono::milliseconds limit) const {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, limit, [this] { return broken_.has_value() || !forking_; });
  return broken_;
}

Copy Zygote::take() {
  std::unique_lock lock(mutex_);
  if (!worker_.joinable()) worker_ = std::thread([this] { work(); });
  changed_.wait(lock, [this] { return !ready_.empty() || broken_.has_value(); });
  if (ready_.empty()) throw *broken_;
  Copy copy = std::move(ready_.front());
  ready_.pop_front();
  changed_.notify_all();  // the worker prepares the next
  return copy;
}

void Zygote::give_back(Copy copy) {
  {
    std::lock_guard lock(mutex_);
    closing_.push_back(std::move(copy));
  }
  changed_.notify_all();
}

void Zygote::work() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (!closing_.empty()) {
      Copy copy = std::move(closing_.front());
      closing_.pop_front();
      lock.unlock();
      if (copy.peer != nullptr) copy.peer->release_to(exits_);
      copy.subject.reset();  // shutdown answered, then the copy exits on the watch's time
      lock.lock();
      continue;
    }
    if (!broken_ && ready_.size() < kPrepared) {
      forking_ = true;
      lock.unlock();
      std::optional<Copy> made;
      std::optional<SubjectFailure> failure;
      try {
        made = fork_one();
      } catch (const SubjectFailure& f) {
        failure = f;
      } catch (const std::exception& e) {
        failure = SubjectFailure(fmt::format("pecheck could not fork a copy of the subject: {}", e.what()));
      }
      lock.lock();
      forking_ = false;
      ++forked_;
      if (made) ready_.push_back(std::move(*made));
      else broken_ = std::move(failure);
      changed_.notify_all();
      continue;
    }
    lock.unlock();
    const bool watching = exits_->sweep() > 0;
    lock.lock();
    if (stopping_ || !closing_.empty() || (!broken_ && ready_.size() < kPrepared)) continue;
    if (watching) changed_.wait_for(lock, kSweepEvery);
    else changed_.wait(lock);
  }
}

namespace {

// The process a fork request was answered with, until it is proven this
// request's fresh copy and connected: each failure names it, its state and
// what the zygote logged; once proven, a failure kills it.
class ForkedProcess {
 public:
  ForkedProcess(ZygoteLink& link, const ZygoteLink::Forked& forked)
      : link_(link), request_(forked.request), answered_(forked.pid), pid_(static_cast<pid_t>(forked.pid)) {}

  pid_t pid() const { return pid_; }
  UniqueFd take_pidfd() { return std::move(pidfd_); }

  SubjectFailure failure(const std::string& what) const {
    std::string status = "not a copy pecheck could use";
    if (pidfd_) {
      const auto stat = process_stat(pid_);
      status = !ended(pidfd_.get()) ? "still running"
               : stat && stat->state == 'Z' ? describe_wait_status(stat->exit_code)
                                            : "ended";
    }
    link_.drain_log(std::chrono::milliseconds(50));  // what a copy said before it connected its own stderr
    return SubjectFailure(what, request_, fmt::format(R"({{"pid":{}}})", answered_), link_.log_tail(), status);
  }

  SubjectFailure kill_and_fail(const std::string& what) const {
    SubjectFailure f = failure(what);
    kill_process(pidfd_.get());
    return f;
  }

  // Only a process forked for this request, by the process that forked the
  // copies before it, is a fresh copy: not the zygote serving the
  // conversation itself, not a copy kept from an earlier one. `parent` is
  // that process, learnt from the first copy.
  void prove_fresh(unsigned long long requested, pid_t& parent) {
    if (answered_ != pid_ || pid_ <= 1) {
      throw failure(fmt::format("the subject answered fork with pid {}, which no forked copy can have", answered_));
    }
    pidfd_ = open_pidfd(pid_);
    const auto stat = pidfd_ ? process_stat(pid_) : std::nullopt;
    if (!pidfd_ || !stat) {
      throw failure(fmt::format("the subject answered fork with pid {}, and no process has that number: a copy must "
                                "live until its conversation ends", pid_));
    }
    if (stat->start_ticks < requested) {
      pidfd_ = UniqueFd();  // not pecheck's to kill
      throw failure(fmt::format("the subject answered fork with pid {}, a process that started before the fork "
                                "request (the zygote itself, or a copy used before): not a fresh copy",
                                pid_));
    }
    if (stat->parent == getpid() && parent != getpid()) {
      // Reparented to pecheck (a subreaper): the process that forked it is gone.
      throw kill_and_fail(fmt::format("the zygote ended right after answering this fork request (its copy, pid {}, "
                                      "was left to pecheck): a zygote lives while pecheck asks it for copies",
                                      pid_));
    }
    if (parent == 0 && stat->parent != getpid()) parent = stat->parent;
    if (stat->parent != parent) {
      pidfd_ = UniqueFd();
      throw failure(fmt::format("the forked copy (pid {}) is a child of pid {}, not of pid {} that forked the copies "
                                "before it: forked from another copy, not from the process that answered only hello",
                                pid_, stat->parent, parent == 0 ? getpid() : parent));
    }
  }

  // The copy's connection to `listener` (its stderr or conversation socket), by `deadline`.
  UniqueFd connection(Listener& listener, const char* what, CopyClock::time_point deadline, double timeout) const {
    UniqueFd fd = listener.accept(deadline, pidfd_.get());
    if (!fd) {
      if (ended(pidfd_.get())) {
        const auto stat = process_stat(pid_);
        const std::string how = stat && stat->state == 'Z' ? " (" + describe_wait_status(stat->exit_code) + ")" : "";
        throw kill_and_fail(fmt::format("the forked copy (pid {}) ended{} before connecting to its {} socket {}", pid_,
                                        how, what, listener.path()));
      }
      throw kill_and_fail(fmt::format("the forked copy (pid {}) did not connect to its {} socket {} within {:g} s",
                                      pid_, what, listener.path(), timeout));
    }
    if (const pid_t peer = peer_process(fd.get()); peer != pid_) {
      throw kill_and_fail(fmt::format("pid {} connected to the {} socket {}, not the forked copy (pid {}) the fork "
                                      "answer named", peer, what, listener.path(), pid_));
    }
    return fd;
  }

 private:
  ZygoteLink& link_;
  std::string request_;
  long answered_;
  pid_t pid_;
  UniqueFd pidfd_;
};

}  // namespace

Copy Zygote::fork_one() {
  int serial = 0;
  {
    std::lock_guard lock(mutex_);
    serial = forked_;
  }
  Listener log(sockets_.path(fmt::format("{}.log", serial)));
  Listener conversation(sockets_.path(fmt::format("{}.sock", serial)));
  // The zygote may reap only the copies whose ending is kept: how the others
  // end is still to be read from /proc.
  std::vector<long> reap;
  std::erase_if(unreaped_, [&reap](const std::shared_ptr<CopyEnding>& copy) {
    if (!copy->kept()) return false;
    reap.push_back(copy->pid());
    return true;
  });
  const auto requested = boot_ticks_now();
  ForkedProcess copy(*link_, link_->request_fork(conversation.path(), log.path(), reap));
  copy.prove_fresh(requested, parent_);
  // From here on the process is this request's copy: a failure kills it.
  const double timeout = options_.timeout_seconds;
  const auto deadline = CopyClock::now() + std::chrono::duration_cast<CopyClock::duration>(
                                               std::chrono::duration<double>(std::clamp(timeout, 1e-3, 1e6)));
  UniqueFd log_fd = copy.connection(log, "stderr", deadline, timeout);
  UniqueFd conversation_fd = copy.connection(conversation, "conversation", deadline, timeout);
  // A copy connects once: pecheck talks on the first connection, so one made
  // twice would leave hello unanswered there (said now, or after hello fails).
  const auto twice = fmt::format("the forked copy (pid {}) connected to its conversation socket {} twice: pecheck "
                                 "talks on the first connection only, and a copy must connect once",
                                 copy.pid(), conversation.path());
  if (conversation.pending()) throw copy.kill_and_fail(twice);
  UniqueFd pidfd = copy.take_pidfd();
  auto ending = std::make_shared<CopyEnding>(copy.pid(), pidfd.get());
  unreaped_.push_back(ending);
  auto peer = std::make_unique<CopyPeer>(std::move(conversation_fd), std::move(log_fd), std::move(pidfd),
                                         std::move(ending));
  CopyPeer* raw = peer.get();
  try {
    return {make_copy_subject(std::move(peer), link_->info(), link_->hello(), options_), raw};
  } catch (const SubjectFailure& f) {
    if (!conversation.pending()) throw;
    throw SubjectFailure(fmt::format("{} ({})", twice, f.what()), f.request, f.received, f.stderr_tail, f.exit_status);
  }
}

}  // namespace pecheck::process
