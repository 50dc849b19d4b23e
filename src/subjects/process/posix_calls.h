#pragma once
// The two POSIX helpers every process file needs: an errno turned into an
// exception, and a descriptor closed once.
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>

namespace pecheck::process {

[[noreturn]] inline void throw_errno(const std::string& what) {
  throw std::system_error(errno, std::generic_category(), what);
}

inline void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace pecheck::process
