#include "pecheck/subjects/process_subject.h"

#include <fcntl.h>
#include <signal.h>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <deque>
#include <mutex>
#include <optional>
#include <system_error>

#include "pecheck/core/escape.h"
#include "pecheck/core/op_table.h"
#include "pecheck/core/size_limits.h"
#include "protocol/codec.h"
#include "pecheck/core/overloaded.h"
#include "pecheck/core/subject_spec.h"
#include "subjects/process/child_process.h"
#include "subjects/process/descendants.h"
#include "subjects/process/fd_peer.h"
#include "subjects/process/forking_subject.h"
#include "protocol/hello.h"
#include "protocol/matrix_answer.h"
#include "protocol/requests.h"
#include "protocol/responses.h"
#include "subjects/process/zygote.h"

namespace pecheck {

namespace {

using namespace process;

// A line longer than this without a newline is a flood, not a matrix: the
// longest honest answer to the largest request pecheck sends (513 MiB; the
// rule and its reason are in core/size_limits.h). Each answer is read up to
// its own calls' longest honest answer (answer_line_limit), so a flood
// answering a small request is caught after about 1 MiB, not 513.
constexpr std::size_t kMaxLine = static_cast<std::size_t>(kLongestAnswerLine);
// A hello (the declarations, a model's config among them: kilobytes) and a
// shutdown's answer carry no matrix: a line past 64 MiB is a flood.
constexpr std::size_t kMaxHelloLine = std::size_t{64} << 20;
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
// may choose another. Only these three ops name the scheme: a subject that
// offers none of them (bias, forward, decode only) keeps an empty scheme, and
// profile_for then gives it the default profile of all its ops.
std::string default_scheme(unsigned ops) {
  return joined_profiles_of_ops(ops & scheme_ops());
}

std::string shown_request(std::string_view request) {
  if (!request.empty() && request.back() == '\n') request.remove_suffix(1);
  return show_bytes(request);
}

using Expected = ExpectedAnswer;

// What the answer to a call must be (its codec says).
Expected expected_of(const Call& call, bool head_tensors) {
  return std::visit([&](const auto& c) { return c.codec().expected(c, head_tensors); }, call);
}

// A batch answer of matrices read by the fast path, or none (the general path then reads it).
std::optional<std::vector<QuickItem>> quick_batch(std::string_view line, RequestId id,
                                                  std::span<const Expected> expected, Arrays accepted) {
  std::vector<MatrixShape> shapes;
  shapes.reserve(expected.size());
  for (const Expected& e : expected) {
    if (e.kind != Expected::Kind::matrix) return std::nullopt;
    shapes.push_back({e.rows, e.cols});
  }
  return quick_batch_answer(line, id, shapes, accepted);
}

// An upper bound on the numbers the answers to a batch carry: a matrix's or
// tensor's entries as its call implies; an answer of the request's own shape
// whose width the call leaves implicit (forward, decode) at most the numbers
// of the request, each of which takes at least two bytes of its text (a digit
// and a separator).
std::int64_t answer_numbers(std::span<const Expected> answers, std::size_t request_bytes) {
  std::int64_t numbers = 0;
  bool like_request = false;
  for (const Expected& e : answers) {
    switch (e.kind) {
      case Expected::Kind::matrix:
      case Expected::Kind::heads: numbers += static_cast<std::int64_t>(e.rows) * e.cols; break;
      case Expected::Kind::gradients:
        for (const Expected::Named& n : e.named) numbers += static_cast<std::int64_t>(n.rows) * n.cols;
        break;
      case Expected::Kind::batch:
      case Expected::Kind::vector:
      case Expected::Kind::rows: like_request = true; break;
      case Expected::Kind::null: break;
    }
  }
  return numbers + (like_request ? static_cast<std::int64_t>(request_bytes / 2) : 0);
}

// The longest line an honest answer to these calls takes (core/size_limits.h:
// 32 bytes a number, plus the framing), so a flood is caught at once.
std::size_t answer_line_limit(std::span<const Expected> answers, std::size_t request_bytes) {
  const std::int64_t numbers = std::min(answer_numbers(answers, request_bytes), kMostNumbersPerRequest);
  return static_cast<std::size_t>(std::min(kLongestAnswerLine, numbers * kLongestNumberText + kLineFraming));
}

// The value an answer's result holds, of the shape its call implies, in
// the encodings the subject declared.
Answer read_value(const json& result, const Expected& e, Arrays accepted) {
  switch (e.kind) {
    case Expected::Kind::matrix: return result_matrix(result, e.rows, e.cols, accepted);
    case Expected::Kind::batch: return result_batch(result, e.rows, e.cols, accepted);
    case Expected::Kind::vector: return result_vector(result, accepted);
    case Expected::Kind::rows: return result_rows(result, e.rows, accepted);
    case Expected::Kind::heads: {
      const Matrix packed = heads_to_columns(result_batch(result, e.heads, e.rows, accepted));
      if (packed.rows() != e.rows || packed.cols() != e.cols) {
        throw Breach(fmt::format("a result of the wrong shape: {} heads of {} rows and {} columns in all, expected "
                                 "{}×{}×{}",
                                 e.heads, packed.rows(), packed.cols(), e.heads, e.rows, e.cols / e.heads));
      }
      return packed;
    }
    case Expected::Kind::gradients: {
      if (!result.is_object()) throw Breach(fmt::format("a backward's result is an object of arrays, not {}", brief(result)));
      Batch out;
      for (const Expected::Named& n : e.named) {
        if (!result.contains(n.name)) {
          throw Breach(fmt::format("a backward's result has no \"{}\" (the gradient with respect to {})", n.name,
                                   n.name));
        }
        const json& value = result[std::string(n.name)];
        if (n.heads == 1 && !n.tensor) {
          out.push_back(result_matrix(value, n.rows, n.cols, accepted));
          continue;
        }
        Matrix packed = heads_to_columns(result_batch(value, n.heads, n.rows, accepted));
        if (packed.rows() != n.rows || packed.cols() != n.cols) {
          throw Breach(fmt::format("\"{}\" of the wrong shape: {} heads of {} rows and {} columns in all, expected "
                                   "{}×{}×{}", n.name, n.heads, packed.rows(), packed.cols(), n.heads, n.rows,
                                   n.cols / n.heads));
        }
        out.push_back(std::move(packed));
      }
      return out;
    }
    case Expected::Kind::null: break;
  }
  result_null(result);
  return Done{};
}

// A conversation with one peer. A subject that declared fork may also be a
// zygote (ZygoteLink): then it is sent only fork requests (zygote.h).
class ProcessSubject final : public Subject, public BatchingSubject, public ZygoteLink {
 public:
  ProcessSubject(SubjectSpec spec, const SubjectOptions& options)
      : timeout_(std::clamp(options.timeout_seconds, 1e-3, kMaxTimeoutSeconds)) {
    ignore_sigpipe();
    info_.spec = std::move(spec);
  }

