#pragma once
// A subject started as a child process: exec'd directly, or under
// `/bin/sh -c` when the command needs a shell (command_line.h says when), in
// its own process group, with a marker in its environment; stdin/stdout for
// requests and answers and stderr drained into a bounded tail (a Channel).
// Every wait is bounded, and stopping it kills and reaps its group and every
// descendant that left the group (descendants.h), so a subject that hangs,
// floods, dies or daemonizes can neither block nor outlive pecheck.
#include <sys/types.h>

#include <memory>
#include <string>

#include "subjects/process/channel.h"
#include "subjects/process/copy_process.h"
#include "subjects/process/peer.h"

namespace pecheck::process {

// "signal 11 (SIGSEGV)[, core dumped]".
std::string describe_signal(int sig, bool core);
// "exit N", saying what a shell's conventional codes (126, 127, 128 + signal) mean.
std::string describe_exit(int code);

class ChildProcess final : public Peer {
 public:
  // Starts `command`. Throws std::system_error when it cannot (e.g. a
  // program that does not exist: "cannot execute NAME: No such file or
  // directory").
  explicit ChildProcess(const std::string& command);
  ~ChildProcess() override;  // stop(0)

  Exchange exchange(std::string_view request, Clock::time_point deadline, std::size_t max_line,
                    std::string& received) override;
  void post(std::string_view request) override;
  std::string stderr_tail() const override;
  void drain_log(std::chrono::milliseconds limit) override {
    if (channel_) channel_->drain_log(limit);
  }
  std::string stop(std::chrono::milliseconds grace) override;
  void end_with_process() override;

  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }
  // The environment variable that marks this subject's processes.
  const std::string& marker() const { return marker_; }

 private:
  // Non-reaping status check: empty while the child runs.
  std::string exit_status() const;

  pid_t pid_ = -1;
  std::string marker_;
  std::unique_ptr<Channel> channel_;
  UniqueFd process_fd_;       // a pidfd, once end_with_process() asked for it
  std::string final_status_;  // set by stop()
};

}  // namespace pecheck::process
