#include "pecheck/subjects/process_subject.h"

#include <signal.h>

#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <system_error>

#include "subjects/process/child_process.h"
#include "subjects/process/matrix_answer.h"
#include "subjects/process/requests.h"
#include "subjects/process/responses.h"

namespace pecheck {

namespace {

using namespace process;

// An answer longer than this without a newline is a flood, not a matrix: the
// largest answer the properties ask for is a few megabytes.
constexpr std::size_t kMaxLine = std::size_t{64} << 20;
constexpr std::chrono::milliseconds kExitGrace{1000};     // a subject that closed its output is exiting
constexpr std::chrono::milliseconds kShutdownLimit{2000};  // answering shutdown and exiting, each
constexpr double kMaxTimeoutSeconds = 1e6;                 // "no limit" in practice, and no overflow

// Writing to a subject that has died must be an error we report, not a
// signal that ends pecheck.
void ignore_sigpipe() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, nullptr);
  });
}

// The default profile follows the subject's ops, named as config/profiles.cpp
// names it ("sinusoidal", "rotary", "attention", joined by '+'); --profile
// may choose another.
std::string default_scheme(unsigned ops) {
  std::string scheme;
  for (const auto& [op, profile] : {std::pair{Op::encode, "sinusoidal"}, {Op::rotate, "rotary"},
                                    {Op::attention, "attention"}}) {
    if (ops & static_cast<unsigned>(op)) scheme += (scheme.empty() ? "" : "+") + std::string(profile);
  }
  return scheme;
}

std::string shown_request(std::string_view request) {
  if (!request.empty() && request.back() == '\n') request.remove_suffix(1);
  return show_bytes(request);
}

class ProcessSubject final : public Subject {
 public:
  ProcessSubject(const std::string& command, const SubjectOptions& options)
      : timeout_(std::clamp(options.timeout_seconds, 1e-3, kMaxTimeoutSeconds)) {
    ignore_sigpipe();
    info_.spec = "cmd:" + command;
    const std::string request = hello_request(next_id_++);
    try {
      child_ = std::make_unique<ChildProcess>(command);
    } catch (const std::system_error& e) {
      throw SubjectFailure(fmt::format("could not start the subject: {}", e.what()), shown_request(request), "",
                           "", "not started");
    }
    const std::string line = exchange("hello", 0, request);
    try {
      const json answer = parse_answer(line);
      const Hello hello = read_hello(answer_result(answer, 0));
      info_.name = hello.name;
      info_.ops = hello.ops;
      info_.dtype = hello.dtype;
      info_.layout = hello.layout;
      info_.scheme = default_scheme(hello.ops);
    } catch (const Breach& b) {
      fail(request, line.empty() ? "(an empty line)" : line, [&](const std::string&) {
        return fmt::format("the subject answered request 0 (hello) with {}", b.what());
      });
    } catch (const Refusal& r) {
      fail(request, line.empty() ? "(an empty line)" : line, [&](const std::string&) {
        return fmt::format("the subject answered request 0 (hello) with an error: {}", r.what());
      });
    }
  }

  ~ProcessSubject() override {
    if (failure_ || !child_) return;
    try {
      std::string received;
      const auto limit = std::min(std::chrono::duration_cast<std::chrono::milliseconds>(timeout_), kShutdownLimit);
      child_->exchange(shutdown_request(next_id_++), Clock::now() + limit, kMaxLine, received);
      child_->stop(kShutdownLimit);
    } catch (...) {
      // The child's own destructor still kills and reaps it.
    }
  }

  const SubjectInfo& info() const override { return info_; }

  Matrix encode(int dim, const Positions& positions, Position seq_len) override {
    if (!info_.supports(Op::encode)) return Subject::encode(dim, positions, seq_len);
    if (dim < 0) throw Refusal(fmt::format("dim must not be negative, got {}", dim));
    const RequestId id = next_id_++;
    return request_matrix("encode", id, encode_request(id, dim, positions, seq_len),
                          static_cast<Eigen::Index>(positions.size()), dim);
  }

