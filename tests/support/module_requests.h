#pragma once
// Requests and runs the Python module tests share (header-only): padded
// sequences with the positions their padding implies, decode runs, and a
// log line per run (its time and exit status).
#include <string>
#include <vector>

#include "support/module_checks.h"
#include "support/python_subject.h"

namespace pecheck::testing {

inline void log_run(const std::string& what, const PythonAnswers& answers) {
  BOOST_TEST_MESSAGE(what << " answered in " << answers.seconds << " s");
  BOOST_TEST(answers.exit_status == 0, what << ": " << answers.log);
}

inline Matrix permute_rows(const Matrix& m, const std::vector<Eigen::Index>& order) {
  Matrix out(m.rows(), m.cols());
  for (size_t r = 0; r < order.size(); ++r) out.row(static_cast<Eigen::Index>(r)) = m.row(order[r]);
  return out;
}
inline const std::vector<Eigen::Index> kShuffle = {4, 1, 5, 0, 3, 2};

// sequence with `pads` junk rows on the left (positions 0) or on the right.
inline json padded_request(const Matrix& sequence, int pads, bool left) {
  const auto n = sequence.rows();
  Matrix x(n + pads, sequence.cols());
  const Matrix junk = random_batch(99, 1, pads, static_cast<int>(sequence.cols()))[0] * 4.0;
  Positions positions(static_cast<size_t>(n + pads), 0);
  BoolMatrix padding = BoolMatrix::Constant(1, n + pads, false);
  const Eigen::Index first = left ? pads : 0;
  x.middleRows(first, n) = sequence;
  x.middleRows(left ? 0 : n, pads) = junk;
  for (Eigen::Index r = 0; r < n; ++r) {
    positions[static_cast<size_t>(first + r)] = r;
    padding(0, first + r) = true;
  }
  return forward_request({x}, {positions}, padding);
}

inline Matrix decoded_rows(const PythonAnswers& answers, int first_id, int count) {
  Matrix out(count, 0);
  for (int t = 0; t < count; ++t) {
    const Matrix row = matrix_from(json::array({answers.result(first_id + t)}));
    out.conservativeResize(count, row.cols());
    out.row(t) = row.row(0);
  }
  return out;
}

// forward of x (1×n) as request 1, then decode tokens 0..n−1 of session "s"
// as requests 2..n+1: the rows of both.
struct DecodeRun {
  Matrix forward, decoded;
  double scale;
};
inline DecodeRun forward_then_decode(const std::string& script, const Matrix& x) {
  const auto n = static_cast<int>(x.rows());
  std::vector<json> requests = {forward_request({x}, counting(1, n), all_real(1, n))};
  for (int t = 0; t < n; ++t) requests.push_back(decode_request("s", x.row(t).transpose(), t));
  const auto answers = run_python_subject({script}, requests);
  log_run(script, answers);
  DecodeRun run;
  run.forward = batch_from(answers.result(1))[0];
  run.decoded = decoded_rows(answers, 2, n);
  run.scale = run.forward.cwiseAbs().maxCoeff();
  return run;
}

}  // namespace pecheck::testing
