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
  const ZygoteLink::Forked forked = link_->request_fork(conversation.path(), log.path(), reap);
  const std::string& request = forked.request;
  const long answered = forked.pid;
  const auto pid = static_cast<pid_t>(answered);
  UniqueFd pidfd;
  auto failure = [&](const std::string& what) {
    std::string status = "not a copy pecheck could use";
    if (pidfd) {
      const auto stat = process_stat(pid);
      status = !ended(pidfd.get()) ? "still running"
               : stat && stat->state == 'Z' ? describe_wait_status(stat->exit_code)
                                            : "ended";
    }
    link_->drain_log(std::chrono::milliseconds(50));  // what a copy said before it connected its own stderr
    return SubjectFailure(what, request, fmt::format(R"({{"pid":{}}})", answered), link_->log_tail(), status);
  };
  if (answered != pid || pid <= 1) {
    throw failure(fmt::format("the subject answered fork with pid {}, which no forked copy can have", answered));
  }
  pidfd = open_pidfd(pid);
  const auto stat = pidfd ? process_stat(pid) : std::nullopt;
  if (!pidfd || !stat) {
    throw failure(fmt::format("the subject answered fork with pid {}, and no process has that number: a copy must "
                              "live until its conversation ends", pid));
  }
  // Only a process forked for this request is a fresh copy: not the zygote
  // serving the conversation itself, not a copy kept from an earlier one.
  if (stat->start_ticks < requested) {
    pidfd = UniqueFd();  // not pecheck's to kill
    throw failure(fmt::format("the subject answered fork with pid {}, a process that started before the fork request "
                              "(the zygote itself, or a copy used before): not a fresh copy",
                              pid));
  }
  if (stat->parent == getpid() && parent_ != getpid()) {
    // Reparented to pecheck (a subreaper): the process that forked it is gone.
    SubjectFailure f = failure(fmt::format("the zygote ended right after answering this fork request (its copy, pid "
                                           "{}, was left to pecheck): a zygote lives while pecheck asks it for copies",
                                           pid));
    kill_process(pidfd.get());
    throw f;
  }
  if (parent_ == 0 && stat->parent != getpid()) parent_ = stat->parent;
  if (stat->parent != parent_) {
    pidfd = UniqueFd();
    throw failure(fmt::format("the forked copy (pid {}) is a child of pid {}, not of pid {} that forked the copies "
                              "before it: forked from another copy, not from the process that answered only hello",
                              pid, stat->parent, parent_ == 0 ? getpid() : parent_));
  }
  // From here on the process is this request's copy: a failure kills it.
  auto kill_and_fail = [&](const std::string& what) {
    SubjectFailure f = failure(what);
    kill_process(pidfd.get());
    return f;
  };
  const auto deadline =
      CopyClock::now() + std::chrono::duration_cast<CopyClock::duration>(std::chrono::duration<double>(
                             std::clamp(options_.timeout_seconds, 1e-3, 1e6)));
  auto connection = [&](Listener& listener, const char* what) {
    UniqueFd fd = listener.accept(deadline, pidfd.get());
    if (!fd) {
      if (ended(pidfd.get())) {
        const auto stat = process_stat(pid);
        const std::string how = stat && stat->state == 'Z' ? " (" + describe_wait_status(stat->exit_code) + ")" : "";
        throw kill_and_fail(fmt::format("the forked copy (pid {}) ended{} before connecting to its {} socket {}", pid,
                                        how, what, listener.path()));
      }
      throw kill_and_fail(fmt::format("the forked copy (pid {}) did not connect to its {} socket {} within {:g} s",
                                      pid, what, listener.path(), options_.timeout_seconds));
    }
    if (const pid_t peer = peer_process(fd.get()); peer != pid) {
      throw kill_and_fail(fmt::format("pid {} connected to the {} socket {}, not the forked copy (pid {}) the fork "
                                      "answer named", peer, what, listener.path(), pid));
    }
    return fd;
  };
  UniqueFd log_fd = connection(log, "stderr");
  UniqueFd conversation_fd = connection(conversation, "conversation");
  // A copy connects once: pecheck talks on the first connection, so one made
  // twice would leave hello unanswered there (said now, or after hello fails).
  const auto twice = fmt::format("the forked copy (pid {}) connected to its conversation socket {} twice: pecheck "
                                 "talks on the first connection only, and a copy must connect once",
                                 pid, conversation.path());
  if (conversation.pending()) throw kill_and_fail(twice);
  auto ending = std::make_shared<CopyEnding>(pid, pidfd.get());
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
