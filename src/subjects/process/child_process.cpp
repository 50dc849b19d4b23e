#include "subjects/process/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#include "pecheck/core/escape.h"

extern char** environ;

namespace pecheck::process {

namespace {

constexpr std::size_t kChunk = 64 * 1024;
constexpr std::chrono::milliseconds kUnsentGrace{1000};  // reading on after the child stopped reading

// The process groups of the subjects alive now. Subjects run in their own
// groups, so a Ctrl-C or a CI job's SIGTERM reaches pecheck alone: before it
// dies of that signal, it kills them (a hanging subject would otherwise
// outlive it). Lock-free slots, read from the signal handler.
constexpr int kMaxGroups = 256;
std::atomic<pid_t> live_groups[kMaxGroups];

extern "C" void kill_subjects_then_die(int sig) {
  for (auto& group : live_groups) {
    const pid_t g = group.load();
    if (g > 0) kill(-g, SIGKILL);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void watch_group(pid_t group) {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction current {};
      // Leave alone a signal someone ignores or handles already.
      if (sigaction(sig, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) continue;
      struct sigaction handler {};
      handler.sa_handler = kill_subjects_then_die;
      sigemptyset(&handler.sa_mask);
      sigaction(sig, &handler, nullptr);
    }
  });
  for (auto& slot : live_groups) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, group)) return;
  }
}

void unwatch_group(pid_t group) {
  for (auto& slot : live_groups) {
    pid_t expected = group;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

[[noreturn]] void throw_errno(const std::string& what) {
  throw std::system_error(errno, std::generic_category(), what);
}

// A descriptor above 2 with close-on-exec: pipes must never land on the
// harness's own stdin/stdout/stderr numbers, or dup2 in the child would be a
// no-op that leaves close-on-exec set.
int high_cloexec(int fd) {
  if (fd > 2) return fd;
  const int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  const int saved = errno;
  close(fd);
  errno = saved;
  if (moved < 0) throw_errno("fcntl");
  return moved;
}

void set_nonblocking(int fd) {
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) throw_errno("fcntl");
}

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

std::string_view signal_name(int sig) {
  switch (sig) {
    case SIGHUP: return "SIGHUP";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGUSR1: return "SIGUSR1";
    case SIGSEGV: return "SIGSEGV";
    case SIGUSR2: return "SIGUSR2";
    case SIGPIPE: return "SIGPIPE";
    case SIGALRM: return "SIGALRM";
    case SIGTERM: return "SIGTERM";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ";
    default: return "?";
  }
}

std::string describe_signal(int sig, bool core) {
  return fmt::format("signal {} ({}){}", sig, signal_name(sig), core ? ", core dumped" : "");
}

// The shell that runs the command reports what happened to it in its own
// exit status; say what those conventional codes mean.
std::string describe_exit(int code) {
  if (code == 126) return "exit 126 (the command is not executable)";
  if (code == 127) return "exit 127 (the command was not found)";
  if (code > 128 && code < 128 + 32) {
    return fmt::format("exit {} (a shell's report of its command killed by {})", code, describe_signal(code - 128, false));
  }
  return fmt::format("exit {}", code);
}

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30));
}

// The pipes of one child, closed on every exit path of the constructor.
struct Pipe {
  int read = -1, write = -1;
  Pipe() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw_errno("pipe2");
    read = fds[0];
    write = fds[1];
    try {
      read = high_cloexec(read);
      write = high_cloexec(write);
    } catch (...) {
      close_fd(read);
      close_fd(write);
      throw;
    }
  }
  ~Pipe() {
    close_fd(read);
    close_fd(write);
  }
  int release_read() { return std::exchange(read, -1); }
  int release_write() { return std::exchange(write, -1); }
};

}  // namespace

ChildProcess::ChildProcess(const std::string& command) {
  Pipe in, out, err;

  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_adddup2(&actions, in.read, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out.write, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.write, STDERR_FILENO);
  // Its own process group (so a shell's children die with it); default signal
  // dispositions (the harness ignores SIGPIPE, the subject should not inherit
  // that) and an empty signal mask.
  sigset_t defaults, empty;
  sigemptyset(&empty);
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  std::string sh = "/bin/sh", dash_c = "-c", cmd = command;
  char* argv[] = {sh.data(), dash_c.data(), cmd.data(), nullptr};
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, "/bin/sh", &actions, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw std::system_error(rc, std::generic_category(), "posix_spawn /bin/sh");

  pid_ = pid;
  watch_group(pid);
  stdin_ = in.release_write();
  stdout_ = out.release_read();
  stderr_ = err.release_read();
  try {
    set_nonblocking(stdin_);
    set_nonblocking(stdout_);
    set_nonblocking(stderr_);
  } catch (...) {
    stop(std::chrono::milliseconds(0));
    throw;
  }
}

ChildProcess::~ChildProcess() {
  try {
    stop(std::chrono::milliseconds(0));
  } catch (...) {
    // A destructor must not throw; stop() itself only uses system calls.
  }
}

void ChildProcess::keep_stderr(const char* data, std::size_t size) {
  log_.append(data, size);
  if (log_.size() > 2 * kStderrTail) {
    const std::size_t drop = log_.size() - kStderrTail;
    log_.erase(0, drop);
    log_dropped_ += drop;
  }
}

