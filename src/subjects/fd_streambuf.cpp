#include "subjects/fd_streambuf.h"

#include <unistd.h>

#include <cerrno>

namespace pecheck {

FdStreambuf::FdStreambuf(int fd) : fd_(fd) {
  setg(in_.data(), in_.data(), in_.data());
  setp(out_.data(), out_.data() + out_.size());
}

FdStreambuf::~FdStreambuf() { flush_out(); }

FdStreambuf::int_type FdStreambuf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  while (true) {
    const ssize_t n = read(fd_, in_.data(), in_.size());
    if (n > 0) {
      setg(in_.data(), in_.data(), in_.data() + n);
      return traits_type::to_int_type(*gptr());
    }
    if (n < 0 && errno == EINTR) continue;
    return traits_type::eof();
  }
}

bool FdStreambuf::flush_out() {
  const char* at = pbase();
  while (at < pptr()) {
    const ssize_t n = write(fd_, at, static_cast<std::size_t>(pptr() - at));
    if (n > 0) {
      at += n;
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      setp(out_.data(), out_.data() + out_.size());
      return false;
    }
  }
  setp(out_.data(), out_.data() + out_.size());
  return true;
}

FdStreambuf::int_type FdStreambuf::overflow(int_type c) {
  if (!flush_out()) return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

int FdStreambuf::sync() { return flush_out() ? 0 : -1; }

}  // namespace pecheck
