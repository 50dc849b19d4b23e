// The Python adapter speaking protocol v2 (adapters/python/pecheck_subject.py):
// its own self-check (tests/subjects/adapter_selfcheck.py: validation,
// hellos, seq_len, defaults, batches, b64le), then a NumPy module
// (tests/subjects/numpy_module.py) through the process subject — its
// declarations read, its bias, forward and decoding cache equal to the same
// formulas computed here bit for bit, with arrays in b64le and in JSON
// numbers, one by one and batched, a refusal refusing its item alone.
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "pecheck/protocol/calls.h"
#include "pecheck/subjects/process_subject.h"
#include "pecheck/subjects/typed_subject.h"

BOOST_AUTO_TEST_SUITE(test_protocol_v2_python)

using namespace pecheck;

namespace {

std::string source_dir() {
  const char* dir = std::getenv("PECHECK_SOURCE_DIR");
  if (dir == nullptr) throw std::runtime_error("PECHECK_SOURCE_DIR is not set (run through ctest)");
  return dir;
}

std::string script(const std::string& path) { return "/usr/bin/python3 '" + source_dir() + "/" + path + "'"; }

bool no_children() { return waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD; }

bool same_bits(const Matrix& a, const Matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

// What tests/subjects/numpy_module.py computes, written again here.
Matrix alibi(int n, int m, int head) {
  const double slope = std::pow(2.0, -8.0 * (head + 1) / 4);
  Matrix b(n, m);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) b(i, j) = -slope * std::abs(i - j);
  }
  return b;
}

Batch scaled(const ForwardCall& c) {
  const ForwardCall call = with_defaults(c);
  Batch out;
  for (std::size_t b = 0; b < call.x.size(); ++b) {
    Matrix y(call.x[b].rows(), 4);
    for (Eigen::Index t = 0; t < y.rows(); ++t) {
      y.row(t).head(3) = call.x[b].row(t) * (static_cast<double>(call.positions[b][static_cast<std::size_t>(t)]) + 1);
      y(t, 3) = call.padding(static_cast<Eigen::Index>(b), t) ? 1.0 : 0.0;
    }
    out.push_back(y);
  }
  return out;
}

void check_module(Subject& s) {
  const SubjectInfo& info = s.info();
  BOOST_TEST(info.name == "numpy-module");
  BOOST_TEST(info.supports(Op::bias));
  BOOST_TEST(info.supports(Op::forward));
  BOOST_TEST(info.supports(Op::decode));
  BOOST_TEST(info.batch);
  BOOST_REQUIRE(info.bias.has_value());
  BOOST_TEST(info.bias->heads == 4);
  BOOST_REQUIRE(info.forward.has_value());
  BOOST_TEST((info.forward->positional == Positional::absolute));
  BOOST_TEST(info.forward->width == 3);
  BOOST_TEST(info.declared.size() == 7u);  // compute, bias and forward params, and fork

  for (int head = 0; head < 4; ++head) BOOST_TEST(same_bits(ask::bias(s, 3, 5, head), alibi(3, 5, head)), "head " << head);
  ForwardCall call;
  call.x = {Matrix::Random(4, 3), Matrix::Random(4, 3)};
  call.positions = {{0, 1, 2, 3}, {0, 0, 0, 1}};
  call.padding = BoolMatrix::Constant(2, 4, true);
  call.padding(1, 0) = call.padding(1, 1) = false;
  const Batch want = scaled(call), got = ask::forward(s, call.x, call.positions, call.padding);
  BOOST_REQUIRE(got.size() == 2u);
  BOOST_TEST(same_bits(got[0], want[0]));
  BOOST_TEST(same_bits(got[1], want[1]));
  BOOST_CHECK_THROW(ask::forward(s, {Matrix::Ones(2, 5)}, {}, {}), Refusal);

  Vector a(3), b(3);
  a << 0.25, -1.5, 1e-300;
  b << 3.0, 0.0, -2.0;
  ask::reset(s, "s");
  BOOST_TEST((ask::decode(s, "s", a, 0) == a));
  BOOST_TEST((ask::decode(s, "s", b, 1) == Vector(2 * b + a)));
  ask::reset(s, "s");
  BOOST_TEST((ask::decode(s, "s", b, 1) == Vector(2 * b)));

  // Batched: each call's answer, a refusal alone.
  const std::vector<Call> calls{BiasCall{2, 2, 3}, ForwardCall{{Matrix::Ones(1, 7)}, {}, {}}, call, ResetCall{"t"},
                                DecodeCall{"t", a, 0}, BiasCall{1, 1, 4}};
  const std::vector<Answer> answers = perform_all(s, calls);
  BOOST_REQUIRE(answers.size() == calls.size());
  BOOST_TEST(same_bits(std::get<Matrix>(answers[0]), alibi(2, 2, 3)));
  BOOST_TEST(std::string(std::get<Refused>(answers[1]).reason).find("this module takes width 3, got 7") !=
             std::string::npos);
  BOOST_TEST(same_bits(std::get<Batch>(answers[2])[1], want[1]));
  BOOST_TEST(std::holds_alternative<Done>(answers[3]));
  BOOST_TEST((std::get<Vector>(answers[4]) == a));
  BOOST_TEST(std::get<Refused>(answers[5]).reason == "head 4 is not one of the subject's 4 heads (0-based)");
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_adapter_passes_its_self_check) {
  FILE* pipe = popen((script("tests/subjects/adapter_selfcheck.py") + " 2>&1").c_str(), "r");
  BOOST_REQUIRE(pipe != nullptr);
  std::string output;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, pipe)) output.append(buf, n);
  const int status = pclose(pipe);
  BOOST_TEST(WIFEXITED(status));
  BOOST_TEST(WEXITSTATUS(status) == 0, output);
  BOOST_TEST(output == "ok\n", output);
}

BOOST_AUTO_TEST_CASE(a_numpy_module_answers_with_b64le_arrays) {
  auto s = make_process_subject(script("tests/subjects/numpy_module.py"), {});
  BOOST_TEST(s->info().b64le);
  check_module(*s);
  s.reset();
  BOOST_TEST(no_children());
}

BOOST_AUTO_TEST_CASE(a_numpy_module_answers_with_json_numbers) {
  // An assignment first: this command runs under /bin/sh.
  auto s = make_process_subject("PECHECK_SUBJECT_B64LE=0 " + script("tests/subjects/numpy_module.py"), {});
  BOOST_TEST(!s->info().b64le);
  check_module(*s);
  s.reset();
  BOOST_TEST(no_children());
}

BOOST_AUTO_TEST_SUITE_END()  // test_protocol_v2_python