  // Says hello over `peer` (a SubjectFailure or BadDeclaration stops it).
  // A forked copy must answer exactly `expected`, its zygote's hello.
  void start(std::unique_ptr<Peer> peer, const json* expected = nullptr) {
    peer_ = std::move(peer);
    const std::string request = hello_request(next_id_++);
    const std::string line = exchange("hello", 0, request, false, std::nullopt, kMaxHelloLine);
    try {
      const json answer = parse_answer(line);
      const json& result = answer_result(answer, 0);
      if (expected != nullptr && result != *expected) {
        fail(request, line, [&](const std::string&) {
          constexpr std::size_t kShown = 300;
          return fmt::format("the forked copy answered hello unlike the process it was forked from (which answered "
                             "{}): not a copy of the subject that answered hello",
                             valid_utf8(expected->dump().substr(0, kShown)));
        });
      }
      Hello hello = read_hello(result);
      hello.info.spec = std::move(info_.spec);
      hello.info.scheme = default_scheme(hello.info.ops);
      info_ = std::move(hello.info);
      hello_ = result;
      forks_ = hello.fork;
      arrays_ = info_.b64le ? Arrays::b64le : Arrays::json;
    } catch (const Breach& b) {
      fail(request, line.empty() ? "(an empty line)" : line, [&](const std::string&) {
        return fmt::format("the subject answered request 0 (hello) with {}", b.what());
      });
    } catch (const Refusal& r) {
      fail(request, line.empty() ? "(an empty line)" : line, [&](const std::string&) {
        return fmt::format("the subject answered request 0 (hello) with an error: {}", r.what());
      });
    } catch (const BadDeclaration& d) {
      // The user's declaration, not the subject's behaviour: say whose it is.
      peer_->stop(std::chrono::milliseconds(0));
      stopped_ = true;
      throw BadDeclaration(d.field, fmt::format("the subject {} declares what pecheck cannot accept: {}", format_spec(info_.spec), d.what()));
    }
  }

