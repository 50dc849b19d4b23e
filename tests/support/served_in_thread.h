#pragma once
// A subject served over two pipes by a thread of the test itself, reached
// with `fd:READ,WRITE`: the process subject on one side, an answering
// function (by default pecheck::answer on an in-process Subject) on the
// other. No child process, so tests can serve subjects they define, count
// the lines that travel, and plant faults in the answers.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>

#include "pecheck/subjects/serve.h"

namespace pecheck::testing {

class ServedInThread {
 public:
  // answer(line, shutdown) -> the answer line without its newline; "" sends nothing.
  using Answerer = std::function<std::string(std::string_view line, bool& shutdown)>;

  explicit ServedInThread(Subject& subject)
      : ServedInThread([&subject](std::string_view line, bool& shutdown) { return answer(subject, line, shutdown); }) {}

  explicit ServedInThread(Answerer answerer) : answerer_(std::move(answerer)) {
    int requests[2], answers[2];
    if (pipe2(requests, O_CLOEXEC) != 0 || pipe2(answers, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
    read_requests_ = requests[0];
    write_answers_ = answers[1];
    spec_ = "fd:" + std::to_string(answers[0]) + "," + std::to_string(requests[1]);
    thread_ = std::thread([this] { loop(); });
  }
  ServedInThread(const ServedInThread&) = delete;
  ServedInThread& operator=(const ServedInThread&) = delete;
  // The subject side must be gone first (it closes its ends: end of input here).
  ~ServedInThread() {
    thread_.join();
    close(read_requests_);
    if (write_answers_ >= 0) close(write_answers_);
  }

  // fd:READ,WRITE for make_subject (pecheck takes those two descriptors over).
  const std::string& spec() const { return spec_; }
  int lines() const { return lines_.load(); }
  // Whether the answering side has seen the end of its input (or shutdown) within `seconds`.
  bool finished_within(double seconds) const {
    for (int i = 0; i < static_cast<int>(seconds * 1000) && !finished_.load(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return finished_.load();
  }
  // Closes the answering side's output now (the subject sees end of input).
  void close_answers() { close(write_answers_.exchange(-1)); }

 private:
  void loop() {
    serve_lines();
    finished_ = true;
  }
  void serve_lines() {
    std::string pending;
    char buf[65536];
    bool shutdown = false;
    while (!shutdown) {
      const auto nl = pending.find('\n');
      if (nl == std::string::npos) {
        const ssize_t n = read(read_requests_, buf, sizeof buf);
        if (n <= 0) return;
        pending.append(buf, static_cast<std::size_t>(n));
        continue;
      }
      const std::string line = pending.substr(0, nl);
      pending.erase(0, nl + 1);
      ++lines_;
      std::string reply = answerer_(line, shutdown);
      const int out = write_answers_.load();
      if (reply.empty() || out < 0) continue;
      reply += '\n';
      for (std::size_t sent = 0; sent < reply.size();) {
        const ssize_t n = write(out, reply.data() + sent, reply.size() - sent);
        if (n <= 0) return;
        sent += static_cast<std::size_t>(n);
      }
    }
  }

  Answerer answerer_;
  int read_requests_ = -1;
  std::atomic<int> write_answers_{-1};
  std::string spec_;
  std::atomic<int> lines_{0};
  std::atomic<bool> finished_{false};
  std::thread thread_;
};

}  // namespace pecheck::testing
