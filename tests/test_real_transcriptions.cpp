// The transcriptions of published code in tests/subjects/real/ are faithful:
// each declares (in its serve() call) the convention of its C++ twin, and
// answers within the error bound of its declared precisions of the reference
// of that convention — or, for the planted ones, differs exactly where the
// published bug does. Each script runs under /usr/bin/python3 through
// tests/support/drive_transcription.py (the script's own functions, called as
// the version-2 adapter calls them), one process per script.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "pecheck/core/json.h"
#include "pecheck/core/tolerance.h"
#include "pecheck/reference/attention.h"
#include "pecheck/reference/rotary.h"
#include "pecheck/reference/sinusoidal.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/typed_subject.h"
#include "protocol/hello.h"
#include "support/bounds.h"
#include "support/cli.h"
#include "support/rotation_error.h"

BOOST_AUTO_TEST_SUITE(test_real_transcriptions)

using namespace pecheck;
using pecheck::testing::max_abs_diff;
using pecheck::testing::random_matrix;

namespace {

std::string source_dir() {
  const char* dir = std::getenv("PECHECK_SOURCE_DIR");
  if (dir == nullptr) throw std::runtime_error("PECHECK_SOURCE_DIR is not set (run through ctest)");
  return dir;
}

struct Transcript {
  json hello;                 // what the script passed to serve()
  std::vector<json> answers;  // {"result": …} or {"error": …}, one per request
};

// Runs tests/subjects/real/`script` on `requests`, in one process.
Transcript drive(const std::string& script, const std::vector<json>& requests) {
  const std::string dir = testing::temp_dir("transcription");
  const std::string input = dir + "/requests.jsonl";
  {
    std::ofstream out(input);
    for (const auto& r : requests) out << r.dump() << "\n";
  }
  const std::string command = "/usr/bin/python3 '" + source_dir() + "/tests/support/drive_transcription.py' '" +
                              source_dir() + "/tests/subjects/real/" + script + "' < '" + input + "' 2>'" + dir +
                              "/stderr.txt'";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot start " + command);
  std::string output;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status = pclose(pipe);
  BOOST_REQUIRE_MESSAGE(status == 0, script << " exited with " << status << ": " << testing::read_file(dir + "/stderr.txt"));
  std::istringstream lines(output);
  std::string line;
  Transcript t;
  std::getline(lines, line);
  t.hello = json::parse(line).at("hello");
  while (std::getline(lines, line)) t.answers.push_back(json::parse(line));
  BOOST_REQUIRE_EQUAL(t.answers.size(), requests.size());
  return t;
}

Matrix result(const json& answer) {
  BOOST_REQUIRE_MESSAGE(answer.contains("result"), answer.dump());
  return matrix_from_json(answer.at("result"));
}

bool refused(const json& answer) { return answer.contains("error"); }

json rotate_request(const Positions& positions, const Matrix& x, std::optional<Position> seq_len = std::nullopt) {
  json r = {{"op", "rotate"}, {"positions", positions}, {"x", matrix_to_json(x)}};
  if (seq_len) r["seq_len"] = *seq_len;
  return r;
}

json encode_request(int dim, const Positions& positions, Position seq_len) {
  return {{"op", "encode"}, {"dim", dim}, {"positions", positions}, {"seq_len", seq_len}};
}

// Roundings in one angle θ = t·ω computed in a narrow precision: t, the
// product and the sine or cosine (3), and ω itself formed as base^(−x) (or
// exp(−x·ln base)) whose argument, at most ln(base) in size, carries a
// relative u — a relative error of up to ln(base)·u in ω, so ln(base)·|t| in θ.
double angle_work(Position t, double base) {
  return 3 + (3 + std::log(base)) * (1 + std::fabs(static_cast<double>(t)));
}

// The bound on an entry of R_t x: 5 value roundings and the angle's, both
// relative to the pair's size (see support/rotation_error.h).
double rotation_bound(Dtype values, Dtype angles, Position t, double base, double max_abs_x, double m = 1) {
  const double scale = 2 * max_abs_x * std::max(1.0, m);
  return testing::bound_in(values, 5, scale) +
         testing::bound_in(angles, angle_work(t, base), scale);
}

// Each row of the script's answer against the reference of `convention`.
void expect_rotations_match(const Matrix& got, const Positions& positions, const Matrix& x,
                            const RotateConvention& convention, Dtype values, Dtype angles) {
  const Matrix want = reference::rotary(positions, x, convention, std::nullopt);
  BOOST_REQUIRE(got.rows() == want.rows() && got.cols() == want.cols());
  for (Eigen::Index r = 0; r < got.rows(); ++r) {
    const Position t = positions[static_cast<size_t>(r)];
    const double bound = rotation_bound(values, angles, t, convention.base, x.row(r).cwiseAbs().maxCoeff(),
                                        reference::rotary_magnitude(convention));
    BOOST_TEST(max_abs_diff(got.row(r), want.row(r)) <= bound, "t = " << t);
  }
}

void expect_encodings_match(const Matrix& got, int dim, const Positions& positions, const EncodeConvention& c) {
  const Matrix want = reference::sinusoidal(dim, positions, c);
  BOOST_REQUIRE(got.rows() == want.rows() && got.cols() == want.cols());
  for (Eigen::Index r = 0; r < got.rows(); ++r) {
    const Position t = positions[static_cast<size_t>(r)] + c.position_offset;
    const double bound = testing::bound_in(Dtype::float32, 1 + angle_work(t, c.base), 1);
    BOOST_TEST(max_abs_diff(got.row(r), want.row(r)) <= bound, "t = " << t);
  }
}

// The declared params.rotate against a built-in's convention, field by field.
void expect_declares(const json& rotate, const RotateConvention& c) {
  BOOST_TEST(rotate.at("base").get<double>() == c.base);
  BOOST_TEST(rotate.at("layout").get<std::string>() == std::string(name(c.layout)));
  BOOST_TEST(rotate.contains("rotary_dim") == c.rotary_dim.has_value());
  if (c.rotary_dim) BOOST_TEST(rotate.at("rotary_dim").get<int>() == *c.rotary_dim);
  BOOST_TEST(rotate.contains("rotary_fraction") == c.rotary_fraction.has_value());
  if (c.rotary_fraction) BOOST_TEST(rotate.at("rotary_fraction").get<double>() == *c.rotary_fraction);
  BOOST_TEST((rotate.contains("scaling") == (c.scaling.type != ScalingType::none)));
}

void expect_declares(const json& encode, const EncodeConvention& c) {
  BOOST_TEST(encode.at("base").get<double>() == c.base);
  BOOST_TEST(encode.at("schedule").get<std::string>() == std::string(name(c.schedule)));
  BOOST_TEST(encode.value("position_offset", Position{0}) == c.position_offset);
  BOOST_TEST(encode.at("layout").get<std::string>() == std::string(name(c.layout)));
}

RotateConvention twin_rotate(const std::string& builtin) { return make_subject("builtin:" + builtin)->info().rotate; }
EncodeConvention twin_encode(const std::string& builtin) { return make_subject("builtin:" + builtin)->info().encode; }

Matrix repeated(const Matrix& row, Eigen::Index times) { return row.replicate(times, 1); }

struct TorchAvailable {
  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
    const bool ok = std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") == 0;
    boost::test_tools::assertion_result result(ok);
    if (!ok) result.message() << "python3-torch is not installed";
    return result;
  }
};