  Matrix attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask,
                   int heads) override {
    if (!info_.supports(Op::attention)) return Subject::attention(q, k, v, mask, heads);
    if (heads != 1) throw Refusal(fmt::format("the subject protocol carries one head; asked for {}", heads));
    const RequestId id = next_id_++;
    return request_matrix("attention", id, attention_request(id, q, k, v, mask), q.rows(), v.cols());
  }

  Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override {
    if (!info_.supports(Op::rotate)) return Subject::rotate(positions, x, seq_len);
    const RequestId id = next_id_++;
    return request_matrix("rotate", id, rotate_request(id, positions, x),
                          static_cast<Eigen::Index>(positions.size()), x.cols());
  }

  std::string log_tail() const override { return child_ ? child_->stderr_tail() : std::string(); }

 private:
  Matrix request_matrix(std::string_view op, RequestId id, const std::string& request, Eigen::Index rows,
                        Eigen::Index cols) {
    const std::string line = exchange(op, id, request);
    if (auto m = quick_matrix_answer(line, id, rows, cols)) return std::move(*m);
    try {
      const json answer = parse_answer(line);
      return result_matrix(answer_result(answer, id), rows, cols);
    } catch (const Breach& b) {
      fail(request, line.empty() ? "(an empty line)" : line, [&](const std::string&) {
        return fmt::format("the subject answered request {} ({}) with {}", id, op, b.what());
      });
    }
  }

  // Sends one request and returns the line that answers it; every transport
  // problem (exit, hang, flood) is a SubjectFailure.
  std::string exchange(std::string_view op, RequestId id, const std::string& request) {
    if (failure_) throw *failure_;
    std::string received;
    Exchange how;
    try {
      how = child_->exchange(request, Clock::now() + std::chrono::duration_cast<Clock::duration>(timeout_),
                             kMaxLine, received);
    } catch (const std::system_error& e) {
      fail(request, received, [&](const std::string&) {
        return fmt::format("talking to the subject failed during request {} ({}): {}", id, op, e.what());
      });
    }
    switch (how) {
      case Exchange::line:
        return received;
      case Exchange::timeout:
        fail(request, received, [&](const std::string&) {
          return fmt::format("the subject did not answer request {} ({}) within {:g} s", id, op, timeout_.count());
        });
      case Exchange::too_long:
        fail(request, received, [&](const std::string&) {
          return fmt::format("the subject wrote more than {} MiB without a newline answering request {} ({})",
                             kMaxLine >> 20, id, op);
        });
      case Exchange::closed:
      case Exchange::stdin_closed:
        break;
    }
    const bool unsent = how == Exchange::stdin_closed;
    fail(request, received, [&](const std::string& status) {
      if (status == "still running") {
        return fmt::format("the subject closed its {} before answering request {} ({})",
                           unsent ? "input" : "output", id, op);
      }
      return fmt::format("the subject ended ({}) before {} request {} ({})", status,
                         unsent ? "reading" : "answering", id, op);
    }, kExitGrace);
  }

  // Stops the subject for good and throws what happened. `describe` gets the
  // exit status (or "still running") and says what went wrong in a sentence.
  template <class Describe>
  [[noreturn]] void fail(const std::string& request, std::string_view received, Describe describe,
                         std::chrono::milliseconds grace = std::chrono::milliseconds(0)) {
    const std::string status = child_->stop(grace);
    failure_.emplace(describe(status), shown_request(request), received.empty() ? "(nothing)" : show_bytes(received),
                     child_->stderr_tail(), status);
    throw *failure_;
  }

  SubjectInfo info_;
  std::chrono::duration<double> timeout_;
  std::unique_ptr<ChildProcess> child_;
  std::optional<SubjectFailure> failure_;
  RequestId next_id_ = 0;
};

}  // namespace

SubjectPtr make_process_subject(const std::string& command, const SubjectOptions& options) {
  return std::make_unique<ProcessSubject>(command, options);
}

}  // namespace pecheck
