#include "subjects/process/copy_peer.h"

#include <fcntl.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

#include "subjects/process/process_stat.h"

namespace pecheck::process {

void ExitWatch::add(UniqueFd pidfd, CopyClock::time_point deadline) {
  if (!pidfd || ended(pidfd.get())) return;
  std::lock_guard lock(mutex_);
  exiting_.push_back({std::move(pidfd), deadline});
}

std::size_t ExitWatch::sweep() {
  std::lock_guard lock(mutex_);
  const auto now = CopyClock::now();
  std::erase_if(exiting_, [now](Exiting& e) {
    if (ended(e.pidfd.get())) return true;
    if (now < e.deadline) return false;
    kill_process(e.pidfd.get());
    return true;
  });
  return exiting_.size();
}

void ExitWatch::kill_all() {
  std::lock_guard lock(mutex_);
  for (Exiting& e : exiting_) {
    if (!ended(e.pidfd.get())) kill_process(e.pidfd.get());
  }
  exiting_.clear();
}

CopyEnding::CopyEnding(pid_t pid, int pidfd) : pid_(pid), pidfd_(fcntl(pidfd, F_DUPFD_CLOEXEC, 3)) {
  if (!pidfd_) throw std::system_error(errno, std::generic_category(), "fcntl");
}

std::string CopyEnding::status() {
  std::lock_guard lock(mutex_);
  if (!how_.empty()) return how_;
  if (!ended(pidfd_.get())) return "still running";
  // Ended: until pecheck lists it in a fork request's reap, its parent (the
  // zygote) leaves it a zombie, and /proc says how it ended.
  const auto stat = process_stat(pid_);
  how_ = stat && stat->state == 'Z' ? describe_wait_status(stat->exit_code) : "ended";
  pidfd_ = UniqueFd();
  return how_;
}

CopyPeer::CopyPeer(UniqueFd conversation, UniqueFd log, UniqueFd pidfd, std::shared_ptr<CopyEnding> ending)
    : pidfd_(std::move(pidfd)), ending_(std::move(ending)), socket_(conversation.get()) {
  // The channel owns two descriptors of the one conversation socket: it
  // closes its writing side alone.
  const int write_side = fcntl(conversation.get(), F_DUPFD_CLOEXEC, 3);
  if (write_side < 0) throw std::system_error(errno, std::generic_category(), "fcntl");
  channel_ = std::make_unique<Channel>(write_side, conversation.release(), log.release());
}

CopyPeer::~CopyPeer() {
  try {
    stop(std::chrono::milliseconds(0));
  } catch (...) {
    // stop() only uses system calls.
  }
}

Exchange CopyPeer::exchange(std::string_view request, Clock::time_point deadline, std::size_t max_line,
                            std::string& received) {
  return channel_->exchange(request, deadline, max_line, received);
}

void CopyPeer::post(std::string_view request) { channel_->post(request); }

std::string CopyPeer::stop(std::chrono::milliseconds grace) {
  if (stopped_) return final_status_;
  stopped_ = true;
  // End of input for the copy, which then exits (the socket's other
  // descriptor stays open in the channel until close_all).
  shutdown(socket_, SHUT_WR);
  channel_->close_input();
  if (watch_) {
    // A conversation that ended normally: the copy exits on its own time.
    channel_->close_all();
    watch_->add(std::move(pidfd_), CopyClock::now() + grace);
    final_status_ = "released";
    return final_status_;
  }
  const auto deadline = Clock::now() + grace;
  while (!ended(pidfd_.get()) && Clock::now() < deadline) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    channel_->wait_for_log(std::min(left, std::chrono::milliseconds(5)));
  }
  final_status_ = ending_->status();
  if (final_status_ == "still running") kill_process(pidfd_.get());
  channel_->drain_log(std::chrono::milliseconds(50));
  channel_->close_all();
  return final_status_;
}

}  // namespace pecheck::process
