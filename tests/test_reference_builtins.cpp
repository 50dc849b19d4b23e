// The published-convention built-ins (subjects/builtin/published.h): each
// declares its convention as an honest v2 hello would and computes it — equal
// to the declared reference within the error bound of the precisions it
// declares — and the mixed-precision emulation rounds where real code does.
#include <boost/test/unit_test.hpp>

#include <map>
#include <string>
#include <vector>

#include "pecheck/reference/rotary.h"
#include "pecheck/reference/sinusoidal.h"
#include "pecheck/subjects/builtin/encoders.h"
#include "pecheck/subjects/builtin/published.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/typed_subject.h"
#include "support/bounds.h"
#include "support/rotation_error.h"

BOOST_AUTO_TEST_SUITE(test_reference_builtins)

using namespace pecheck;
using pecheck::testing::max_abs_diff;
using pecheck::testing::random_matrix;
using pecheck::testing::rotation_bound;

namespace {

const std::vector<std::string> kRotary = {"rope@gptj",   "rope@neox",        "rope@llama", "rope@llama3",
                                          "rope@linear", "rope@ntk",         "rope@dynamic-ntk",
                                          "rope@yarn",   "rope@llama-bf16"};
const std::vector<std::string> kEncoders = {"sinusoidal@t2t", "sinusoidal@fairseq"};

// Positions around the places precision and caches break: bfloat16's 256,
// the 2048 of Llama 1/2 caches, float16's 2048, the default run's 10000.
const Positions kPositions = {0, 1, 255, 256, 257, 2047, 2048, 4095, 9999};

bool representable(Dtype dtype, const Matrix& m) {
  return (m.array() == m.unaryExpr([dtype](double v) { return round_to(dtype, v); }).array()).all();
}

}  // namespace

BOOST_AUTO_TEST_CASE(each_published_builtin_declares_its_convention) {
  using Fields = std::vector<std::string>;
  const std::map<std::string, Fields> declared = {
      {"rope@gptj", {"params.rotate.base", "params.rotate.rotary_dim", "params.rotate.layout"}},
      {"rope@neox", {"params.rotate.base", "params.rotate.rotary_fraction", "params.rotate.layout"}},
      {"rope@llama", {"params.rotate.base", "params.rotate.layout"}},
      {"rope@llama3",
       {"params.rotate.base", "params.rotate.layout", "params.rotate.scaling.type", "params.rotate.scaling.factor",
        "params.rotate.scaling.original_max_position", "params.rotate.scaling.low_freq_factor",
        "params.rotate.scaling.high_freq_factor"}},
      {"rope@linear",
       {"params.rotate.base", "params.rotate.layout", "params.rotate.scaling.type", "params.rotate.scaling.factor"}},
      {"rope@ntk",
       {"params.rotate.base", "params.rotate.layout", "params.rotate.scaling.type", "params.rotate.scaling.factor"}},
      {"rope@dynamic-ntk",
       {"params.rotate.base", "params.rotate.layout", "params.rotate.scaling.type", "params.rotate.scaling.factor",
        "params.rotate.scaling.original_max_position"}},
      {"rope@yarn",
       {"params.rotate.base", "params.rotate.layout", "params.rotate.scaling.type", "params.rotate.scaling.factor",
        "params.rotate.scaling.original_max_position", "params.rotate.scaling.beta_fast",
        "params.rotate.scaling.beta_slow"}},
      {"rope@llama-bf16", {"params.rotate.base", "params.rotate.layout", "compute.angles"}},
      {"rope@longrope",
       {"params.rotate.base", "params.rotate.layout", "params.rotate.max_position_embeddings",
        "params.rotate.scaling.type", "params.rotate.scaling.original_max_position", "params.rotate.scaling.short_factor",
        "params.rotate.scaling.long_factor"}},
      {"rope@deepseek-yarn",
       {"params.rotate.base", "params.rotate.layout", "params.rotate.max_position_embeddings",
        "params.rotate.scaling.type", "params.rotate.scaling.factor", "params.rotate.scaling.original_max_position",
        "params.rotate.scaling.beta_fast", "params.rotate.scaling.beta_slow", "params.rotate.scaling.mscale",
        "params.rotate.scaling.mscale_all_dim"}},
      {"rope@mrope", {"params.rotate.base", "params.rotate.layout", "params.rotate.mrope_section"}},
      {"rope@qwen3-vl",
       {"params.rotate.base", "params.rotate.layout", "params.rotate.mrope_section", "params.rotate.mrope_interleaved"}},
      {"rope@llama3-freq-factors", {"params.rotate.base", "params.rotate.layout", "params.rotate.freq_factors"}},
      {"sinusoidal@t2t", {"params.encode.base", "params.encode.schedule", "params.encode.layout"}},
      {"sinusoidal@fairseq",
       {"params.encode.base", "params.encode.schedule", "params.encode.position_offset", "params.encode.layout"}},
  };
  BOOST_TEST(published_builtins().size() == declared.size());
  for (const auto& entry : published_builtins()) {
    BOOST_TEST_CONTEXT(entry.name) {
      const auto info = make_subject("builtin:" + entry.name)->info();
      BOOST_TEST(info.name == entry.name);
      BOOST_TEST(format_spec(info.spec) == "builtin:" + entry.name);
      BOOST_TEST(info.scheme == entry.name);
      BOOST_REQUIRE(declared.count(entry.name) == 1u);
      BOOST_TEST(info.declared == declared.at(entry.name), "declared fields");
      BOOST_TEST(name(info.layout) == "unspecified", "v2 subjects declare the layout under params");
    }
  }
  // The numbers of the code each imitates.
  const auto gptj = make_subject("builtin:rope@gptj")->info().rotate;
  BOOST_TEST(gptj.rotary_dim.value_or(0) == 64);
  BOOST_TEST(name(gptj.layout) == "interleaved");
  const auto neox = make_subject("builtin:rope@neox")->info().rotate;
  BOOST_TEST(neox.rotary_fraction.value_or(0) == 0.25);
  BOOST_TEST(name(neox.layout) == "halves");
  const auto llama3 = make_subject("builtin:rope@llama3")->info().rotate;
  BOOST_TEST(llama3.base == 500000);
  BOOST_TEST(name(llama3.scaling.type) == "llama3");
  BOOST_TEST(llama3.scaling.factor == 8);
  BOOST_TEST(llama3.scaling.low_freq_factor == 1);
  BOOST_TEST(llama3.scaling.high_freq_factor == 4);
  BOOST_TEST(llama3.scaling.original_max_position == 8192);
  const auto bf16 = make_subject("builtin:rope@llama-bf16")->info();
  BOOST_TEST(name(bf16.dtype) == "bfloat16");
  BOOST_TEST(name(bf16.angles_dtype()) == "float32");
  const auto fairseq = make_subject("builtin:sinusoidal@fairseq")->info().encode;
  BOOST_TEST(fairseq.position_offset == 2);
  BOOST_TEST(name(fairseq.schedule) == "i/(h-1)");
  BOOST_TEST(name(fairseq.layout) == "halves");
}

