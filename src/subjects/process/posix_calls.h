#pragma once
// The POSIX helpers every process file needs: an errno turned into an
// exception, a descriptor closed once, and a deadline as poll's timeout.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
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

// Milliseconds left until `deadline` (0 when past), as poll takes them.
inline int remaining_ms(std::chrono::steady_clock::time_point deadline) {
  const auto left =
      std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30));
}

}  // namespace pecheck::process