const Positions kPositions = {0, 1, 255, 256, 257, 1000, 2047, 5000};

}  // namespace

// Encoders -------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(fairseq_is_the_timing_signal_offset_by_two) {
  const auto t = drive("fairseq_sinusoidal.py", {encode_request(8, kPositions, 5001), encode_request(64, kPositions, 5001),
                                                 encode_request(2, {0}, 1)});
  BOOST_TEST(t.hello["dtype"] == "float32");
  BOOST_TEST(t.hello["ops"] == json::array({"encode"}));
  const EncodeConvention c = twin_encode("sinusoidal@fairseq");
  expect_declares(t.hello["params"]["encode"], c);
  expect_encodings_match(result(t.answers[0]), 8, kPositions, c);
  expect_encodings_match(result(t.answers[1]), 64, kPositions, c);
  BOOST_TEST(refused(t.answers[2]));
}

BOOST_AUTO_TEST_CASE(tensor2tensor_is_the_i_over_h_minus_1_schedule_in_halves) {
  const auto t = drive("t2t_timing_signal.py", {encode_request(8, kPositions, 5001), encode_request(64, kPositions, 5001),
                                                encode_request(2, {0}, 1)});
  const EncodeConvention c = twin_encode("sinusoidal@t2t");
  expect_declares(t.hello["params"]["encode"], c);
  expect_encodings_match(result(t.answers[0]), 8, kPositions, c);
  expect_encodings_match(result(t.answers[1]), 64, kPositions, c);
  BOOST_TEST(refused(t.answers[2]));
}

