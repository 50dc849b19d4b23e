#pragma once
// The system side of a forked copy (zygote.h): the Unix sockets pecheck
// names in a fork request and listens on, and the copy itself, a process
// pecheck did not start and cannot wait for. A copy is held by a pidfd from
// the moment its zygote names it, so that a kill or a wait never reaches
// another process that happens to get the same number later.
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <utility>

namespace pecheck::process {

using CopyClock = std::chrono::steady_clock;

// A descriptor closed with its owner.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// A private folder (mode 0700) for the sockets of one zygote's copies, under
// $TMPDIR or /tmp (a socket path must fit in 108 bytes); removed with its
// owner. Throws std::system_error when it cannot be made.
class SocketFolder {
 public:
  SocketFolder();
  SocketFolder(SocketFolder&& other) noexcept : dir_(std::exchange(other.dir_, {})) {}
  SocketFolder& operator=(SocketFolder&&) = delete;
  SocketFolder(const SocketFolder&) = delete;
  SocketFolder& operator=(const SocketFolder&) = delete;
  ~SocketFolder();
  std::string path(const std::string& name) const { return dir_ + "/" + name; }

 private:
  std::string dir_;
};

// A Unix stream socket listening at `path` (unlinked again with its owner),
// for one connection. Throws std::system_error.
class Listener {
 public:
  explicit Listener(std::string path);
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;
  ~Listener();
  const std::string& path() const { return path_; }
  // The connection, once one comes before `deadline`; an empty UniqueFd when
  // the deadline passes or `pidfd` (the copy expected to connect) shows that
  // its process ended first.
  UniqueFd accept(CopyClock::time_point deadline, int pidfd);
  // Whether another connection is waiting to be accepted now.
  bool pending() const;

 private:
  std::string path_;
  UniqueFd fd_;
};

// The process on the other end of a connected Unix socket (SO_PEERCRED), or 0.
pid_t peer_process(int socket);

// A pidfd for `pid` (pidfd_open), or an empty one (errno set) when there is
// no such process or the system has none.
UniqueFd open_pidfd(pid_t pid);
// Whether the process of `pidfd` has ended, waiting up to `limit`.
bool ended(int pidfd, std::chrono::milliseconds limit = std::chrono::milliseconds(0));
// SIGKILL to the process of `pidfd` (never to another of the same number).
void kill_process(int pidfd);

}  // namespace pecheck::process