  ~ProcessSubject() override {
    if (failure_ || stopped_ || !peer_) return;
    try {
      std::string received;
      const auto limit = std::min(std::chrono::duration_cast<std::chrono::milliseconds>(timeout_), kShutdownLimit);
      peer_->exchange(shutdown_request(next_id_++), Clock::now() + limit, kMaxHelloLine, received);
      peer_->stop(kShutdownLimit);
    } catch (...) {
      // The peer's own destructor still kills and reaps a child.
    }
  }

  const SubjectInfo& info() const override { return info_; }

  // Whether its hello declared fork.
  bool forks() const { return forks_; }
  // The subject is talked to as one that makes no copies (--no-fork).
  void forget_fork() {
    forks_ = false;
    std::erase(info_.declared, "fork");
  }

  // ZygoteLink: a zygote is sent fork requests only.
  const json& hello() const override { return hello_; }
  Forked request_fork(const std::string& socket, const std::string& log, const std::vector<long>& reap) override {
    // A zygote that exits is over, though its copies hold its stdout open.
    if (peer_) peer_->end_with_process();
    const RequestId id = next_id_++;
    const std::string request = fork_request(id, socket, log, reap);
    const std::string line =
        exchange("fork", id, request, false, std::chrono::duration<double>(fork_limit_seconds(timeout_.count())));
    // Why a fork answer is broken, where the zygote's situation says more
    // than the line: copies inherit its stdout, and it answers in order.
    std::string why;
    try {
      json answer;
      try {
        answer = parse_answer(line);
      } catch (const Breach&) {
        why = "; a forked copy inherits the zygote's stdout, so a copy that prints there (a log line, a progress "
              "bar) writes into the zygote's answers: copies must write to stderr or their own sockets only";
        throw;
      }
      // A zygote is sent hello (request 0), then fork requests only, each
      // answered before the next is sent: an id between them is a fork answered before.
      if (const auto at = answer.is_object() ? answer.find("id") : answer.end();
          at != answer.end() && at->is_number_integer() && at->get<RequestId>() > 0 && at->get<RequestId>() < id) {
        why = fmt::format(": the zygote answered fork request {} twice (its second answer came where request {}'s "
                          "was expected)", at->get<RequestId>(), id);
      }
      const json& result = answer_result(answer, id);
      const auto pid = result.is_object() ? result.find("pid") : result.end();
      if (!result.is_object() || pid == result.end() || !pid->is_number_integer()) {
        throw Breach(fmt::format("a result that is not {{\"pid\": the copy's process id}}: {}", brief(result)));
      }
      return {request, pid->get<long>()};
    } catch (const Breach& b) {
      fail(request, line.empty() ? "(an empty line)" : line, [&](const std::string&) {
        return fmt::format("the subject answered request {} (fork) with {}{}", id, b.what(), why);
      });
    } catch (const Refusal& r) {
      fail(request, line, [&](const std::string&) {
        return fmt::format("the subject refused request {} (fork) although its hello declares fork: {}", id, r.what());
      });
    }
  }
  void drain_log(std::chrono::milliseconds limit) override {
    if (peer_ && !failure_ && !stopped_) peer_->drain_log(limit);
  }