// The claims read declared conventions (CLAIMS.md §5): every published
// convention's built-in is a column of the default matrix.
BOOST_AUTO_TEST_CASE(default_matrix_membership) {
  const std::map<std::string, bool> in_matrix = {
      {"rope@gptj", true},       {"rope@neox", true},  {"rope@llama", true},      {"rope@llama3", true},
      {"rope@linear", true},     {"rope@ntk", true},   {"rope@dynamic-ntk", true}, {"rope@yarn", true},
      {"rope@llama-bf16", true}, {"sinusoidal@t2t", true}, {"sinusoidal@fairseq", true},
      {"rope@longrope", true},   {"rope@deepseek-yarn", true}, {"rope@mrope", true}, {"rope@qwen3-vl", true},
      {"rope@llama3-freq-factors", true}};
  for (const auto& entry : published_builtins()) {
    BOOST_TEST(entry.in_default_matrix == in_matrix.at(entry.name), entry.name);
  }
}

BOOST_AUTO_TEST_CASE(rotary_builtins_compute_their_declared_reference) {
  for (const auto& spec : kRotary) {
    auto subject = make_subject("builtin:" + spec);
    const SubjectInfo& info = subject->info();
    const double m = reference::rotary_magnitude(info.rotate);
    for (int dim : {64, 96, 128}) {
      const Matrix x = random_matrix(static_cast<Eigen::Index>(kPositions.size()), dim, 17 + dim);
      for (std::optional<Position> seq_len : {std::optional<Position>{}, std::optional<Position>{12000}}) {
        BOOST_TEST_CONTEXT(spec << ", d = " << dim << ", seq_len " << seq_len.value_or(-1)) {
          const Matrix got = ask::rotate(*subject, kPositions, x, seq_len);
          const Matrix want = reference::rotary(kPositions, x, info.rotate, seq_len);
          for (Eigen::Index r = 0; r < x.rows(); ++r) {
            const Position t = kPositions[static_cast<size_t>(r)];
            const double bound = rotation_bound(info.dtype, info.angles_dtype(), t, x.row(r).cwiseAbs().maxCoeff(), m);
            BOOST_TEST(max_abs_diff(got.row(r), want.row(r)) <= bound, "t = " << t);
          }
          BOOST_TEST(representable(info.dtype, got), "every output is a " << name(info.dtype) << " value");
        }
      }
    }
  }
}