BOOST_AUTO_TEST_CASE(annotated_transformer_is_the_papers_form) {
  const auto t = drive("annotated_transformer.py", {encode_request(16, kPositions, 5001), encode_request(7, {0}, 1),
                                                    encode_request(16, {9000}, 9001)});
  EncodeConvention c;
  c.layout = Layout::interleaved;
  expect_declares(t.hello["params"]["encode"], c);
  expect_encodings_match(result(t.answers[0]), 16, kPositions, c);
  BOOST_TEST(refused(t.answers[1]));
  expect_encodings_match(result(t.answers[2]), 16, {9000}, c);
  // 003's numbers come out of it too (d = 16; float32, printed to 4 decimals).
  const Matrix p = result(t.answers[0]);
  BOOST_TEST(std::fabs(p.row(0).dot(p.row(0)) - 8.0) <= 1e-5);
}

// Rotaries -------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(hf_llama_float32_is_the_halves_rotation) {
  const Matrix x = random_matrix(static_cast<Eigen::Index>(kPositions.size()), 64, 21);
  const auto t = drive("hf_llama_rope.py", {rotate_request(kPositions, x), rotate_request({1}, Matrix::Ones(1, 5))});
  BOOST_TEST(t.hello["dtype"] == "float32");
  BOOST_TEST(t.hello["ops"] == json::array({"rotate"}));
  expect_declares(t.hello["params"]["rotate"], twin_rotate("rope@llama"));
  expect_rotations_match(result(t.answers[0]), kPositions, x, twin_rotate("rope@llama"), Dtype::float32, Dtype::float32);
  BOOST_TEST(refused(t.answers[1]));
}

BOOST_AUTO_TEST_CASE(llama3_scaling_matches_the_reference) {
  const Matrix x = random_matrix(static_cast<Eigen::Index>(kPositions.size()), 128, 22);
  const auto t = drive("llama3_rope.py", {rotate_request(kPositions, x)});
  const RotateConvention c = twin_rotate("rope@llama3");
  const json& declared = t.hello["params"]["rotate"];
  expect_declares(declared, c);
  BOOST_TEST(declared["scaling"]["type"] == "llama3");
  BOOST_TEST(declared["scaling"]["factor"].get<double>() == c.scaling.factor);
  BOOST_TEST(declared["scaling"]["low_freq_factor"].get<double>() == c.scaling.low_freq_factor);
  BOOST_TEST(declared["scaling"]["high_freq_factor"].get<double>() == c.scaling.high_freq_factor);
  BOOST_TEST(declared["scaling"]["original_max_position"].get<Position>() == c.scaling.original_max_position);
  expect_rotations_match(result(t.answers[0]), kPositions, x, c, Dtype::float32, Dtype::float32);
}

BOOST_AUTO_TEST_CASE(gptj_rotates_64_features_interleaved_and_passes_the_rest) {
  const Matrix x = random_matrix(static_cast<Eigen::Index>(kPositions.size()), 96, 23);
  const auto t = drive("gptj_rotary.py", {rotate_request(kPositions, x), rotate_request({1}, Matrix::Ones(1, 32))});
  const RotateConvention c = twin_rotate("rope@gptj");
  expect_declares(t.hello["params"]["rotate"], c);
  const Matrix got = result(t.answers[0]);
  expect_rotations_match(got, kPositions, x, c, Dtype::float32, Dtype::float32);
  BOOST_TEST(max_abs_diff(got.rightCols(32), x.rightCols(32).unaryExpr([](double v) {
               return round_to(Dtype::float32, v);
             })) == 0.0);
  BOOST_TEST(refused(t.answers[1]));
}

