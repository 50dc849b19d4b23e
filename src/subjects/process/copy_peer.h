#pragma once
// A forked copy of a subject as a Peer (zygote.h): requests and answers on
// the Unix socket it connected to, its stderr drained from the other one,
// both through a Channel like a started child's. The copy is the zygote's
// child, not pecheck's: pecheck holds it by a pidfd, sees it end there,
// reads how it ended from /proc while its parent has not reaped it, and
// kills it (never another process of the same number) when it does not end.
// The zygote reaps a copy only once pecheck lists it in a fork request's
// `reap`, which it does once it has kept how the copy ended (CopyEnding):
// a copy that crashes is reported by its signal, whenever the zygote forks.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "subjects/process/channel.h"
#include "subjects/process/copy_process.h"
#include "subjects/process/peer.h"

namespace pecheck::process {

// Copies whose conversation has ended, each given until a deadline to exit
// and killed after it. Thread-safe.
class ExitWatch {
 public:
  void add(UniqueFd pidfd, CopyClock::time_point deadline);
  // Forgets those that ended, kills those past their deadline; returns how many are left.
  std::size_t sweep();
  // Kills every one left.
  void kill_all();

 private:
  struct Exiting {
    UniqueFd pidfd;
    CopyClock::time_point deadline;
  };
  std::mutex mutex_;
  std::vector<Exiting> exiting_;
};

// How one copy ended, read from /proc while it waits for its parent (the
// zygote) to reap it, and kept from then on. Thread-safe: the copy's peer
// asks on the thread that talks to it, the zygote's worker before each fork.
class CopyEnding {
 public:
  // Holds a descriptor of its own on `pidfd`.
  CopyEnding(pid_t pid, int pidfd);
  pid_t pid() const { return pid_; }
  // "still running", or how it ended ("exit 0", "signal 11 (SIGSEGV)");
  // "ended" where its parent reaped it before anyone read how.
  std::string status();
  // Whether it has ended and how it ended is kept (the zygote may reap it).
  bool kept() { return status() != "still running"; }

 private:
  pid_t pid_;
  UniqueFd pidfd_;
  std::mutex mutex_;
  std::string how_;  // empty while it runs
};

class CopyPeer final : public Peer {
 public:
  // Takes the connected conversation and log sockets and the copy's pidfd;
  // `ending` is shared with the zygote, which lists the copy for reaping
  // once it is kept.
  CopyPeer(UniqueFd conversation, UniqueFd log, UniqueFd pidfd, std::shared_ptr<CopyEnding> ending);
  ~CopyPeer() override;  // stop(0)

  Exchange exchange(std::string_view request, Clock::time_point deadline, std::size_t max_line,
                    std::string& received) override;
  void post(std::string_view request) override;
  std::string stderr_tail() const override { return channel_->log_tail(); }
  // Waits up to `grace` for the copy to end once its input is closed, then
  // kills it; returns how it stood ("exit 0", "signal 9 (SIGKILL)", "still
  // running", "ended"). After release_to(watch), the wait is the watch's.
  std::string stop(std::chrono::milliseconds grace) override;

  // The conversation ends normally from here on: stop() closes the sockets
  // and leaves the copy `grace` to exit on `watch`, without waiting here.
  void release_to(std::shared_ptr<ExitWatch> watch) { watch_ = std::move(watch); }
  pid_t pid() const { return ending_->pid(); }

 private:
  UniqueFd pidfd_;
  std::shared_ptr<CopyEnding> ending_;
  int socket_ = -1;  // the conversation's, owned by the channel (for shutdown)
  std::unique_ptr<Channel> channel_;
  std::shared_ptr<ExitWatch> watch_;
  bool stopped_ = false;
  std::string final_status_;
};

}  // namespace pecheck::process
