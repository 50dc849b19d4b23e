// Round trips through protocol v2 (src/subjects/serve.cpp against the process
// subject): an in-process subject served by `pecheck serve` (a child) or by
// a thread over fd:READ,WRITE and spoken to by the process subject has the
// same SubjectInfo and gives the same answers, bit for bit, as the subject
// itself — an encoder, a rotary with declared conventions, an attention, and
// a module with bias, forward and decode/reset; batches give, call for call,
// what the calls give one by one, in one line; and a batch answer that
// breaks the protocol in one item is a subject failure naming that item.
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>

#include "pecheck/core/json.h"
#include "pecheck/protocol/calls.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/process_subject.h"
#include "pecheck/subjects/serve.h"
#include "pecheck/subjects/typed_subject.h"
#include "support/cli.h"
#include "support/served_in_thread.h"

// The CLI keeps state in its working directory (.pecheck/): this suite's runs get a fresh one.
BOOST_AUTO_TEST_SUITE(test_protocol_v2_serve, *boost::unit_test::fixture<pecheck::testing::FreshWorkingDirectory>())

using namespace pecheck;
using testing::ServedInThread;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

bool same_bits(const Matrix& a, const Matrix& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  for (Eigen::Index i = 0; i < a.size(); ++i) {
    const double x = a.data()[i], y = b.data()[i];
    if (std::isnan(x) != std::isnan(y)) return false;
    if (!std::isnan(x) && std::memcmp(&x, &y, sizeof x) != 0) return false;
  }
  return true;
}

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};

// Two answers are the same: the same kind, values bit for bit, the same refusal.
bool same(const Answer& a, const Answer& b) {
  if (a.index() != b.index()) return false;
  return std::visit(Overloaded{[&](const Matrix& m) { return same_bits(m, std::get<Matrix>(b)); },
                               [&](const Batch& x) {
                                 const Batch& y = std::get<Batch>(b);
                                 if (x.size() != y.size()) return false;
                                 for (std::size_t i = 0; i < x.size(); ++i) {
                                   if (!same_bits(x[i], y[i])) return false;
                                 }
                                 return true;
                               },
                               [&](const Vector& v) {
                                 return same_bits(Matrix(v.transpose()), Matrix(std::get<Vector>(b).transpose()));
                               },
                               [&](const Done&) { return true; },
                               [&](const Refused& r) { return r.reason == std::get<Refused>(b).reason; }},
                    a);
}

std::string describe(const Answer& a) {
  return std::visit(Overloaded{[](const Matrix& m) { return fmt::format("matrix {}×{}", m.rows(), m.cols()); },
                               [](const Batch& x) { return fmt::format("batch of {}", x.size()); },
                               [](const Vector& v) { return fmt::format("vector of {}", v.size()); },
                               [](const Done&) { return std::string("done"); },
                               [](const Refused& r) { return "refused: " + r.reason; }},
                    a);
}

// The protocol ops of an in-process subject (logits and combine do not travel).
unsigned protocol_ops(unsigned ops) {
  return ops & ~(static_cast<unsigned>(Op::logits) | static_cast<unsigned>(Op::combine));
}

