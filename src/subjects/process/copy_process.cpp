#include "subjects/process/copy_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "subjects/process/posix_calls.h"

namespace pecheck::process {

namespace {

constexpr std::size_t kSocketPathLimit = sizeof(sockaddr_un{}.sun_path) - 1;

}  // namespace

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) close(fd_);
}

SocketFolder::SocketFolder() {
  // $TMPDIR where a socket path under it still fits, else /tmp.
  std::string base = "/tmp";
  if (const char* tmp = std::getenv("TMPDIR"); tmp != nullptr && *tmp == '/' && std::strlen(tmp) < 60) base = tmp;
  std::string pattern = base + "/pecheck-fork-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) throw_errno(fmt::format("cannot make a folder for sockets under {}", base));
  dir_ = pattern;  // mkdtemp makes it 0700
}

SocketFolder::~SocketFolder() {
  if (dir_.empty()) return;  // moved from
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

Listener::Listener(std::string path) : path_(std::move(path)) {
  if (path_.size() > kSocketPathLimit) {
    errno = ENAMETOOLONG;
    throw_errno(fmt::format("socket path {}", path_));
  }
  fd_ = UniqueFd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd_) throw_errno("socket");
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path_.c_str(), path_.size() + 1);
  if (bind(fd_.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    throw_errno(fmt::format("bind {}", path_));
  }
  if (listen(fd_.get(), 1) != 0) throw_errno(fmt::format("listen {}", path_));
}

Listener::~Listener() { unlink(path_.c_str()); }

UniqueFd Listener::accept(CopyClock::time_point deadline, int pidfd) {
  while (true) {
    const int connection = accept4(fd_.get(), nullptr, nullptr, SOCK_CLOEXEC);
    if (connection >= 0) return UniqueFd(connection);
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED) {
      throw_errno(fmt::format("accept {}", path_));
    }
    const int wait_ms = remaining_ms(deadline);
    if (wait_ms == 0) return {};
    pollfd fds[2] = {{fd_.get(), POLLIN, 0}, {pidfd, POLLIN, 0}};
    const int ready = poll(fds, pidfd >= 0 ? 2 : 1, wait_ms);
    if (ready < 0 && errno != EINTR) throw_errno("poll");
    // The copy ended: a connection it made before ending is still queued.
    if (ready > 0 && pidfd >= 0 && fds[1].revents != 0 && fds[0].revents == 0) {
      const int late = accept4(fd_.get(), nullptr, nullptr, SOCK_CLOEXEC);
      return late >= 0 ? UniqueFd(late) : UniqueFd();
    }
  }
}

bool Listener::pending() const {
  pollfd fd{fd_.get(), POLLIN, 0};
  return poll(&fd, 1, 0) > 0 && (fd.revents & POLLIN) != 0;
}

pid_t peer_process(int socket) {
  ucred credentials{};
  socklen_t size = sizeof credentials;
  if (getsockopt(socket, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) return 0;
  return credentials.pid;
}

UniqueFd open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  if (pid <= 0) {
    errno = ESRCH;
    return {};
  }
  const long fd = syscall(SYS_pidfd_open, pid, 0);
  if (fd < 0) return {};
  fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
  return UniqueFd(static_cast<int>(fd));
#else
  (void)pid;
  errno = ENOSYS;
  return {};
#endif
}

bool ended(int pidfd, std::chrono::milliseconds limit) {
  if (pidfd < 0) return true;
  pollfd fd{pidfd, POLLIN, 0};
  const auto deadline = CopyClock::now() + limit;
  while (true) {
    const int ready = poll(&fd, 1, remaining_ms(deadline));
    if (ready > 0) return true;
    if (ready == 0) return false;
    if (errno != EINTR) return true;
  }
}

void kill_process(int pidfd) {
#ifdef SYS_pidfd_send_signal
  if (pidfd >= 0) syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0);
#else
  (void)pidfd;
#endif
}

}  // namespace pecheck::process
