#include "subjects/process/channel.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <system_error>
#include <thread>

#include "pecheck/core/escape.h"
#include "subjects/process/posix_calls.h"

namespace pecheck::process {

namespace {

constexpr std::size_t kChunk = 64 * 1024;
constexpr std::chrono::milliseconds kUnsentGrace{1000};  // reading on after the peer stopped reading
constexpr std::chrono::milliseconds kExitedGrace{200};   // reading on after the peer's process ended

void set_nonblocking(int fd) {
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) throw_errno("fcntl");
}

}  // namespace

Channel::Channel(int to_peer, int from_peer, int log) : to_(to_peer), from_(from_peer), log_fd_(log) {
  try {
    set_nonblocking(to_);
    set_nonblocking(from_);
    if (log_fd_ >= 0) set_nonblocking(log_fd_);
  } catch (...) {
    close_all();
    throw;
  }
}

Channel::~Channel() { close_all(); }

void Channel::close_input() { close_fd(to_); }

void Channel::close_all() {
  close_fd(to_);
  close_fd(from_);
  close_fd(log_fd_);
}

void Channel::keep_log(const char* data, std::size_t size) {
  log_.append(data, size);
  if (log_.size() > 2 * kStderrTail) {
    const std::size_t drop = log_.size() - kStderrTail;
    log_.erase(0, drop);
    log_dropped_ += drop;
  }
}

void Channel::drain_once() {
  // Bounded per call: a peer writing its log without pause must not keep
  // pecheck from its deadline.
  char buf[kChunk];
  for (int chunk = 0; chunk < 16 && log_fd_ >= 0; ++chunk) {
    const ssize_t n = read(log_fd_, buf, sizeof buf);
    if (n > 0) {
      keep_log(buf, static_cast<std::size_t>(n));
    } else if (n == 0) {
      close_fd(log_fd_);
    } else if (errno == EINTR) {
      continue;
    } else {
      if (errno != EAGAIN && errno != EWOULDBLOCK) close_fd(log_fd_);
      return;
    }
  }
}

bool Channel::wait_for_log(std::chrono::milliseconds limit) {
  if (log_fd_ < 0) {
    std::this_thread::sleep_for(std::min(limit, std::chrono::milliseconds(2)));
    return false;
  }
  pollfd fd{log_fd_, POLLIN, 0};
  if (poll(&fd, 1, static_cast<int>(limit.count())) > 0) drain_once();
  return log_fd_ >= 0;
}

void Channel::drain_log(std::chrono::milliseconds limit) {
  const auto until = Clock::now() + limit;
  while (log_fd_ >= 0 && Clock::now() < until) {
    pollfd fd{log_fd_, POLLIN, 0};
    if (poll(&fd, 1, std::min(remaining_ms(until), 10)) <= 0) break;
    drain_once();
  }
}

std::string Channel::log_tail() const {
  const std::size_t keep = std::min(log_.size(), kStderrTail);
  std::string tail = log_.substr(log_.size() - keep);
  const std::size_t dropped = log_dropped_ + (log_.size() - keep);
  if (dropped > 0) tail = fmt::format("[... {} earlier bytes of stderr not kept]\n", dropped) + tail;
  return valid_utf8(tail);
}

void Channel::post(std::string_view request) {
  // As much as the pipe takes now; the rest goes out during the next exchange
  // (queued behind anything still waiting, and only the rest is copied).
  if (to_ >= 0 && outbox_.empty() && !request.empty()) {
    const ssize_t n = write(to_, request.data(), request.size());
    if (n > 0) request.remove_prefix(static_cast<std::size_t>(n));
  }
  outbox_.append(request);
}

// One exchange's progress: what of the outbox is written, and the graces
// begun. Once the peer stops reading its input, whatever it already wrote
// (often the reason: an error message, an early answer) is still worth
// reading, for a short while; so is what it wrote last once its process ended.
struct Channel::Progress {
  Clock::time_point deadline, until;
  std::size_t written = 0;
  bool unsent = false;
  bool exited = false;  // the peer's process ended (end_with)
  void stop_writing(std::size_t outbox) {
    unsent = true;
    written = outbox;
    until = std::min(deadline, Clock::now() + kUnsentGrace);
  }
  void on_exit() {
    exited = true;
    until = std::min(until, Clock::now() + kExitedGrace);
  }
};