BOOST_AUTO_TEST_CASE(gpt_neox_rotates_a_quarter_in_halves) {
  const Matrix x = random_matrix(static_cast<Eigen::Index>(kPositions.size()), 64, 24);
  const auto t = drive("gpt_neox_rotary.py", {rotate_request(kPositions, x), rotate_request({1}, Matrix::Ones(1, 12)),
                                              rotate_request({3}, random_matrix(1, 24, 25))});
  const RotateConvention c = twin_rotate("rope@neox");
  expect_declares(t.hello["params"]["rotate"], c);
  expect_rotations_match(result(t.answers[0]), kPositions, x, c, Dtype::float32, Dtype::float32);
  BOOST_TEST(refused(t.answers[1]), "int(12 · 0.25) = 3 splits a pair");
  expect_rotations_match(result(t.answers[2]), {3}, random_matrix(1, 24, 25), c, Dtype::float32, Dtype::float32);
}

BOOST_AUTO_TEST_CASE(hf_llama_bf16_keeps_float32_angles, *boost::unit_test::precondition(TorchAvailable())) {
  const Matrix x = random_matrix(static_cast<Eigen::Index>(kPositions.size()), 64, 26);
  const Matrix same = repeated(random_matrix(1, 64, 27), 2);
  const auto t = drive("hf_llama_rope_bf16.py", {rotate_request(kPositions, x), rotate_request({256, 257}, same, 4096),
                                                 rotate_request({256, 257}, same, 2048)});
  BOOST_TEST(t.hello["dtype"] == "bfloat16");
  BOOST_TEST(t.hello["compute"]["angles"] == "float32");
  const RotateConvention c = twin_rotate("rope@llama-bf16");
  expect_declares(t.hello["params"]["rotate"], c);
  expect_rotations_match(result(t.answers[0]), kPositions, x, c, Dtype::bfloat16, Dtype::float32);
  for (size_t i : {1u, 2u}) {
    const Matrix p = result(t.answers[i]);
    BOOST_TEST((p.row(0) - p.row(1)).norm() > 1.0, "256 and 257 stay apart");
    expect_rotations_match(p, {256, 257}, same, c, Dtype::bfloat16, Dtype::float32);
  }
}

// transformers v4.31–4.37: right up to 2048 tokens; the first longer request
// rebuilds the cache in bfloat16, and it stays rebuilt.
BOOST_AUTO_TEST_CASE(hf_llama_bf16_v4_31_collapses_256_and_257_past_2048,
                     *boost::unit_test::precondition(TorchAvailable())) {
  const Matrix same = repeated(random_matrix(1, 64, 28), 2);
  const auto t = drive("hf_llama_rope_bf16_cache_bug.py",
                       {rotate_request({256, 257}, same, 2048), rotate_request({256, 257}, same, 4096),
                        rotate_request({256, 257}, same, 2048)});
  BOOST_TEST(t.hello["dtype"] == "bfloat16");
  BOOST_TEST(t.hello["compute"]["angles"] == "float32", "it declares what the fixed code does");
  const RotateConvention c = twin_rotate("rope@llama-bf16");
  expect_declares(t.hello["params"]["rotate"], c);
  const Matrix before = result(t.answers[0]), rebuilt = result(t.answers[1]), after = result(t.answers[2]);
  expect_rotations_match(before, {256, 257}, same, c, Dtype::bfloat16, Dtype::float32);
  BOOST_TEST((before.row(0) - before.row(1)).norm() > 1.0);
  BOOST_TEST((rebuilt.row(0) - rebuilt.row(1)).norm() == 0.0, "257 rounds to 256 in bfloat16");
  BOOST_TEST((after.row(0) - after.row(1)).norm() == 0.0, "the rebuilt cache stays");
  const Matrix want = reference::rotary({256, 257}, same, c, std::nullopt);
  BOOST_TEST(max_abs_diff(rebuilt.row(1), want.row(1)) >
             rotation_bound(Dtype::bfloat16, Dtype::float32, 257, c.base, same.row(1).cwiseAbs().maxCoeff()));
  // The C++ planted twin answers the long request alike (it is stateless: short requests stay right).
  const Matrix planted = ask::rotate(*make_subject("mutant:rope-llama-bf16-cache-rebuild"), {256, 257}, same, 4096);
  BOOST_TEST((planted.row(0) - planted.row(1)).norm() == 0.0);
  // Same bfloat16 angles on both sides: they differ by the value roundings only.
  BOOST_TEST(max_abs_diff(planted, rebuilt) <=
             testing::bound_in(Dtype::bfloat16, 5, 2 * same.cwiseAbs().maxCoeff()));
}

