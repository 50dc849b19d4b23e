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

Exchange Channel::exchange(std::string_view request, Clock::time_point deadline, std::size_t max_line,
                           std::string& received) {
  // Requests posted earlier go out first; a line is taken once all are written.
  outbox_.append(request);
  std::size_t written = 0;
  // Once the peer stops reading its input, whatever it already wrote (often
  // the reason: an error message, an early answer) is still worth reading,
  // for a short while.
  bool unsent = false;
  Clock::time_point until = deadline;
  auto stop_writing = [&] {
    unsent = true;
    written = outbox_.size();
    until = std::min(deadline, Clock::now() + kUnsentGrace);
  };
  if (to_ < 0 && !outbox_.empty()) stop_writing();
  bool exited = false;  // the peer's process ended (end_with): what it wrote last is read for a short while
  auto on_exit = [&] {
    exited = true;
    until = std::min(until, Clock::now() + kExitedGrace);
  };
  char buf[kChunk];
  while (true) {
    if (written == outbox_.size()) {
      outbox_.clear();
      written = 0;
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
      return unsent ? Exchange::stdin_closed : Exchange::closed;
    }
    const int wait_ms = remaining_ms(until);
    if (wait_ms == 0) {
      received = pending_;
      if (exited) return Exchange::closed;
      return unsent ? Exchange::stdin_closed : Exchange::timeout;
    }

    pollfd fds[4];
    nfds_t count = 0;
    const int out_at = static_cast<int>(count);
    fds[count++] = {from_, POLLIN, 0};
    int log_at = -1, in_at = -1;
    if (log_fd_ >= 0) {
      log_at = static_cast<int>(count);
      fds[count++] = {log_fd_, POLLIN, 0};
    }
    if (written < outbox_.size()) {
      in_at = static_cast<int>(count);
      fds[count++] = {to_, POLLOUT, 0};
    }
    int exit_at = -1;
    if (exit_fd_ >= 0 && !exited) {
      exit_at = static_cast<int>(count);
      fds[count++] = {exit_fd_, POLLIN, 0};
    }
    const int ready = poll(fds, count, wait_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      throw_errno("poll");
    }
    if (ready == 0) continue;  // the deadline check above ends the loop

    if (exit_at >= 0 && fds[exit_at].revents != 0) on_exit();
    if (log_at >= 0 && fds[log_at].revents != 0) drain_once();
    if (in_at >= 0 && fds[in_at].revents != 0) {
      if (fds[in_at].revents & (POLLERR | POLLHUP)) {
        stop_writing();
      } else {
        const ssize_t n = write(to_, outbox_.data() + written, outbox_.size() - written);
        if (n > 0) {
          written += static_cast<std::size_t>(n);
        } else if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {  // a pipe's or a socket's reader gone
          stop_writing();
        } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
          throw_errno("write to the subject");
        }
      }
    }
    if (fds[out_at].revents != 0) {
      // Read a bounded amount per wake-up so the log and the deadline stay served.
      const ssize_t n = read(from_, buf, sizeof buf);
      if (n > 0) {
        pending_.append(buf, static_cast<std::size_t>(n));
      } else if (n == 0) {
        close_fd(from_);
      } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        close_fd(from_);
      }
    }
  }
}

}  // namespace pecheck::process
