#pragma once
// One line-oriented conversation over descriptors, every wait bounded:
// requests are written to one descriptor, answers read from another, and a
// log descriptor (a child's stderr) drained meanwhile into a bounded tail,
// so a peer that floods its log cannot block on a full pipe. Nothing here
// knows JSON or processes.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "subjects/process/peer.h"

namespace pecheck::process {

inline constexpr std::size_t kStderrTail = 8 * 1024;

class Channel {
 public:
  // Takes ownership of the descriptors (log may be -1: none) and makes them
  // non-blocking. Throws std::system_error when it cannot.
  Channel(int to_peer, int from_peer, int log = -1);
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;
  ~Channel();

  // Writes `request` and reads the next line of the peer's output, draining
  // the log meanwhile (see Peer::exchange).
  Exchange exchange(std::string_view request, Clock::time_point deadline, std::size_t max_line,
                    std::string& received);
  // Queues `request` and writes what the pipe takes now, without waiting:
  // the next exchange writes the rest before its own (see Peer::post).
  void post(std::string_view request);

  // The last part of the log (valid UTF-8; earlier bytes counted, not kept).
  std::string log_tail() const;
  // Drains the log for up to `limit` while the peer writes to it; returns
  // early once it is closed or quiet.
  void drain_log(std::chrono::milliseconds limit);
  // Waits up to `limit` for log output, draining it; false once it is closed.
  bool wait_for_log(std::chrono::milliseconds limit);

  // From now on an exchange also ends (as `closed`, after a short grace for
  // what it wrote last) once `pidfd` says the peer's process has exited, even
  // while other processes hold its output open: a zygote's copies inherit its
  // stdout, so its end of file never comes. Not owned.
  void end_with(int pidfd) { exit_fd_ = pidfd; }

  // Ends the requests (a well-behaved peer exits at the end of its input).
  void close_input();
  void close_all();

 private:
  struct Progress;  // one exchange's: bytes written, graces begun (channel.cpp)
  std::optional<Exchange> ended(Progress& progress, std::size_t max_line, std::string& received);
  void wait_and_move(Progress& progress, int wait_ms);
  void write_some(Progress& progress);
  void read_some();
  void drain_once();
  void keep_log(const char* data, std::size_t size);

  int to_ = -1, from_ = -1, log_fd_ = -1, exit_fd_ = -1;
  std::string outbox_;           // request bytes not yet written (posted, or being exchanged)
  std::string pending_;          // output bytes after the last line returned
  std::size_t scanned_ = 0;      // bytes of pending_ known to hold no newline
  std::string log_;              // log kept: the last 1 to 2 × kStderrTail bytes
  std::size_t log_dropped_ = 0;  // log bytes not kept
};

}  // namespace pecheck::process