// What the wire carries of a SubjectInfo is the same on both sides.
void check_same_info(const SubjectInfo& in, const SubjectInfo& out) {
  BOOST_TEST(out.name == in.name);
  BOOST_TEST(out.ops == protocol_ops(in.ops));
  BOOST_TEST((out.dtype == in.dtype));
  BOOST_TEST((out.compute.angles == in.compute.angles));
  BOOST_TEST((out.compute.accumulate == in.compute.accumulate));
  BOOST_TEST((out.layout == in.layout));
  BOOST_TEST(out.amplitude == in.amplitude);
  BOOST_TEST(out.encode.base == in.encode.base);
  BOOST_TEST((out.encode.schedule == in.encode.schedule));
  BOOST_TEST(out.encode.position_offset == in.encode.position_offset);
  BOOST_TEST((out.encode_layout() == in.encode_layout()));
  BOOST_TEST(out.rotate.base == in.rotate.base);
  BOOST_TEST((out.rotate.rotary_dim == in.rotate.rotary_dim));
  BOOST_TEST((out.rotate.rotary_fraction == in.rotate.rotary_fraction));
  BOOST_TEST((out.rotate_layout() == in.rotate_layout()));
  BOOST_TEST((out.rotate.scaling.type == in.rotate.scaling.type));
  BOOST_TEST(out.rotate.scaling.factor == in.rotate.scaling.factor);
  BOOST_TEST(out.rotate.scaling.original_max_position == in.rotate.scaling.original_max_position);
  BOOST_TEST(out.bias.has_value() == in.bias.has_value());
  if (out.bias && in.bias) {
    BOOST_TEST((out.bias->scheme == in.bias->scheme));
    BOOST_TEST(out.bias->heads == in.bias->heads);
  }
  BOOST_TEST(out.forward.has_value() == in.forward.has_value());
  if (out.forward && in.forward) {
    BOOST_TEST(out.forward->causal == in.forward->causal);
    BOOST_TEST((out.forward->positional == in.forward->positional));
    BOOST_TEST(out.forward->width == in.forward->width);
  }
  // Every path the subject declares is declared over the wire too (serve also
  // declares what a set convention implies, e.g. an amplitude other than 1).
  for (const auto& path : in.declared) {
    BOOST_TEST(std::count(out.declared.begin(), out.declared.end(), path) == 1, path);
  }
  BOOST_TEST(std::is_sorted(out.declared.begin(), out.declared.end()));
  // serve accepts batches and b64le arrays.
  BOOST_TEST(out.batch);
  BOOST_TEST(out.b64le);
}

// Every call gives the same answer in process and over the protocol, one by
// one and batched (the batch in a single request line).
void check_same_answers(Subject& in, Subject& out, const std::vector<Call>& calls, const ServedInThread* served) {
  for (const Call& call : calls) {
    const Answer want = in.perform(call), got = out.perform(call);
    BOOST_TEST(same(want, got), op_name(call) << ": " << describe(want) << " vs " << describe(got));
  }
  const int lines_before = served ? served->lines() : 0;
  const std::vector<Answer> batched = perform_all(out, calls);
  if (served) BOOST_TEST(served->lines() == lines_before + 1, "one batch request for all the calls");
  BOOST_REQUIRE(batched.size() == calls.size());
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const Answer want = in.perform(calls[i]);
    BOOST_TEST(same(want, batched[i]), "batch item " << i << " (" << op_name(calls[i]) << "): " << describe(want)
                                                      << " vs " << describe(batched[i]));
  }
}

Matrix random_matrix(Eigen::Index rows, Eigen::Index cols, double scale = 1) {
  Matrix m = Matrix::Random(rows, cols) * scale;
  return m;
}

std::string served_by_pecheck(const std::string& spec) {
  const char* bin = std::getenv("PECHECK_BIN");
  if (bin == nullptr) throw std::runtime_error("PECHECK_BIN is not set (run through ctest)");
  return std::string("cmd:") + bin + " serve " + spec;
}

// A rotary that declares its conventions: base 10000, only the first 4
// features rotate (pairs (i, i+2) in halves layout), positions divided by 2
// (linear scaling). It records the seq_len each request carried.
class DeclaredRotary : public TypedSubject {
 public:
  DeclaredRotary() {
    info_.name = "declared-rotary";
    info_.spec = cpp_spec("declared-rotary");
    info_.ops = static_cast<unsigned>(Op::rotate);
    info_.dtype = Dtype::float64;
    info_.compute.angles = Dtype::float64;
    info_.rotate.base = 10000;
    info_.rotate.rotary_dim = 4;
    info_.rotate.layout = Layout::halves;
    info_.rotate.scaling.type = ScalingType::linear;
    info_.rotate.scaling.factor = 2;
    info_.declared = {"compute.angles", "params.rotate.base", "params.rotate.rotary_dim", "params.rotate.layout",
                      "params.rotate.scaling.type", "params.rotate.scaling.factor"};
  }
  const SubjectInfo& info() const override { return info_; }
  Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override {
    seq_lens.push_back(seq_len);
    if (x.cols() < 4) throw Refusal("declared-rotary needs at least 4 features");
    Matrix out = x;
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
      for (int i = 0; i < 2; ++i) {
        const double angle = static_cast<double>(positions[static_cast<std::size_t>(r)]) / 2 * std::pow(10000.0, -2.0 * i / 4);
        const double a = x(r, i), b = x(r, i + 2);
        out(r, i) = a * std::cos(angle) - b * std::sin(angle);
        out(r, i + 2) = a * std::sin(angle) + b * std::cos(angle);
      }
    }
    return out;
  }
  std::vector<std::optional<Position>> seq_lens;

 private:
  SubjectInfo info_;
};