// Attention ------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(mingpt_masks_the_future_and_its_lookahead_twin_does_not) {
  const Matrix q = random_matrix(5, 8, 31), k = random_matrix(5, 8, 32), v = random_matrix(5, 4, 33);
  const json causal = {{"op", "attention"}, {"q", matrix_to_json(q)}, {"k", matrix_to_json(k)},
                       {"v", matrix_to_json(v)}, {"mask", "causal"}};
  json unmasked = causal;
  unmasked["mask"] = "none";
  const Matrix want = reference::attention(q, k, v, AttentionMask::causal(), 1);
  // float32: the d_k-term logits, the n-term softmax sums and the n-term mix,
  // relative to the values' size.
  const double bound =
      testing::bound_in(Dtype::float32, 8 + 5 + 5, v.cwiseAbs().maxCoeff());
  const auto minGPT = drive("mingpt_causal_attention.py", {causal, unmasked});
  BOOST_TEST(minGPT.hello["dtype"] == "float32");
  BOOST_TEST(minGPT.hello["ops"] == json::array({"attention"}));
  BOOST_TEST(max_abs_diff(result(minGPT.answers[0]), want) <= bound);
  BOOST_TEST(refused(minGPT.answers[1]), "minGPT is always causal");

  const auto lookahead = drive("mingpt_lookahead.py", {causal, unmasked});
  BOOST_TEST(lookahead.hello == minGPT.hello, "it declares what minGPT declares");
  const Matrix got = result(lookahead.answers[0]);
  for (Eigen::Index i = 0; i < 4; ++i) BOOST_TEST(max_abs_diff(got.row(i), want.row(i)) > bound, "row " << i);
  BOOST_TEST(max_abs_diff(got.row(4), want.row(4)) <= bound, "the last row sees every key either way");
  // …and it is the C++ planted twin's answer.
  const Matrix planted = ask::attention(*make_subject("mutant:attention-causal-lookahead"), q, k, v, AttentionMask::causal(), 1);
  BOOST_TEST(max_abs_diff(got, planted) <= bound);
  BOOST_TEST(refused(lookahead.answers[1]));
}

// Positional schemes of 2024–2026 models (CLAIMS.md §9) --------------------