// The schemes of CLAIMS.md §9 at the widths their lists fix (DeepSeek's at any).
BOOST_AUTO_TEST_CASE(scheme_builtins_compute_their_declared_reference) {
  const std::vector<std::pair<std::string, int>> widths = {{"rope@longrope", 96},    {"rope@deepseek-yarn", 64},
                                                           {"rope@deepseek-yarn", 128}, {"rope@mrope", 128},
                                                           {"rope@qwen3-vl", 128},  {"rope@llama3-freq-factors", 128}};
  for (const auto& [spec, dim] : widths) {
    auto subject = make_subject("builtin:" + spec);
    const SubjectInfo& info = subject->info();
    const double m = reference::rotary_magnitude(info.rotate);
    const Matrix x = random_matrix(static_cast<Eigen::Index>(kPositions.size()), dim, 23 + dim);
    for (std::optional<Position> seq_len : {std::optional<Position>{}, std::optional<Position>{12000}}) {
      BOOST_TEST_CONTEXT(spec << ", d = " << dim << ", seq_len " << seq_len.value_or(-1)) {
        const Matrix got = ask::rotate(*subject, kPositions, x, seq_len);
        const Matrix want = reference::rotary(kPositions, x, info.rotate, seq_len);
        for (Eigen::Index r = 0; r < x.rows(); ++r) {
          const Position t = kPositions[static_cast<size_t>(r)];
          const double bound = rotation_bound(info.dtype, info.angles_dtype(), t, x.row(r).cwiseAbs().maxCoeff(), m);
          BOOST_TEST(max_abs_diff(got.row(r), want.row(r)) <= bound, "t = " << t);
        }
      }
    }
  }
  // Multi-axis positions: each pair at its axis's.
  auto qwen = make_subject("builtin:rope@qwen3-vl");
  const std::vector<Positions> axes = {{3, 900}, {17, 4}, {250, 8000}};
  const Matrix x = random_matrix(2, 128, 5);
  const Matrix got = ask::rotate_axes(*qwen, axes, x, std::nullopt);
  const Matrix want = reference::rotary_axes(axes, x, qwen->info().rotate, std::nullopt);
  BOOST_TEST(max_abs_diff(got, want) <= rotation_bound(Dtype::float64, Dtype::float64, 8000, 4.0, 1.0));
  BOOST_CHECK_THROW(ask::rotate_axes(*qwen, {{1}, {2}}, random_matrix(1, 128, 6), std::nullopt), Refusal);
}

BOOST_AUTO_TEST_CASE(narrow_widths_are_refused_by_the_builtin_as_by_the_reference) {
  BOOST_CHECK_THROW(ask::rotate(*make_subject("builtin:rope@gptj"), {1}, Matrix::Ones(1, 32), std::nullopt), Refusal);
  BOOST_CHECK_THROW(ask::rotate(*make_subject("builtin:rope@neox"), {1}, Matrix::Ones(1, 6), std::nullopt), Refusal);
  BOOST_CHECK_NO_THROW(ask::rotate(*make_subject("builtin:rope@neox"), {1}, Matrix::Ones(1, 8), std::nullopt));
  BOOST_CHECK_THROW(ask::rotate(*make_subject("builtin:rope@llama"), {1}, Matrix::Ones(1, 5), std::nullopt), Refusal);
  BOOST_CHECK_THROW(ask::encode(*make_subject("builtin:sinusoidal@t2t"), 2, {1}, 2), Refusal);
}