// A module with an ALiBi-like bias, a forward and a decoding cache, simple
// enough to check by eye; what matters here is what travels.
class SmallModule : public TypedSubject {
 public:
  SmallModule() {
    info_.name = "small-module";
    info_.spec = cpp_spec("small-module");
    info_.ops = static_cast<unsigned>(Op::bias) | static_cast<unsigned>(Op::forward) | static_cast<unsigned>(Op::decode);
    info_.dtype = Dtype::float32;
    info_.compute.accumulate = Dtype::float64;
    info_.bias = BiasConvention{BiasScheme::alibi, 2, 32, 128, true};
    info_.forward = ForwardConvention{true, Positional::relative, 3};
    info_.declared = {"compute.accumulate", "params.bias.heads", "params.bias.scheme", "params.forward.causal",
                      "params.forward.positional", "params.forward.width"};
  }
  const SubjectInfo& info() const override { return info_; }
  Matrix bias(int n, int m, int head) override {
    Matrix b(n, m);
    const double slope = std::pow(2.0, -8.0 * (head + 1) / 2);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < m; ++j) b(i, j) = -slope * std::abs(i - j);
    }
    return b;
  }
  // out[b][t] = (x·(position+1), Σx, padding ? 1 : 0): width 5 out of 3.
  Batch forward(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding) override {
    if (!x.empty() && x.front().cols() != 3) throw Refusal("small-module takes width 3");
    Batch out;
    for (std::size_t b = 0; b < x.size(); ++b) {
      Matrix y(x[b].rows(), 5);
      for (Eigen::Index t = 0; t < x[b].rows(); ++t) {
        y.row(t).head(3) = x[b].row(t) * static_cast<double>(positions[b][static_cast<std::size_t>(t)] + 1);
        y(t, 3) = x[b].row(t).sum();
        y(t, 4) = padding(static_cast<Eigen::Index>(b), t) ? 1.0 : 0.0;
      }
      out.push_back(y);
    }
    return out;
  }
  // The running sum of the session's tokens, scaled by the position.
  Vector decode(const std::string& session, const Vector& x, Position position) override {
    Vector& sum = sessions_[session];
    if (sum.size() == 0) sum = Vector::Zero(x.size());
    sum += x;
    return sum * static_cast<double>(position + 1);
  }
  void reset(const std::string& session) override { sessions_.erase(session); }

 private:
  SubjectInfo info_;
  std::map<std::string, Vector> sessions_;
};

bool no_children() { return waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD; }

}  // namespace

BOOST_AUTO_TEST_CASE(an_encoder_served_by_pecheck_serve_is_the_same_subject) {
  for (const std::string name : {"sinusoidal-scaled", "sinusoidal-halves"}) {
    BOOST_TEST_CONTEXT(name) {
      const auto in = make_subject("builtin:" + name);
      const auto out = make_subject(served_by_pecheck("builtin:" + name));
      check_same_info(in->info(), out->info());
      BOOST_TEST(format_spec(out->info().spec) == served_by_pecheck("builtin:" + name));
      const std::vector<Call> calls{EncodeCall{16, {0, 5, 10, 9999}, 10000}, EncodeCall{3, {1}, 2},
                                    EncodeCall{2, {}, 1}, EncodeCall{64, {123456789}, 123456790},
                                    RotateCall{{0}, Matrix::Ones(1, 2), 1}};
      check_same_answers(*in, *out, calls, nullptr);
    }
  }
  BOOST_TEST(no_children());
}