void ChildProcess::drain_stderr() {
  // Bounded per call: a subject writing stderr without pause must not keep
  // the harness from its deadline.
  char buf[kChunk];
  for (int chunk = 0; chunk < 16 && stderr_ >= 0; ++chunk) {
    const ssize_t n = read(stderr_, buf, sizeof buf);
    if (n > 0) {
      keep_stderr(buf, static_cast<std::size_t>(n));
    } else if (n == 0) {
      close_fd(stderr_);
    } else if (errno == EINTR) {
      continue;
    } else {
      if (errno != EAGAIN && errno != EWOULDBLOCK) close_fd(stderr_);
      return;
    }
  }
}

std::string ChildProcess::stderr_tail() const {
  const std::size_t keep = std::min(log_.size(), kStderrTail);
  std::string tail = log_.substr(log_.size() - keep);
  const std::size_t dropped = log_dropped_ + (log_.size() - keep);
  if (dropped > 0) tail = fmt::format("[... {} earlier bytes of stderr not kept]\n", dropped) + tail;
  return valid_utf8(tail);
}

Exchange ChildProcess::exchange(std::string_view request, Clock::time_point deadline, std::size_t max_line,
                                std::string& received) {
  std::size_t written = 0;
  // Once the child stops reading its stdin, whatever it already wrote to
  // stdout (often the reason: an error message, an early answer) is still
  // worth reading, for a short while.
  bool unsent = false;
  Clock::time_point until = deadline;
  auto stop_writing = [&] {
    unsent = true;
    written = request.size();
    until = std::min(deadline, Clock::now() + kUnsentGrace);
  };
  char buf[kChunk];
  while (true) {
    if (written == request.size()) {
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
    if (stdout_ < 0) {
      received = pending_;
      return unsent ? Exchange::stdin_closed : Exchange::closed;
    }
    const int wait_ms = remaining_ms(until);
    if (wait_ms == 0) {
      received = pending_;
      return unsent ? Exchange::stdin_closed : Exchange::timeout;
    }

    pollfd fds[3];
    nfds_t count = 0;
    const int out_at = static_cast<int>(count);
    fds[count++] = {stdout_, POLLIN, 0};
    int err_at = -1, in_at = -1;
    if (stderr_ >= 0) {
      err_at = static_cast<int>(count);
      fds[count++] = {stderr_, POLLIN, 0};
    }
    if (written < request.size()) {
      in_at = static_cast<int>(count);
      fds[count++] = {stdin_, POLLOUT, 0};
    }
    const int ready = poll(fds, count, wait_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      throw_errno("poll");
    }
    if (ready == 0) continue;  // the deadline check above ends the loop

    if (err_at >= 0 && fds[err_at].revents != 0) drain_stderr();
    if (in_at >= 0 && fds[in_at].revents != 0) {
      if (fds[in_at].revents & (POLLERR | POLLHUP)) {
        stop_writing();
      } else {
        const ssize_t n = write(stdin_, request.data() + written, request.size() - written);
        if (n > 0) {
          written += static_cast<std::size_t>(n);
        } else if (n < 0 && errno == EPIPE) {
          stop_writing();
        } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
          throw_errno("write to the subject");
        }
      }
    }
    if (fds[out_at].revents != 0) {
      // Read a bounded amount per wake-up so stderr and the deadline stay served.
      const ssize_t n = read(stdout_, buf, sizeof buf);
      if (n > 0) {
        pending_.append(buf, static_cast<std::size_t>(n));
      } else if (n == 0) {
        close_fd(stdout_);
      } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        close_fd(stdout_);
      }
    }
  }
}

std::string ChildProcess::exit_status() const {
  siginfo_t info{};
  if (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0) {
    return {};
  }
  if (info.si_code == CLD_EXITED) return describe_exit(info.si_status);
  return describe_signal(info.si_status, info.si_code == CLD_DUMPED);
}

std::string ChildProcess::stop(std::chrono::milliseconds grace) {
  if (pid_ <= 0) return final_status_;
  // The status as it stands now: with no grace, a subject that was running
  // when pecheck gave up is reported as running, whatever it does next.
  std::string status = exit_status();
  if (status.empty() && grace.count() > 0) close_fd(stdin_);  // a well-behaved subject exits on end of input
  const auto deadline = Clock::now() + grace;
  while (status.empty() && Clock::now() < deadline) {
    pollfd fd{stderr_, POLLIN, 0};
    if (stderr_ >= 0 && poll(&fd, 1, std::min(remaining_ms(deadline), 5)) > 0) {
      drain_stderr();
    } else if (stderr_ < 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    status = exit_status();
  }
  final_status_ = status.empty() ? "still running" : status;
  // The leader is not reaped yet, so its pid (= the group id) cannot have been
  // reused: killing the group reaches only the subject and what it started.
  kill(-pid_, SIGKILL);
  kill(pid_, SIGKILL);
  unwatch_group(pid_);
  int ws = 0;
  while (waitpid(pid_, &ws, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  // Whatever the subject wrote last is in the pipe now (or held open by a
  // process outside its group: then take what is there and go).
  const auto drain_until = Clock::now() + std::chrono::milliseconds(50);
  while (stderr_ >= 0 && Clock::now() < drain_until) {
    pollfd fd{stderr_, POLLIN, 0};
    if (poll(&fd, 1, 10) <= 0) break;
    drain_stderr();
  }
  close_fd(stdin_);
  close_fd(stdout_);
  close_fd(stderr_);
  return final_status_;
}

}  // namespace pecheck::process