// Float32 angles keep bfloat16 Llama's positions apart where an all-bfloat16
// computation (rope@bfloat16) rounds 257 to 256.
BOOST_AUTO_TEST_CASE(float32_angles_keep_positions_apart_that_bfloat16_merges) {
  const Matrix x = random_matrix(2, 64, 3);
  const Matrix mixed = ask::rotate(*make_subject("builtin:rope@llama-bf16"), {256, 257}, x, std::nullopt);
  const Matrix all_bf16 = ask::rotate(*make_subject("builtin:rope@bfloat16"), {256, 257}, x, std::nullopt);
  Matrix twice(2, 64);
  twice << x.row(0), x.row(0);
  const Matrix mixed_same = ask::rotate(*make_subject("builtin:rope@llama-bf16"), {256, 257}, twice, std::nullopt);
  const Matrix bf16_same = ask::rotate(*make_subject("builtin:rope@bfloat16"), {256, 257}, twice, std::nullopt);
  BOOST_TEST((mixed_same.row(0) - mixed_same.row(1)).norm() > 1.0);
  BOOST_TEST((bf16_same.row(0) - bf16_same.row(1)).norm() == 0.0);
  BOOST_TEST(representable(Dtype::bfloat16, mixed));
  BOOST_TEST(representable(Dtype::bfloat16, all_bf16));
}

// The version-1 built-ins keep their behaviour through the generalised subject.
BOOST_AUTO_TEST_CASE(version_one_rotary_builtins_are_unchanged) {
  const Matrix x = random_matrix(static_cast<Eigen::Index>(kPositions.size()), 16, 5);
  RotateConvention interleaved, halves;
  interleaved.layout = Layout::interleaved;
  halves.layout = Layout::halves;
  const std::map<std::string, RotateConvention> cases = {{"rope", interleaved}, {"rope-halves", halves}};
  for (const auto& [spec, convention] : cases) {
    const Matrix got = ask::rotate(*make_subject("builtin:" + spec), kPositions, x, std::nullopt);
    const Matrix want = reference::rotary(kPositions, x, convention, std::nullopt);
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
      const Position t = kPositions[static_cast<size_t>(r)];
      BOOST_TEST(max_abs_diff(got.row(r), want.row(r)) <=
                     rotation_bound(Dtype::float64, Dtype::float64, t, x.row(r).cwiseAbs().maxCoeff()),
                 spec << " at t = " << t);
    }
  }
}

BOOST_AUTO_TEST_CASE(encoder_builtins_are_their_declared_reference) {
  for (const auto& spec : kEncoders) {
    BOOST_TEST_CONTEXT(spec) {
      auto subject = make_subject("builtin:" + spec);
      for (int dim : {4, 8, 64}) {
        BOOST_TEST((ask::encode(*subject, dim, kPositions, 10000) ==
                    reference::sinusoidal(dim, kPositions, subject->info().encode)));
      }
    }
  }
}

// Mixed precision in an encoder: angles in float32, values in bfloat16; every
// value is a bfloat16 number and within both stages' bounds of the reference.
BOOST_AUTO_TEST_CASE(encoder_rows_round_each_stage_to_its_precision) {
  EncodeConvention c;
  c.schedule = Schedule::i_over_h_minus_1;
  c.layout = Layout::halves;
  c.position_offset = 2;
  EncoderSubject mixed(encoder_info("mixed", cpp_spec("mixed"), c, Dtype::bfloat16, Dtype::float32, {}, "sinusoidal"),
                       sinusoidal_row(c, Dtype::bfloat16, Dtype::float32));
  const Matrix got = ask::encode(mixed, 16, kPositions, 10000);
  const Matrix want = reference::sinusoidal(16, kPositions, c);
  BOOST_TEST(representable(Dtype::bfloat16, got));
  for (Eigen::Index r = 0; r < got.rows(); ++r) {
    const double t = static_cast<double>(kPositions[static_cast<size_t>(r)] + 2);
    const double bound = testing::bound_in(Dtype::bfloat16, 3, 1) +
                         testing::bound_in(Dtype::float32, 3 + 3 * t, 1);
    BOOST_TEST(max_abs_diff(got.row(r), want.row(r)) <= bound, "t = " << t);
  }
  // Angles in float32 keep 256 and 257 apart; an all-bfloat16 row does not.
  EncoderSubject all_bf16(encoder_info("bf16", cpp_spec("bf16"), c, Dtype::bfloat16, std::nullopt, {}, "sinusoidal"),
                          sinusoidal_row(c, Dtype::bfloat16, Dtype::bfloat16));
  const Matrix p = ask::encode(mixed, 16, {254, 255}, 300), q = ask::encode(all_bf16, 16, {254, 255}, 300);
  BOOST_TEST((p.row(0) - p.row(1)).norm() > 0.5);
  BOOST_TEST((q.row(0) - q.row(1)).norm() == 0.0);
}

BOOST_AUTO_TEST_SUITE_END()  // test_reference_builtins