  // A multi-axis subject takes 3 × n positions: a one-axis rotation goes out
  // with its positions on every axis (every other field kept). None where
  // the call goes as it is.
  std::optional<Call> on_every_axis(const Call& call) const {
    const auto* c = std::get_if<RotateCall>(&call);
    if (c == nullptr || info_.rotate.position_axes() <= 1 || !c->axes.empty() || c->layer) return std::nullopt;
    RotateCall spread = *c;
    spread.axes.assign(static_cast<size_t>(info_.rotate.position_axes()), c->positions);
    spread.positions.clear();
    return spread;
  }

  // The one request path: every call is checked here (refused unasked where
  // the subject cannot answer it), written by the codec (requests.cpp) and
  // its answer read back in the shape the call implies.
  Answer perform(const Call& given) override {
    const std::optional<Call> spread = on_every_axis(given);
    const Call& call = spread ? *spread : given;
    try {
      refuse_locally(call);
    } catch (const Refusal& r) {
      return Refused{r.what()};
    }
    return request_value(call);
  }

  std::vector<Answer> perform_batch(std::span<const Call> calls) override {
    return collect_batch(post_batch(calls));
  }

  Ticket post_batch(std::span<const Call> given) override {
    std::vector<Call> spread;
    std::span<const Call> calls = given;
    if (info_.rotate.position_axes() > 1) {
      for (const Call& call : given) spread.push_back(on_every_axis(call).value_or(call));
      calls = spread;
    }
    Posted batch;
    batch.answers.resize(calls.size());
    for (std::size_t i = 0; i < calls.size(); ++i) {
      try {
        refuse_locally(calls[i]);
        batch.sent.push_back(i);
      } catch (const Refusal& r) {
        batch.answers[i] = Refused{r.what()};
      }
    }
    batch.id = next_id_++;
    if (!batch.sent.empty() && !info_.batch) {
      // One by one, now: only a subject that declared batch takes batches.
      for (std::size_t i : batch.sent) batch.answers[i] = perform(calls[i]);
      batch.sent.clear();
    }
    if (!batch.sent.empty()) {
      batch.expected.reserve(batch.sent.size());
      for (std::size_t i : batch.sent) batch.expected.push_back(expected_of(calls[i], head_tensors()));
      if (batch.sent.size() == calls.size()) {
        batch.request = batch_request(batch.id, calls, arrays_, head_tensors());
      } else {
        // Some were refused here: the rest go out (copied, which is rare).
        std::vector<Call> sendable;
        sendable.reserve(batch.sent.size());
        for (std::size_t i : batch.sent) sendable.push_back(calls[i]);
        batch.request = batch_request(batch.id, sendable, arrays_, head_tensors());
      }
      if (batch.sent.size() > 1 && answer_numbers(batch.expected, batch.request.size()) > kMostNumbersPerRequest) {
        // Their answers would share one line past what one answer may carry
        // (core/size_limits.h): one by one instead, each within kMaxLine.
        batch.expected.clear();
        batch.request.clear();
        for (std::size_t i : batch.sent) batch.answers[i] = perform(calls[i]);
        batch.sent.clear();
      }
    }
    if (!batch.sent.empty()) {
      if (failure_) throw *failure_;
      try {
        peer_->post(batch.request);
      } catch (const std::system_error& e) {
        fail(batch.request, "", [&](const std::string&) {
          return fmt::format("talking to the subject failed sending request {} (batch): {}", batch.id, e.what());
        });
      }
    }
    posted_.push_back(std::move(batch));
    return static_cast<Ticket>(posted_.back().id);
  }