Exchange Channel::exchange(std::string_view request, Clock::time_point deadline, std::size_t max_line,
                           std::string& received) {
  // Requests posted earlier go out first; a line is taken once all are written.
  outbox_.append(request);
  Progress progress{deadline, deadline};
  if (to_ < 0 && !outbox_.empty()) progress.stop_writing(outbox_.size());
  while (true) {
    if (std::optional<Exchange> end = ended(progress, max_line, received)) return *end;
    wait_and_move(progress, remaining_ms(progress.until));
  }
}

// How the exchange ends now, if it does: a line (once every request is
// written), a line too long, the output closed, or the time up.
std::optional<Exchange> Channel::ended(Progress& progress, std::size_t max_line, std::string& received) {
  if (progress.written == outbox_.size()) {
    outbox_.clear();
    progress.written = 0;
    const std::size_t nl = pending_.find('\n', scanned_);
    if (nl != std::string::npos) {
      received.assign(pending_, 0, nl);
      pending_.erase(0, nl + 1);
      scanned_ = 0;
      return Exchange::line;
    }
    scanned_ = pending_.size();
  }
  if (pending_.size() > max_line) {
    received = std::move(pending_);
    pending_.clear();
    scanned_ = 0;
    return Exchange::too_long;
  }
  if (from_ < 0) {
    received = pending_;
    return progress.unsent ? Exchange::stdin_closed : Exchange::closed;
  }
  if (remaining_ms(progress.until) == 0) {
    received = pending_;
    if (progress.exited) return Exchange::closed;
    return progress.unsent ? Exchange::stdin_closed : Exchange::timeout;
  }
  return std::nullopt;
}

// One wait (up to `wait_ms`) on the peer's output, its log, its input while
// requests remain and its process's end; then what each allows.
void Channel::wait_and_move(Progress& progress, int wait_ms) {
  pollfd fds[4];
  nfds_t count = 0;
  const int out_at = static_cast<int>(count);
  fds[count++] = {from_, POLLIN, 0};
  int log_at = -1, in_at = -1, exit_at = -1;
  if (log_fd_ >= 0) {
    log_at = static_cast<int>(count);
    fds[count++] = {log_fd_, POLLIN, 0};
  }
  if (progress.written < outbox_.size()) {
    in_at = static_cast<int>(count);
    fds[count++] = {to_, POLLOUT, 0};
  }
  if (exit_fd_ >= 0 && !progress.exited) {
    exit_at = static_cast<int>(count);
    fds[count++] = {exit_fd_, POLLIN, 0};
  }
  const int ready = poll(fds, count, wait_ms);
  if (ready < 0) {
    if (errno == EINTR) return;
    throw_errno("poll");
  }
  if (ready == 0) return;  // the deadline check in ended() ends the exchange
  if (exit_at >= 0 && fds[exit_at].revents != 0) progress.on_exit();
  if (log_at >= 0 && fds[log_at].revents != 0) drain_once();
  if (in_at >= 0 && fds[in_at].revents != 0) {
    if (fds[in_at].revents & (POLLERR | POLLHUP)) {
      progress.stop_writing(outbox_.size());
    } else {
      write_some(progress);
    }
  }
  if (fds[out_at].revents != 0) read_some();
}

void Channel::write_some(Progress& progress) {
  const ssize_t n = write(to_, outbox_.data() + progress.written, outbox_.size() - progress.written);
  if (n > 0) {
    progress.written += static_cast<std::size_t>(n);
  } else if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {  // a pipe's or a socket's reader gone
    progress.stop_writing(outbox_.size());
  } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
    throw_errno("write to the subject");
  }
}

// A bounded amount per wake-up, so that the log and the deadline stay served.
void Channel::read_some() {
  char buf[kChunk];
  const ssize_t n = read(from_, buf, sizeof buf);
  if (n > 0) {
    pending_.append(buf, static_cast<std::size_t>(n));
  } else if (n == 0) {
    close_fd(from_);
  } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
    close_fd(from_);
  }
}

}  // namespace pecheck::process
