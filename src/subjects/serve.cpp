#include "pecheck/subjects/serve.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <istream>
#include <optional>
#include <ostream>

#include "pecheck/core/json.h"
#include "pecheck/protocol/calls.h"
#include "protocol/codec.h"
#include "protocol/hello.h"
#include "protocol/responses.h"
#include "protocol/wire.h"
#include "subjects/fd_streambuf.h"

namespace pecheck {

namespace {

using process::Arrays;
using process::Buffer;

json hello(const SubjectInfo& info, const json& request, bool fork) {
  int protocol = 1;
  if (request.contains("protocol")) {
    const json& asked = request["protocol"];
    if (asked != 1 && asked != 2) {
      throw Refusal(fmt::format("protocol {} is not supported; this subject speaks 1 and 2", process::brief(asked)));
    }
    protocol = asked.get<int>();
  }
  return process::hello_result(info, protocol, /*batch=*/true, /*b64le=*/true, fork && protocol >= 2);
}

// The call a request (or a batch item) asks for, read by its codec.
Call read_call(const json& r, std::string_view op) {
  const auto readers = readers_named(op);
  if (!readers) throw Refusal(fmt::format("unknown op '{}'", op));
  return readers->read(r);
}

// Whether a request sent any array as b64le: its answer then comes back so.
bool uses_b64le(const json& r) {
  for (const char* key : {"x", "q", "k", "v", "grad"}) {
    if (r.contains(key) && r[key].is_object()) return true;
  }
  return false;
}

void put_value(Buffer& out, const Answer& a, Arrays arrays) {
  if (const auto* m = std::get_if<Matrix>(&a)) process::put_matrix(out, *m, arrays);
  else if (const auto* b = std::get_if<Batch>(&a)) process::put_tensor(out, *b, arrays);
  else if (const auto* v = std::get_if<Vector>(&a)) process::put_vector(out, *v, arrays);
  else process::put(out, "null");
}

std::string error_text(const std::string& why) {
  return json(why).dump(-1, ' ', false, json::error_handler_t::replace);
}

// One call read and performed: its answer, or a refusal with the reason.
Answer perform_request(Subject& subject, const json& r, std::string_view op, std::optional<Call>& read) {
  try {
    const Call& call = read.emplace(read_call(r, op));
    Answer a = subject.perform(call);
    // A multi-head request is answered as H×n×d_v.
    if (const auto* c = std::get_if<AttentionCall>(&call); c && codec::head_tensors(r.at("q"))) {
      if (const auto* m = std::get_if<Matrix>(&a)) return columns_to_heads(*m, c->heads);
    }
    return a;
  } catch (const json::exception& e) {
    return Refused{fmt::format("malformed {} request: {}", op, e.what())};
  } catch (const process::Breach& e) {
    return Refused{fmt::format("malformed {} request: {}", op, e.what())};
  } catch (const Malformed& e) {
    return Refused{fmt::format("malformed {} request: {}", op, e.what())};
  } catch (const Refusal& e) {
    return Refused{e.what()};
  } catch (const std::invalid_argument& e) {
    return Refused{fmt::format("malformed {} request: {}", op, e.what())};
  }
}

// `"result":…` or `"error":"…"` for one answer, in its codec's form where it
// has one (a backward's object of arrays).
void put_outcome(Buffer& out, const Answer& a, Arrays arrays, const json& r = json(), const Call* call = nullptr) {
  if (const auto* refused = std::get_if<Refused>(&a)) {
    process::put(out, "\"error\":");
    process::put(out, error_text(refused->reason));
    return;
  }
  process::put(out, "\"result\":");
  if (call) {
    const bool put = std::visit(
        [&](const auto& c) {
          if (!c.codec().put_answer) return false;
          c.codec().put_answer(out, c, a, r, arrays);
          return true;
        },
        *call);
    if (put) return;
  }
  put_value(out, a, arrays);
}

std::string batch_answer(Subject& subject, const json& id, const json& request) {
  if (!request.contains("requests") || !request["requests"].is_array()) {
    return json{{"id", id}, {"error", "malformed batch request: requests must be a list"}}.dump();
  }
  Buffer out;
  fmt::format_to(std::back_inserter(out), "{{\"id\":{},\"result\":[", id.dump());
  bool first = true;
  for (const json& item : request["requests"]) {
    if (!first) out.push_back(',');
    first = false;
    out.push_back('{');
    const std::string op = item.is_object() && item.contains("op") && item["op"].is_string() ? item["op"].get<std::string>() : "";
    if (op == "hello" || op == "shutdown" || op == "batch") {
      put_outcome(out, Refused{fmt::format("'{}' cannot be a batch item", op)}, Arrays::json);
    } else {
      std::optional<Call> call;
      const Answer a = perform_request(subject, item, op, call);
      put_outcome(out, a, item.is_object() && uses_b64le(item) ? Arrays::b64le : Arrays::json, item,
                  call ? &*call : nullptr);
    }
    out.push_back('}');
  }
  process::put(out, "]}");
  return fmt::to_string(out);
}

// A Unix stream socket connected to `path`, or -1.
int connect_to(const std::string& path) {
  sockaddr_un address{};
  if (path.empty() || path.size() >= sizeof address.sun_path) return -1;
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// The forked copy: stderr to the `log` socket, the conversation on `socket`,
// the zygote's stdin and stdout left alone. Returns its exit status.
int serve_copy(Subject& subject, const std::string& socket, const std::string& log, std::ostream& log_stream) {
  // A copy does not outlive its zygote.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  const int log_fd = connect_to(log);
  if (log_fd < 0) {
    log_stream << "pecheck serve: the forked copy cannot connect to " << log << ": " << std::strerror(errno) << "\n"
               << std::flush;
    return 3;
  }
  dup2(log_fd, STDERR_FILENO);
  close(log_fd);
  const int conversation = connect_to(socket);
  if (conversation < 0) {
    log_stream << "pecheck serve: the forked copy cannot connect to " << socket << ": " << std::strerror(errno)
               << "\n" << std::flush;
    return 3;
  }
  if (const int null = open("/dev/null", O_RDONLY | O_CLOEXEC); null >= 0) {
    dup2(null, STDIN_FILENO);
    close(null);
  }
  dup2(STDERR_FILENO, STDOUT_FILENO);  // a stray write to stdout lands in the copy's log, not the zygote's answers
  FdStreambuf in_buffer(conversation), out_buffer(conversation);
  std::istream in(&in_buffer);
  std::ostream out(&out_buffer);
  // A copy answers hello as its zygote did (it could fork fresh copies too: it has answered nothing else).
  const int status = serve(subject, in, out, log_stream, ServeOptions{/*fork=*/true});
  out.flush();
  close(conversation);
  return status;
}

// The answer to a fork request: the copy's pid (the copy itself serves its
// conversation and exits here).
std::string fork_answer(Subject& subject, const json& request, std::ostream& out, std::ostream& log) {
  const json id = request.contains("id") ? request["id"] : json();
  auto refuse = [&](const std::string& why) { return json{{"id", id}, {"error", why}}.dump(); };
  if (!request.contains("socket") || !request["socket"].is_string() || !request.contains("stderr") ||
      !request["stderr"].is_string()) {
    return refuse("malformed fork request: socket and stderr must be socket paths");
  }
  const auto reap = request.find("reap");
  if (reap != request.end() && (!reap->is_array() || !std::all_of(reap->begin(), reap->end(), [](const json& pid) {
                                  return pid.is_number_integer() && pid.get<long long>() > 0;
                                }))) {
    return refuse("malformed fork request: reap must be a list of process ids");
  }
  if (!fork_safe()) return refuse("this process runs more than one thread now: it cannot fork a copy safely");
  if (reap == request.end()) {
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
      // copies that ended: reaped
    }
  } else {
    // Only those listed: how the others ended is for pecheck to read first.
    for (const json& pid : *reap) waitpid(static_cast<pid_t>(pid.get<long long>()), nullptr, WNOHANG);
  }
  out.flush();
  log.flush();
  const pid_t pid = fork();
  if (pid < 0) return refuse(fmt::format("fork failed: {}", std::strerror(errno)));
  if (pid == 0) {
    _exit(serve_copy(subject, request["socket"].get<std::string>(), request["stderr"].get<std::string>(), log));
  }
  return fmt::format("{{\"id\":{},\"result\":{{\"pid\":{}}}}}", id.dump(), pid);
}

std::string answer_line(Subject& subject, std::string_view request_line, bool& shutdown, bool fork);

}  // namespace

bool fork_safe() {
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return false;
  int threads = 0;
  while (const dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] != '.') ++threads;
  }
  closedir(tasks);
  return threads == 1;
}