  std::vector<Answer> collect_batch(Ticket ticket) override {
    const auto it = std::find_if(posted_.begin(), posted_.end(), [&](const Posted& p) { return p.id == static_cast<RequestId>(ticket); });
    if (it == posted_.end()) throw std::logic_error(fmt::format("no batch {} was posted", ticket));
    while (!it->line) receive_posted();
    Posted batch = std::move(*it);
    posted_.erase(it);
    if (!batch.expected.empty()) read_batch(batch);
    return std::move(batch.answers);
  }

  std::string log_tail() const override { return peer_ ? peer_->stderr_tail() : std::string(); }

 private:
  // A batch sent and not yet collected: its answers so far (refused
  // locally), the calls that went out, and the answer line once read.
  struct Posted {
    RequestId id = 0;
    std::vector<Answer> answers;
    std::vector<std::size_t> sent;  // indices of the calls that went out
    std::vector<Expected> expected;  // ... and what each one's answer must be
    std::string request;
    std::optional<std::string> line;
  };

  // Reads the answer line of the oldest posted batch still without one.
  void receive_posted() {
    for (Posted& p : posted_) {
      if (p.line) continue;
      if (p.expected.empty()) {
        p.line.emplace();
        continue;
      }
      p.line = exchange("batch", p.id, p.request, /*sent=*/true, std::nullopt, answer_line_limit(p.expected, p.request.size()));
      return;
    }
  }

  // Fills `batch.answers` from its answer line, or fails the subject.
  void read_batch(Posted& batch) {
    const std::string& line = *batch.line;
    const RequestId id = batch.id;
    if (auto quick = quick_batch(line, id, batch.expected, arrays_)) {
      for (std::size_t k = 0; k < batch.sent.size(); ++k) {
        if (auto* m = std::get_if<Matrix>(&(*quick)[k])) batch.answers[batch.sent[k]] = std::move(*m);
        else batch.answers[batch.sent[k]] = Refused{std::get<std::string>((*quick)[k])};
      }
      return;
    }
    std::size_t at = 0;
    try {
      const json answer = parse_answer(line);
      const json* result = nullptr;
      try {
        result = &answer_result(answer, id);
      } catch (const Refusal& r) {
        // The whole batch refused: every call in it is.
        for (std::size_t i : batch.sent) batch.answers[i] = Refused{r.what()};
        return;
      }
      const json& items = batch_items(*result, batch.sent.size());
      for (; at < batch.sent.size(); ++at) {
        try {
          batch.answers[batch.sent[at]] = read_value(item_result(items[at], at), batch.expected[at], arrays_);
        } catch (const Refusal& r) {
          batch.answers[batch.sent[at]] = Refused{r.what()};
        }
      }
    } catch (const Breach& b) {
      fail(batch.request, line.empty() ? "(an empty line)" : line, [&](const std::string&) {
        const std::string where =
            at < batch.sent.size() && std::string_view(b.what()).find("batch") == std::string_view::npos
                ? fmt::format(" (item {}, {})", at, batch.expected[at].op)
                : std::string();
        return fmt::format("the subject answered request {} (batch) with {}{}", id, b.what(), where);
      });
    }
  }

  // Refuses, without asking, a call the subject cannot answer: an op it does
  // not declare, or what the call's codec refuses.
  void refuse_locally(const Call& call) const {
    if (failure_) throw *failure_;
    const Op op = op_of(call);
    // An in-process op (logits, combine): the protocol carries none.
    if (!info_.supports(op) || op_row(op).in_process()) {
      throw Refusal(fmt::format("{} does not implement {}", info_.name, op_name(call)));
    }
    // What its codec refuses for this subject (a bias head it lacks, a
    // layer it does not declare, a convention it does not declare).
    std::visit([&](const auto& c) { c.codec().check(c, info_, head_tensors()); }, call);
  }

  // Whether attention travels as heads × rows × width tensors (declared heads).
  bool head_tensors() const { return info_.attention.heads.has_value(); }

