#include "subjects/process/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <system_error>
#include <utility>
#include <vector>

#include "pecheck/core/interrupt.h"
#include "subjects/process/command_line.h"
#include "subjects/process/descendants.h"
#include "subjects/process/posix_calls.h"

extern char** environ;

namespace pecheck::process {

namespace {

constexpr std::chrono::milliseconds kReapLimit{2000};  // killed processes are gone in far less

// Subjects run in their own process groups, so a Ctrl-C or a CI job's
// SIGTERM reaches pecheck alone; the interrupt handler (core/interrupt.h)
// kills the groups watched here. (Descendants that left a group are not
// reached from a signal handler: searching /proc is not async-signal-safe.)

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

}  // namespace

std::string describe_signal(int sig, bool core) {
  return fmt::format("signal {} ({}){}", sig, signal_name(sig), core ? ", core dumped" : "");
}

std::string describe_exit(int code) {
  if (code == 126) return "exit 126 (the command is not executable)";
  if (code == 127) return "exit 127 (the command was not found)";
  if (code > 128 && code < 128 + 32) {
    return fmt::format("exit {} (a shell's report of its command killed by {})", code, describe_signal(code - 128, false));
  }
  return fmt::format("exit {}", code);
}

namespace {

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
  // A megabyte of buffer (Linux's default unprivileged maximum) where the
  // system allows it, instead of 64 KiB: a batch's answer line of a few
  // megabytes then crosses in a few wake-ups of the reader, not dozens.
  // Best effort: a refusal leaves the default, which works, only slower.
  void widen() const {
#ifdef F_SETPIPE_SZ
    (void)fcntl(write, F_SETPIPE_SZ, 1 << 20);
#endif
  }
  int release_read() { return std::exchange(read, -1); }
  int release_write() { return std::exchange(write, -1); }
};

// posix_spawn's attributes and file actions, destroyed on every path.
struct SpawnSetup {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  SpawnSetup(const Pipe& in, const Pipe& out, const Pipe& err) {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_adddup2(&actions, in.read, STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out.write, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err.write, STDERR_FILENO);
    // Its own process group (so a shell's children die with it); default
    // signal dispositions (the harness ignores SIGPIPE, the subject should
    // not inherit that) and an empty signal mask.
    sigset_t defaults, empty;
    sigemptyset(&empty);
    sigemptyset(&defaults);
    for (int sig : {SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD}) sigaddset(&defaults, sig);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setsigmask(&attr, &empty);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
};

// Runs argv (a program looked up on PATH) or, with `shell`, /bin/sh -c argv[0].
int spawn(pid_t& pid, const SpawnSetup& setup, std::vector<std::string> words, bool shell,
          const std::vector<char*>& env) {
  if (shell) words = {"/bin/sh", "-c", std::move(words.front())};
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  return posix_spawnp(&pid, argv[0], &setup.actions, &setup.attr, argv.data(), env.data());
}

}  // namespace

ChildProcess::ChildProcess(const std::string& command) : marker_(new_marker()) {
  become_subreaper();
  Pipe in, out, err;
  in.widen();
  out.widen();
  const SpawnSetup setup(in, out, err);

  // The environment as it is, plus this subject's marker.
  std::string marked = marker_ + "=1";
  std::vector<char*> env;
  for (char** e = environ; *e != nullptr; ++e) env.push_back(*e);
  env.push_back(marked.data());
  env.push_back(nullptr);

  pid_t pid = -1;
  const auto argv = split_command(command);
  int rc = argv ? spawn(pid, setup, *argv, false, env) : spawn(pid, setup, {command}, true, env);
  // A script without a #! line is one a shell would run: let it.
  if (rc == ENOEXEC && argv) rc = spawn(pid, setup, {command}, true, env);
  if (rc != 0) {
    throw std::system_error(rc, std::generic_category(),
                            fmt::format("cannot execute {}", argv ? argv->front() : std::string("/bin/sh")));
  }

  pid_ = pid;
  hold_child(pid);
  watch_group(pid);
  try {
    channel_ = std::make_unique<Channel>(in.release_write(), out.release_read(), err.release_read());
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

void ChildProcess::post(std::string_view request) { channel_->post(request); }

Exchange ChildProcess::exchange(std::string_view request, Clock::time_point deadline, std::size_t max_line,
                                std::string& received) {
  return channel_->exchange(request, deadline, max_line, received);
}

void ChildProcess::end_with_process() {
  if (process_fd_ || pid_ <= 0 || !channel_) return;
  process_fd_ = open_pidfd(pid_);
  if (process_fd_) channel_->end_with(process_fd_.get());
}

std::string ChildProcess::stderr_tail() const { return channel_ ? channel_->log_tail() : std::string(); }

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
  if (status.empty() && grace.count() > 0 && channel_) channel_->close_input();  // a well-behaved subject exits on end of input
  const auto deadline = Clock::now() + grace;
  while (status.empty() && Clock::now() < deadline) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (channel_) channel_->wait_for_log(std::min(left, std::chrono::milliseconds(5)));
    status = exit_status();
  }
  final_status_ = status.empty() ? "still running" : status;
  // The leader is not reaped yet, so its pid (= the group id) cannot have been
  // reused: killing the group reaches only the subject and what it started.
  kill_subject_processes(pid_, marker_, kReapLimit);
  release_child(pid_);
  unwatch_group(pid_);
  pid_ = -1;
  if (channel_) {
    // Whatever the subject wrote last is in the pipe now (or held open by a
    // process that escaped: then take what is there and go).
    channel_->drain_log(std::chrono::milliseconds(50));
    channel_->close_all();
  }
  return final_status_;
}

}  // namespace pecheck::process