BOOST_AUTO_TEST_CASE(attention_served_by_pecheck_serve_is_the_same_subject) {
  const auto in = make_subject("builtin:attention");
  const auto out = make_subject(served_by_pecheck("builtin:attention"));
  check_same_info(in->info(), out->info());
  BoolMatrix allowed = BoolMatrix::Constant(3, 4, true);
  allowed(0, 3) = allowed(2, 0) = false;
  Matrix v = random_matrix(4, 5);
  v(1, 1) = std::numeric_limits<double>::quiet_NaN();
  const std::vector<Call> calls{
      AttentionCall{random_matrix(3, 2), random_matrix(4, 2), random_matrix(4, 5), AttentionMask::none()},
      AttentionCall{random_matrix(4, 3, 30), random_matrix(4, 3, 30), random_matrix(4, 1), AttentionMask::causal()},
      AttentionCall{random_matrix(3, 2), random_matrix(4, 2), v, AttentionMask::boolean(allowed)},
      EncodeCall{2, {0}, 1}};
  check_same_answers(*in, *out, calls, nullptr);
}

BOOST_AUTO_TEST_CASE(a_rotary_with_declared_conventions_is_the_same_subject_over_fds) {
  DeclaredRotary in;
  ServedInThread served(in);
  {
    const auto out = make_subject(served.spec());
    check_same_info(in.info(), out->info());
    BOOST_TEST(format_spec(out->info().spec) == served.spec());
    in.seq_lens.clear();
    const std::vector<Call> calls{RotateCall{{0, 7, 7, 3}, random_matrix(4, 6), std::nullopt},
                                  RotateCall{{100000}, random_matrix(1, 4), 100001}, RotateCall{{1}, random_matrix(1, 2), 5},
                                  BiasCall{2, 2, 0}};
    check_same_answers(in, *out, calls, &served);
    // seq_len travels exactly when it is given: each call in process then
    // over the wire; the batch over the wire; the calls in process again.
    const std::vector<std::optional<Position>> want{std::nullopt, std::nullopt, 100001, 100001, 5, 5,
                                                    std::nullopt, 100001, 5, std::nullopt, 100001, 5};
    BOOST_TEST(in.seq_lens.size() == want.size());
    for (std::size_t i = 0; i < std::min(want.size(), in.seq_lens.size()); ++i) {
      BOOST_TEST((in.seq_lens[i] == want[i]), "call " << i);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_module_s_bias_forward_and_decoding_cache_travel_exactly) {
  SmallModule in;
  SmallModule twin;  // answers in process, with its own sessions
  ServedInThread served(in);
  const auto out = make_subject(served.spec());
  check_same_info(twin.info(), out->info());
  ForwardCall padded;
  padded.x = {random_matrix(3, 3), random_matrix(3, 3)};
  padded.positions = {{0, 1, 2}, {0, 0, 1}};
  padded.padding = BoolMatrix::Constant(2, 3, true);
  padded.padding(1, 0) = false;
  ForwardCall plain;
  plain.x = {random_matrix(2, 3)};
  Vector token(3);
  token << 0.5, -1.0, 1e-310;
  const std::vector<Call> calls{BiasCall{3, 5, 1},
                                BiasCall{0, 0, 0},
                                padded,
                                plain,
                                ForwardCall{{random_matrix(2, 4)}, {}, {}},  // width 4: the module refuses
                                DecodeCall{"s1", token, 0},
                                DecodeCall{"s1", token, 1},
                                DecodeCall{"s2", token, 7},
                                ResetCall{"s1"},
                                DecodeCall{"s1", token, 0},
                                EncodeCall{2, {0}, 1}};
  for (const Call& call : calls) {
    const Answer want = twin.perform(call), got = out->perform(call);
    BOOST_TEST(same(want, got), op_name(call) << ": " << describe(want) << " vs " << describe(got));
  }
  ask::reset(twin, "s1");
  ask::reset(twin, "s2");
  ask::reset(*out, "s1");
  ask::reset(*out, "s2");
  const int before = served.lines();
  const std::vector<Answer> batched = perform_all(*out, calls);
  BOOST_TEST(served.lines() == before + 1);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const Answer want = twin.perform(calls[i]);
    BOOST_TEST(same(want, batched[i]), "batch item " << i << ": " << describe(want) << " vs " << describe(batched[i]));
  }
  // A head beyond the declared ones is refused without asking.
  const int lines = served.lines();
  BOOST_TEST(std::get<Refused>(out->perform(BiasCall{1, 1, 2})).reason ==
             "head 2 is not one of the subject's 2 heads (0-based)");
  BOOST_TEST(served.lines() == lines);
  BOOST_TEST(contains(std::get<Refused>(batched[4]).reason, "small-module takes width 3"));
  BOOST_TEST(std::get<Refused>(batched[10]).reason == "small-module does not implement encode");
  // The caller's mistakes are not the subject's: a ragged tensor is refused before it is sent.
  BOOST_CHECK_THROW(ask::forward(*out, {random_matrix(2, 3), random_matrix(3, 3)}, {}, {}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(a_subject_that_does_not_batch_gets_its_calls_one_by_one) {
  SmallModule in;
  // serve without batch: hello says "batch": false.
  ServedInThread served([&in](std::string_view line, bool& shutdown) {
    std::string reply = answer(in, line, shutdown);
    if (contains(reply, "\"batch\":true")) reply.replace(reply.find("\"batch\":true"), 12, "\"batch\":false");
    return reply;
  });
  const auto out = make_subject(served.spec());
  BOOST_TEST(!out->info().batch);
  const int before = served.lines();
  const auto answers = perform_all(*out, std::vector<Call>{BiasCall{1, 2, 0}, BiasCall{2, 1, 1}, BiasCall{1, 1, 0}});
  BOOST_TEST(served.lines() == before + 3);
  BOOST_TEST(std::get<Matrix>(answers[1]).rows() == 2);
}

BOOST_AUTO_TEST_CASE(a_broken_batch_answer_is_a_subject_failure_naming_the_item) {
  DeclaredRotary in;
  struct Fault {
    std::string from, to, message;
  };
  const Fault faults[] = {
      {"[{\"result\":", "[{\"result\":[[1.0]]},{\"result\":", "a batch result of 3 items for 2 requests"},
      {"]},{\"result\":[[", "]},{\"result\":[[7.0],[", "(item 1, rotate)"},
      {"{\"result\":[[", "{\"error\":\"no\",\"result\":[[", "a batch item 0 with both result and error"},
  };
  for (const auto& fault : faults) {
    BOOST_TEST_CONTEXT(fault.message) {
      ServedInThread served([&](std::string_view line, bool& shutdown) {
        std::string reply = answer(in, line, shutdown);
        // No b64le: the faults are planted in JSON numbers.
        const std::string arrays = "\"arrays\":[\"b64le\"],";
        if (const auto at = reply.find(arrays); at != std::string::npos) reply.erase(at, arrays.size());
        if (contains(std::string(line), "\"op\":\"batch\"")) {
          const auto at = reply.find(fault.from);
          if (at != std::string::npos) reply.replace(at, fault.from.size(), fault.to);
        }
        return reply;
      });
      const auto out = make_subject(served.spec());
      try {
        perform_all(*out, std::vector<Call>{RotateCall{{1}, Matrix::Ones(1, 4), std::nullopt},
                                            RotateCall{{2}, Matrix::Ones(1, 4), std::nullopt}});
        BOOST_FAIL("expected a SubjectFailure");
      } catch (const SubjectFailure& f) {
        BOOST_TEST(contains(f.what(), "answered request 1 (batch) with"), f.what());
        BOOST_TEST(contains(f.what(), fault.message), f.what());
        BOOST_TEST(contains(f.request, "\"op\":\"batch\""));
        BOOST_TEST(f.exit_status == "not a child of pecheck");
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(pecheck_checks_a_served_subject_end_to_end) {
  const std::string dir = testing::temp_dir("pecheck-serve-v2");
  const auto r = testing::run_cli({"run", "--subject", served_by_pecheck("builtin:rope-halves"), "--properties",
                                   "rope.*", "--cases", "30", "--report-dir", dir});
  BOOST_TEST(r.exit_code == 0, r.output);
}

BOOST_AUTO_TEST_SUITE_END()  // test_protocol_v2_serve
