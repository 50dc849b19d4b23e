#include "subjects/process/fd_peer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace pecheck::process {

namespace {
// One socket for both directions still needs two descriptors for the channel
// to own (and to close the writing side alone).
int own_write(int read_fd, int write_fd) {
  if (read_fd != write_fd) return write_fd;
  const int copy = fcntl(write_fd, F_DUPFD_CLOEXEC, 3);
  if (copy < 0) throw std::system_error(errno, std::generic_category(), "fcntl");
  return copy;
}
}  // namespace

FdPeer::FdPeer(int read_fd, int write_fd) : channel_(own_write(read_fd, write_fd), read_fd) {
  // Children pecheck starts later must not inherit the conversation.
  for (int fd : {read_fd, write_fd}) fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC);
}

void FdPeer::post(std::string_view request) { channel_.post(request); }

Exchange FdPeer::exchange(std::string_view request, Clock::time_point deadline, std::size_t max_line,
                          std::string& received) {
  return channel_.exchange(request, deadline, max_line, received);
}

std::string FdPeer::stop(std::chrono::milliseconds) {
  channel_.close_all();
  return std::string(kNotAChild);
}

}  // namespace pecheck::process