std::string quote_non_finite_tokens(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  bool in_string = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < line.size()) out += line[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    bool replaced = false;
    for (std::string_view token : {"-Infinity", "Infinity", "NaN"}) {
      if (line.substr(i, token.size()) == token) {
        fmt::format_to(std::back_inserter(out), "\"{}\"", token);
        i += token.size() - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += c;
  }
  return out;
}

std::string answer(Subject& subject, std::string_view request_line, bool& shutdown) {
  return answer_line(subject, request_line, shutdown, false);
}

namespace {

std::string answer_line(Subject& subject, std::string_view request_line, bool& shutdown, bool fork) {
  json request;
  try {
    request = process::parse_answer(request_line);
  } catch (const process::Breach& b) {
    return json{{"id", nullptr}, {"error", fmt::format("malformed request: {}", b.what())}}.dump();
  }
  const json id = request.is_object() && request.contains("id") ? request["id"] : json();
  const std::string op = request.is_object() && request.contains("op") && request["op"].is_string()
                             ? request["op"].get<std::string>() : "";
  if (op == "shutdown") {
    shutdown = true;
    return json{{"id", id}, {"result", nullptr}}.dump();
  }
  if (op == "hello") {
    try {
      return fmt::format("{{\"id\":{},\"result\":{}}}", id.dump(), hello(subject.info(), request, fork).dump());
    } catch (const Refusal& refusal) {
      return json{{"id", id}, {"error", refusal.what()}}.dump();
    }
  }
  if (op == "batch") return batch_answer(subject, id, request);
  if (op == "fork") {
    return json{{"id", id},
                {"error", fork ? "fork is answered only by a process that has answered nothing but hello and fork"
                               : "this subject does not fork copies (its hello does not declare fork)"}}
        .dump();
  }
  std::optional<Call> call;
  const Answer a = perform_request(subject, request, op, call);
  if (const auto* refused = std::get_if<Refused>(&a)) return json{{"id", id}, {"error", refused->reason}}.dump();
  Buffer out;
  fmt::format_to(std::back_inserter(out), "{{\"id\":{},", id.dump());
  put_outcome(out, a, uses_b64le(request) ? Arrays::b64le : Arrays::json, request, call ? &*call : nullptr);
  out.push_back('}');
  return fmt::to_string(out);
}

}  // namespace

int serve(Subject& subject, std::istream& in, std::ostream& out, std::ostream& log, const ServeOptions& options) {
  std::string line;
  bool shutdown = false;
  bool pristine = true;  // answered nothing but hello and fork: a zygote
  while (!shutdown && std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      if (options.fork && pristine) {
        // Lines before the first real request are small (hello, fork): read them twice.
        json request;
        try {
          request = process::parse_answer(line);
        } catch (const process::Breach&) {
        }
        const json op = request.is_object() && request.contains("op") ? request["op"] : json();
        if (op == "fork") {
          out << fork_answer(subject, request, out, log) << '\n' << std::flush;
          continue;
        }
        pristine = op == "hello";
      }
      out << answer_line(subject, line, shutdown, options.fork) << '\n' << std::flush;
    } catch (const SubjectFailure& f) {
      log << "pecheck serve: subject failure: " << f.what() << "\n";
      if (!f.request.empty()) log << "  request: " << f.request << "\n";
      log << std::flush;
      return 3;
    } catch (const std::exception& e) {
      log << "pecheck serve: subject failure: the subject threw: " << e.what() << "\n" << std::flush;
      return 3;
    }
  }
  return 0;
}

}  // namespace pecheck