  // Sends one call and reads its answer: a matrix by the fast path where it
  // can, anything else (or a refusal, or a broken answer) by the general one.
  Answer request_value(const Call& call) {
    const RequestId id = next_id_++;
    const std::string request = call_request(id, call, arrays_, head_tensors());
    const Expected expected = expected_of(call, head_tensors());
    const std::string line =
        exchange(op_name(call), id, request, false, std::nullopt, answer_line_limit({&expected, 1}, request.size()));
    if (expected.kind == Expected::Kind::matrix) {
      if (auto m = quick_matrix_answer(line, id, expected.rows, expected.cols, arrays_)) return std::move(*m);
    }
    try {
      return read_value(answer_result(parse_answer(line), id), expected, arrays_);
    } catch (const Refusal& r) {
      return Refused{r.what()};
    } catch (const Breach& b) {
      fail(request, line.empty() ? "(an empty line)" : line, [&](const std::string&) {
        return fmt::format("the subject answered request {} ({}) with {}", id, op_name(call), b.what());
      });
    }
  }

  // Sends one request and returns the line that answers it; every transport
  // problem (exit, hang, flood) is a SubjectFailure.
  // `sent`: the request was posted already; only its answer is read. A
  // request sent while batches are posted first reads their answers (kept for
  // collect_batch), so every answer line meets its own request.
  // `limit`: how long the answer may take (the subject timeout where not given).
  std::string exchange(std::string_view op, RequestId id, const std::string& request, bool sent = false,
                       std::optional<std::chrono::duration<double>> limit = std::nullopt,
                       std::size_t max_line = kMaxLine) {
    const std::chrono::duration<double> within = limit.value_or(timeout_);
    if (failure_) throw *failure_;
    if (!sent) {
      while (std::any_of(posted_.begin(), posted_.end(), [](const Posted& p) { return !p.line; })) receive_posted();
    }
    std::string received;
    Exchange how;
    try {
      how = peer_->exchange(sent ? std::string_view() : std::string_view(request),
                            Clock::now() + std::chrono::duration_cast<Clock::duration>(within), max_line, received);
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
          return fmt::format("the subject did not answer request {} ({}) within {:g} s", id, op, within.count());
        });
      case Exchange::too_long:
        fail(request, received, [&](const std::string&) {
          return fmt::format("the subject wrote more than {} MiB without a newline answering request {} ({})",
                             max_line >> 20, id, op);
        });
      case Exchange::closed:
      case Exchange::stdin_closed:
        break;
    }
    const bool unsent = how == Exchange::stdin_closed;
    fail(request, received, [&](const std::string& status) {
      if (status == "still running" || status == kNotAChild) {
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
    const std::string status = peer_->stop(grace);
    failure_.emplace(describe(status), shown_request(request), received.empty() ? "(nothing)" : show_bytes(received),
                     peer_->stderr_tail(), status);
    throw *failure_;
  }

  SubjectInfo info_;
  json hello_;          // the hello result as answered
  bool forks_ = false;  // the hello declared fork
  std::chrono::duration<double> timeout_;
  std::unique_ptr<Peer> peer_;
  std::optional<SubjectFailure> failure_;
  bool stopped_ = false;  // stopped after a bad declaration
  Arrays arrays_ = Arrays::json;
  RequestId next_id_ = 0;
  std::deque<Posted> posted_;  // batches sent and not yet collected, oldest first
};

// "READ,WRITE" as two descriptor numbers, checked to be open the right way.
std::pair<int, int> parse_fds(std::string_view fds) {
  const std::string spec = spec_of(SubjectKind::fd, fds);
  const std::string syntax = subject_spec_syntax({SubjectKind::fd}), example = spec_of(SubjectKind::fd, "5,6");
  const auto comma = fds.find(',');
  auto number = [&](std::string_view text) {
    int fd = -1;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), fd);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || fd < 0) {
      throw BadSubjectSpec(fmt::format("'{}' is not {} with two descriptor numbers (e.g. {})", spec, syntax, example));
    }
    return fd;
  };
  if (comma == std::string_view::npos) {
    throw BadSubjectSpec(fmt::format("'{}' is not {} with two descriptor numbers (e.g. {})", spec, syntax, example));
  }
  const int read_fd = number(fds.substr(0, comma)), write_fd = number(fds.substr(comma + 1));
  for (int fd : {read_fd, write_fd}) {
    if (fd <= 2) {
      throw BadSubjectSpec(fmt::format("'{}': descriptor {} is pecheck's own {}; pass descriptors above 2", spec, fd,
                                       fd == 0 ? "stdin" : fd == 1 ? "stdout" : "stderr"));
    }
  }
  auto check = [&](int fd, int unwanted, const char* role) {
    const int flags = fcntl(fd, F_GETFL);
    if (flags < 0) {
      throw BadSubjectSpec(fmt::format("'{}': descriptor {} is not open in pecheck (the process that starts pecheck "
                                       "must leave it open for it, e.g. Python's pass_fds)", spec, fd));
    }
    if ((flags & O_ACCMODE) == unwanted) {
      throw BadSubjectSpec(fmt::format("'{}': descriptor {} is not open for {}", spec, fd, role));
    }
  };
  check(read_fd, O_WRONLY, "reading (READ comes first)");
  check(write_fd, O_RDONLY, "writing (WRITE comes second)");
  return {read_fd, write_fd};
}