namespace {

// A script's declarations read as pecheck reads a hello.
SubjectInfo declared_info(const json& hello) {
  json h = {{"protocol", 2}, {"name", hello["name"]}, {"ops", hello["ops"]}, {"dtype", hello["dtype"]}};
  if (hello.contains("params")) h["params"] = hello["params"];
  return process::read_hello(h).info;
}

json rotate_axes_request(const std::vector<Positions>& axes, const Matrix& x, std::optional<Position> seq_len = {}) {
  json r = {{"op", "rotate"}, {"positions", axes}, {"x", matrix_to_json(x)}};
  if (seq_len) r["seq_len"] = *seq_len;
  return r;
}

// Each row against `want` within the float32 bound of its largest angle.
void expect_close(const Matrix& got, const Matrix& want, const Matrix& x, Position largest, double base,
                  double m = 1) {
  BOOST_REQUIRE(got.rows() == want.rows() && got.cols() == want.cols());
  for (Eigen::Index r = 0; r < got.rows(); ++r) {
    const double bound = rotation_bound(Dtype::float32, Dtype::float32, largest, base, x.row(r).cwiseAbs().maxCoeff(), m);
    BOOST_TEST(max_abs_diff(got.row(r), want.row(r)) <= bound, "row " << r);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(phi3_longrope_is_the_reference_on_both_sides_of_4096_and_vllm_s_mixes_them) {
  const Matrix x = random_matrix(3, 96, 41);
  const Positions early = {1, 100, 3000};
  const auto t = drive("phi3_longrope.py", {rotate_request(early, x, 4096), rotate_request(early, x, 6000)});
  const RotateConvention c = declared_info(t.hello).rotate;
  const RotateConvention twin = twin_rotate("rope@longrope");
  BOOST_TEST(c.scaling.short_factor == twin.scaling.short_factor, "rope_scaling pasted verbatim");
  BOOST_TEST(c.scaling.long_factor == twin.scaling.long_factor);
  BOOST_TEST(c.scaling.original_max_position == 4096);
  BOOST_TEST(reference::rotary_magnitude(c) == reference::rotary_magnitude(twin));
  const double m = reference::rotary_magnitude(c);
  expect_close(result(t.answers[0]), reference::rotary(early, x, c, 4096), x, 3000, c.base, m);
  expect_close(result(t.answers[1]), reference::rotary(early, x, c, 6000), x, 3000, c.base, m);
  // vLLM before PR #27431: the same early positions of a 6000-token sequence keep the short factors;
  // beside a position past 4096 they take the long ones.
  Matrix with_late(4, 96);
  with_late << x, random_matrix(1, 96, 42);
  const Positions late = {1, 100, 3000, 5000};
  const auto v = drive("vllm_longrope_short_cache.py", {rotate_request(early, x, 6000), rotate_request(late, with_late, 6000)});
  BOOST_TEST(declared_info(v.hello).rotate.scaling.long_factor == twin.scaling.long_factor, "it declares Phi-3.5's");
  expect_close(result(v.answers[0]), reference::rotary(early, x, c, 4096), x, 3000, c.base, m);
  BOOST_TEST(max_abs_diff(result(v.answers[0]), reference::rotary(early, x, c, 6000)) > 1e-3);
  expect_close(result(v.answers[1]), reference::rotary(late, with_late, c, 6000), with_late, 5000, c.base, m);
}

BOOST_AUTO_TEST_CASE(deepseek_yarn_is_the_reference_and_vllm_s_generic_yarn_drops_the_mscale_ratio) {
  const Matrix x = random_matrix(3, 64, 43);
  const Positions at = {1, 700, 9000};
  const auto t = drive("deepseek_yarn.py", {rotate_request(at, x)});
  const RotateConvention c = declared_info(t.hello).rotate;
  BOOST_TEST((c.layout == Layout::interleave_then_halves));
  BOOST_TEST(*c.scaling.mscale_all_dim == 1.0);
  expect_close(result(t.answers[0]), reference::rotary(at, x, c, std::nullopt), x, 9000, c.base);
  const auto v = drive("vllm_generic_yarn.py", {rotate_request(at, x)});
  RotateConvention generic = declared_info(v.hello).rotate;
  BOOST_TEST(reference::rotary_magnitude(generic) == 1.0, "it declares DeepSeek-V3's mscale ratio");
  generic.scaling.attention_factor = 0.1 * std::log(40.0) + 1;  // what it computes
  expect_close(result(v.answers[0]), reference::rotary(at, x, generic, std::nullopt), x, 9000, c.base, 1.37);
}

BOOST_AUTO_TEST_CASE(qwen_vl_multi_axis_rotaries_are_the_reference_and_rope_deltas_leak_into_later_text) {
  const Matrix x = random_matrix(2, 128, 44);
  const std::vector<Positions> image = {{4, 4}, {4, 5}, {7, 4}};  // two patches of one image
  const auto q2 = drive("qwen2_vl_mrope.py", {rotate_axes_request(image, x), rotate_request({3, 9}, x)});
  const RotateConvention c2 = declared_info(q2.hello).rotate;
  BOOST_TEST(c2.mrope_section == (std::vector<int>{16, 24, 24}));
  expect_close(result(q2.answers[0]), reference::rotary_axes(image, x, c2, std::nullopt), x, 7, c2.base);
  expect_close(result(q2.answers[1]), reference::rotary({3, 9}, x, c2, std::nullopt), x, 9, c2.base);
  const auto q3 = drive("qwen3_vl_mrope.py", {rotate_axes_request(image, x)});
  const RotateConvention c3 = declared_info(q3.hello).rotate;
  BOOST_TEST(c3.mrope_interleaved);
  expect_close(result(q3.answers[0]), reference::rotary_axes(image, x, c3, std::nullopt), x, 7, c3.base);
  // The kept rope_deltas (max 7 + 1 − 2 tokens = 6) moves the text that follows.
  const std::vector<Positions> text = {{3, 9}, {3, 9}, {3, 9}};
  const auto d = drive("qwen2_vl_rope_deltas.py",
                       {rotate_axes_request(text, x), rotate_axes_request(image, x), rotate_axes_request(text, x)});
  expect_close(result(d.answers[0]), reference::rotary({3, 9}, x, c2, std::nullopt), x, 9, c2.base);
  expect_close(result(d.answers[2]), reference::rotary({9, 15}, x, c2, std::nullopt), x, 15, c2.base);
}

BOOST_AUTO_TEST_CASE(gemma3_layers_rotate_as_declared_and_the_local_scaled_twin_does_not) {
  const Matrix x = random_matrix(2, 8, 45);
  json local = rotate_request({5, 900}, x), global = local;
  local["layer"] = 0;
  global["layer"] = 5;
  const json forward = {{"op", "forward"}, {"x", json::array({matrix_to_json(random_matrix(3, 16, 46))})},
                        {"layer", 5}};
  const auto t = drive("gemma3_layers.py", {local, global, forward});
  const SubjectInfo info = declared_info(t.hello);
  BOOST_REQUIRE(info.forward && info.forward->layers.size() == 6u);
  const RotateConvention& l0 = *info.forward->layers[0].rotate;
  const RotateConvention& l5 = *info.forward->layers[5].rotate;
  BOOST_TEST(l0.base == 10000);
  BOOST_TEST((l5.scaling.type == ScalingType::linear));
  expect_close(result(t.answers[0]), reference::rotary({5, 900}, x, l0, std::nullopt), x, 900, l0.base);
  expect_close(result(t.answers[1]), reference::rotary({5, 900}, x, l5, std::nullopt), x, 900, l5.base);
  BOOST_TEST(t.answers[2].contains("result"));
  const auto bug = drive("gemma3_local_scaled.py", {local});
  BOOST_TEST((declared_info(bug.hello).forward->layers[0].rotate->scaling.type == ScalingType::none),
             "it declares Gemma 3's local layers");
  RotateConvention scaled = l0;
  scaled.scaling = l5.scaling;
  expect_close(result(bug.answers[0]), reference::rotary({5, 900}, x, scaled, std::nullopt), x, 900, l0.base);
}

BOOST_AUTO_TEST_CASE(llama_cpp_s_freq_factors_are_llama_3_s_scaling) {
  const Matrix x = random_matrix(2, 128, 47);
  const auto t = drive("llamacpp_freq_factors.py", {rotate_request({7, 5000}, x), rotate_request({1}, random_matrix(1, 64, 1))});
  const RotateConvention c = declared_info(t.hello).rotate;
  BOOST_TEST(c.freq_factors.size() == 64u);
  expect_close(result(t.answers[0]), reference::rotary({7, 5000}, x, c, std::nullopt), x, 5000, c.base);
  RotateConvention llama3 = twin_rotate("rope@llama3");
  llama3.layout = Layout::interleaved;
  expect_close(result(t.answers[0]), reference::rotary({7, 5000}, x, llama3, std::nullopt), x, 5000, c.base);
  BOOST_TEST(refused(t.answers[1]), "rope_freqs fixes the width");
}

BOOST_AUTO_TEST_SUITE_END()  // test_real_transcriptions
