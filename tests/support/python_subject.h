#pragma once
// Drives a Python subject directly over its stdin and stdout (header-only):
// writes a hand-written hello, the given requests and a shutdown as JSON
// lines, runs `/usr/bin/python3 tests/subjects/serve_v2.py SCRIPT ARGS...`
// in the source tree (serve_v2.py uses adapters/python's serve once it
// speaks protocol 2, a stand-in until then) under a watchdog, and returns
// the answers by id. The tests judge the answers; this only carries them.
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "pecheck/core/json.h"
#include "pecheck/core/shell_quote.h"
#include "pecheck/core/vocabulary.h"
#include "support/cli.h"

namespace pecheck::testing {

struct PythonAnswers {
  json hello;                          // the hello result
  std::map<int, json> results;         // id -> result
  std::map<int, std::string> errors;   // id -> refusal
  std::string log;                     // the subject's stderr
  int exit_status = -1;
  double seconds = 0;

  const json& result(int id) const {
    const auto found = results.find(id);
    if (found == results.end()) {
      const auto refused = errors.find(id);
      throw std::runtime_error(fmt::format("no result for request {}{}; stderr: {}", id,
                                           refused != errors.end() ? fmt::format(" (refused: {})", refused->second)
                                                                   : std::string(),
                                           log));
    }
    return found->second;
  }
};

// requests[k] gets id k + 1 (hello is 0); the answers are keyed the same way.
inline PythonAnswers run_python_subject(const std::vector<std::string>& args, const std::vector<json>& requests) {
  const char* source = std::getenv("PECHECK_SOURCE_DIR");
  if (source == nullptr) throw std::runtime_error("PECHECK_SOURCE_DIR is not set (run through ctest)");
  const std::string dir = temp_dir("pecheck-python-subject");
  {
    std::ofstream in(dir + "/requests.jsonl");
    in << json{{"id", 0}, {"op", "hello"}, {"protocol", 2}}.dump() << "\n";
    for (size_t k = 0; k < requests.size(); ++k) {
      json request = requests[k];
      request["id"] = static_cast<int>(k + 1);
      in << request.dump() << "\n";
    }
    in << json{{"id", static_cast<int>(requests.size() + 1)}, {"op", "shutdown"}}.dump() << "\n";
  }
  // fmt::format, not "literal" + std::string: GCC 12 warns falsely (-Wrestrict) on the latter.
  // Plain JSON answers, which this helper reads; the b64le path has its own
  // tests (test_protocol_v2_python, test_protocol_v2_serve).
  std::string command = fmt::format(
      "cd {} && PECHECK_SUBJECT_B64LE=0 timeout -s KILL 60 /usr/bin/python3 tests/subjects/serve_v2.py",
      shell_quote(source));
  for (const auto& a : args) command += fmt::format(" {}", shell_quote(a));
  command += fmt::format(" < {} > {} 2> {}", shell_quote(dir + "/requests.jsonl"), shell_quote(dir + "/answers.jsonl"),
                         shell_quote(dir + "/stderr.txt"));
  PythonAnswers answers;
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system(command.c_str());
  answers.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  answers.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  answers.log = read_file(dir + "/stderr.txt");
  std::ifstream out(dir + "/answers.jsonl");
  for (std::string line; std::getline(out, line);) {
    const json answer = json::parse(line);
    const int id = answer.at("id").get<int>();
    if (answer.contains("error")) {
      answers.errors[id] = answer["error"].get<std::string>();
    } else if (id == 0) {
      answers.hello = answer.at("result");
    } else {
      answers.results[id] = answer.at("result");
    }
  }
  std::filesystem::remove_all(dir);
  return answers;
}

inline json to_json(const Matrix& m) {
  json rows = json::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    json row = json::array();
    for (Eigen::Index c = 0; c < m.cols(); ++c) row.push_back(m(r, c));
    rows.push_back(row);
  }
  return rows;
}
inline json to_json(const Batch& x) {
  json out = json::array();
  for (const auto& m : x) out.push_back(to_json(m));
  return out;
}
inline json to_json(const BoolMatrix& padding) {
  json out = json::array();
  for (Eigen::Index r = 0; r < padding.rows(); ++r) {
    json row = json::array();
    for (Eigen::Index c = 0; c < padding.cols(); ++c) row.push_back(static_cast<bool>(padding(r, c)));
    out.push_back(row);
  }
  return out;
}

inline Matrix matrix_from(const json& rows) {
  Matrix m(static_cast<Eigen::Index>(rows.size()), rows.empty() ? 0 : static_cast<Eigen::Index>(rows[0].size()));
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    for (Eigen::Index c = 0; c < m.cols(); ++c) m(r, c) = rows[static_cast<size_t>(r)][static_cast<size_t>(c)].get<double>();
  }
  return m;
}
inline Batch batch_from(const json& sequences) {
  Batch out;
  for (const auto& s : sequences) out.push_back(matrix_from(s));
  return out;
}

inline json forward_request(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding) {
  return {{"op", "forward"}, {"x", to_json(x)}, {"positions", positions}, {"padding", to_json(padding)}};
}
inline json decode_request(const std::string& session, const Vector& x, Position position) {
  return {{"op", "decode"}, {"session", session}, {"x", std::vector<double>(x.data(), x.data() + x.size())},
          {"position", position}};
}

}  // namespace pecheck::testing
