#pragma once
// A child process spoken to over pipes: started with /bin/sh -c in its own
// process group, stdin/stdout for requests and answers, stderr drained into a
// bounded tail. Every wait is bounded and the child is always reaped, so a
// subject that hangs, floods or dies can neither block nor outlive pecheck.
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace pecheck::process {

using Clock = std::chrono::steady_clock;

// How one request/answer exchange ended.
enum class Exchange {
  line,          // a full line came back (in `received`, without its newline)
  timeout,       // the deadline passed first
  closed,        // the child closed its stdout (usually: it exited)
  stdin_closed,  // the child stopped reading before the request was sent, and wrote no line
  too_long,      // more than the line limit arrived without a newline
};

class ChildProcess {
 public:
  // Starts `/bin/sh -c command`. Throws std::system_error when it cannot.
  explicit ChildProcess(const std::string& command);
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();  // stop(0): kill the group and reap

  // Writes `request` (one line, newline included) and reads the next line of
  // stdout, draining stderr meanwhile; bytes already read stay in `received`
  // when no full line came.
  Exchange exchange(std::string_view request, Clock::time_point deadline, std::size_t max_line,
                    std::string& received);

  // The last part of stderr (valid UTF-8; earlier bytes counted, not kept).
  std::string stderr_tail() const;

  // Waits up to `grace` for the child to exit by itself, then kills its
  // process group and reaps it. Returns how the child stood before pecheck
  // killed it: "exit 1", "signal 11 (SIGSEGV)", "still running". Idempotent.
  std::string stop(std::chrono::milliseconds grace);

  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }

 private:
  void drain_stderr();
  void keep_stderr(const char* data, std::size_t size);
  // Non-reaping status check: empty while the child runs.
  std::string exit_status() const;

  pid_t pid_ = -1;
  int stdin_ = -1, stdout_ = -1, stderr_ = -1;
  std::string pending_;          // stdout bytes after the last line returned
  std::size_t scanned_ = 0;      // bytes of pending_ known to hold no newline
  std::string log_;              // stderr kept: the last 1 to 2 × kStderrTail bytes
  std::size_t log_dropped_ = 0;  // stderr bytes not kept
  std::string final_status_;     // set by stop()
};

inline constexpr std::size_t kStderrTail = 8 * 1024;

}  // namespace pecheck::process
