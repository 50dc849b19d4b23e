#pragma once
// A std::streambuf on a file descriptor (a socket), for the conversation a
// forked copy serves (subjects/serve.h): std::cin and std::cout belong to the
// zygote's pipes, and their buffers may hold the zygote's bytes.
#include <array>
#include <streambuf>

namespace pecheck {

class FdStreambuf final : public std::streambuf {
 public:
  explicit FdStreambuf(int fd);  // does not own fd
  FdStreambuf(const FdStreambuf&) = delete;
  FdStreambuf& operator=(const FdStreambuf&) = delete;
  ~FdStreambuf() override;

 protected:
  int_type underflow() override;
  int_type overflow(int_type c) override;
  int sync() override;

 private:
  bool flush_out();
  int fd_;
  std::array<char, 64 * 1024> in_{}, out_{};
};

}  // namespace pecheck