// The subject after its hello: as it is, or, where it declared fork and the
// options use it, kept as a zygote whose copies answer every request.
// (A zygote needs a private folder for its copies' sockets: where none can be
// made, the subject is talked to as one that makes no copies.)
SubjectPtr as_declared(std::unique_ptr<ProcessSubject> subject, const SubjectOptions& options) {
  if (!subject->forks()) return subject;
  if (options.fork) {
    std::optional<SocketFolder> sockets;
    try {
      sockets.emplace();
    } catch (const std::system_error&) {
    }
    if (sockets) return make_forking_subject(std::make_shared<Zygote>(std::move(subject), std::move(*sockets), options));
  }
  subject->forget_fork();
  return subject;
}

}  // namespace

int kill_leftover_processes() { return process::kill_orphans(std::chrono::seconds(5)); }

SubjectPtr make_process_subject(const std::string& command, const SubjectOptions& options) {
  auto subject = std::make_unique<ProcessSubject>(SubjectSpec{SubjectKind::cmd, command}, options);
  std::unique_ptr<Peer> child;
  try {
    child = std::make_unique<ChildProcess>(command);
  } catch (const std::system_error& e) {
    throw SubjectFailure(fmt::format("could not start the subject: {}", e.what()), shown_request(hello_request(0)),
                         "", "", "not started");
  }
  subject->start(std::move(child));
  return as_declared(std::move(subject), options);
}

SubjectPtr make_fd_subject(std::string_view fds, const SubjectOptions& options) {
  const auto [read_fd, write_fd] = parse_fds(fds);
  auto subject = std::make_unique<ProcessSubject>(SubjectSpec{SubjectKind::fd, std::string(fds)}, options);
  std::unique_ptr<Peer> peer;
  try {
    peer = std::make_unique<FdPeer>(read_fd, write_fd);
  } catch (const std::system_error& e) {
    throw SubjectFailure(fmt::format("could not use {}: {}", spec_of(SubjectKind::fd, fds), e.what()),
                         shown_request(hello_request(0)), "", "", std::string(kNotAChild));
  }
  subject->start(std::move(peer));
  return as_declared(std::move(subject), options);
}

namespace process {

SubjectPtr make_copy_subject(std::unique_ptr<Peer> peer, const SubjectInfo& zygote, const json& expected,
                             const SubjectOptions& options) {
  auto subject = std::make_unique<ProcessSubject>(zygote.spec, options);
  subject->start(std::move(peer), &expected);
  return subject;
}

}  // namespace process

}  // namespace pecheck
