#pragma once
// What the process subject talks to: a started child (ChildProcess) or a
// pair of descriptors given by the process that started pecheck (FdPeer).
// Both speak through a Channel, so timeouts, floods and early exits are
// handled the same way for each.
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace pecheck::process {

using Clock = std::chrono::steady_clock;

// How one request/answer exchange ended.
enum class Exchange {
  line,          // a full line came back (in `received`, without its newline)
  timeout,       // the deadline passed first
  closed,        // the peer closed its output (usually: it exited)
  stdin_closed,  // the peer stopped reading before the request was sent, and wrote no line
  too_long,      // more than the line limit arrived without a newline
};

// stop()'s answer for a peer that is not pecheck's child (fd:READ,WRITE):
// pecheck cannot know whether it still runs.
inline constexpr std::string_view kNotAChild = "not a child of pecheck";

class Peer {
 public:
  virtual ~Peer() = default;
  // Writes `request` (one line, newline included) and reads the next line;
  // bytes already read stay in `received` when no full line came.
  virtual Exchange exchange(std::string_view request, Clock::time_point deadline, std::size_t max_line,
                            std::string& received) = 0;
  // Sends `request` (one line) without waiting for its answer: the peer
  // works on it while pecheck goes on, and a later exchange (with an empty
  // request to only read) takes its answer line, in order. Requests may be
  // pipelined so (SUBJECT-PROTOCOL.md: subjects must not rely on timing).
  virtual void post(std::string_view request) = 0;
  // The last part of the peer's stderr, where pecheck can see it; else empty.
  virtual std::string stderr_tail() const = 0;
  // Reads its stderr for up to `limit` while it writes there (where pecheck sees it).
  virtual void drain_log(std::chrono::milliseconds /*limit*/) {}
  // From now on an exchange ends soon after the peer's own process exits,
  // even while other processes hold its output open (a zygote's copies
  // inherit its stdout). A peer that is not pecheck's child ignores it.
  virtual void end_with_process() {}
  // Ends the conversation for good: waits up to `grace` for a child to exit
  // by itself, then kills and reaps it. Returns how the peer stood before
  // pecheck ended it ("exit 1", "signal 11 (SIGSEGV)", "still running",
  // kNotAChild). Idempotent.
  virtual std::string stop(std::chrono::milliseconds grace) = 0;
};

}  // namespace pecheck::process
