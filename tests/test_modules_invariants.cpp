// The built-in modules (subjects/builtin/modules_*.h) satisfy the module
// claims of CLAIMS.md §7 that apply to them, measured directly on the
// subjects (no properties framework), each difference judged by the error
// model of tests/support/module_checks.h and printed when it fails:
//   encoder layers: permutation-equivariant, padding- and batch-invariant;
//   llama-block: causal, shift-invariant, padding- and batch-invariant,
//     decode step by step = forward, from any reset, sessions apart;
//   learned-encoder: padding-invariant, but NOT shift-invariant or
//     permutation-equivariant (its positions are absolute);
//   llama-block-dynamic-ntk: the plain block up to L, decode = the forward
//     of the prefix, history-independent, its rotate is the declared rotary.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <numeric>
#include <string>

#include "pecheck/reference/modules.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/typed_subject.h"
#include "support/module_checks.h"

BOOST_AUTO_TEST_SUITE(test_modules_invariants)

using namespace pecheck;
using namespace pecheck::testing;

namespace {

const ModuleErrorModel kModel;

int width_of(Subject& s) { return s.info().forward->width; }

std::vector<Eigen::Index> range(Eigen::Index from, Eigen::Index count) {
  std::vector<Eigen::Index> rows(static_cast<size_t>(count));
  std::iota(rows.begin(), rows.end(), from);
  return rows;
}

// Measures, then judges: the error and the bound, both in the message.
void judge(double error, double scale, const std::string& what) {
  BOOST_TEST_MESSAGE(what << ": error " << error << ", bound " << kModel.formula(scale));
  BOOST_TEST(error <= kModel.bound(scale), what << ": error " << error << " > " << kModel.formula(scale));
}

// One sequence padded with `pads` junk tokens on one side; real tokens keep
// positions 0..R−1 (counted from the first real token), pads get position 0.
struct Padded {
  Batch x;
  std::vector<Positions> positions;
  BoolMatrix padding;
  Eigen::Index first_real;
};

Padded pad(const Matrix& sequence, int pads, bool left, std::uint64_t junk_seed) {
  const auto real = static_cast<int>(sequence.rows());
  const Matrix junk = random_batch(junk_seed, 1, pads, static_cast<int>(sequence.cols()))[0] * 5.0;
  Padded p;
  Matrix x(real + pads, sequence.cols());
  Positions positions(static_cast<size_t>(real + pads), 0);
  BoolMatrix padding = BoolMatrix::Constant(1, real + pads, false);
  p.first_real = left ? pads : 0;
  x.middleRows(p.first_real, real) = sequence;
  x.middleRows(left ? 0 : real, pads) = junk;
  for (int r = 0; r < real; ++r) {
    positions[static_cast<size_t>(p.first_real + r)] = r;
    padding(0, p.first_real + r) = true;
  }
  p.x = {x};
  p.positions = {positions};
  p.padding = padding;
  return p;
}

void check_padding_invariance(const std::string& spec) {
  auto subject = make_subject(spec);
  const int d = width_of(*subject), real = 6;
  const Batch x = random_batch(11, 1, real, d);
  const Batch plain = ask::forward(*subject, x, counting(1, real), all_real(1, real));
  for (bool left : {true, false}) {
    for (int pads : {1, 4}) {
      BOOST_TEST_CONTEXT(spec << (left ? ", left" : ", right") << " padding of " << pads) {
        const Padded p = pad(x[0], pads, left, 100 + pads);
        const Batch padded = ask::forward(*subject, p.x, p.positions, p.padding);
        judge(max_row_error(padded[0], range(p.first_real, real), plain[0], range(0, real)), magnitude(plain),
              "real rows with and without pads");
      }
    }
  }
}

void check_batch_invariance(const std::string& spec) {
  auto subject = make_subject(spec);
  const int d = width_of(*subject), n = 5;
  const Batch alone = random_batch(21, 1, n, d);
  const Batch alone_out = ask::forward(*subject, alone, counting(1, n), all_real(1, n));
  // The same sequence at index 2 of 3, its neighbours different and one padded.
  Batch batch = random_batch(22, 3, n, d);
  batch[2] = alone[0];
  BoolMatrix padding = all_real(3, n);
  padding(0, 0) = false;
  std::vector<Positions> positions = counting(3, n);
  positions[0] = {0, 0, 1, 2, 3};
  const Batch out = ask::forward(*subject, batch, positions, padding);
  BOOST_TEST_REQUIRE(out.size() == 3u);
  judge(max_error(out[2], alone_out[0]), magnitude(alone_out), spec + ": alone vs third of three");
}

Matrix permute_rows(const Matrix& m, const std::vector<Eigen::Index>& order) {
  Matrix out(m.rows(), m.cols());
  for (size_t r = 0; r < order.size(); ++r) out.row(static_cast<Eigen::Index>(r)) = m.row(order[r]);
  return out;
}

const std::vector<Eigen::Index> kShuffle = {3, 0, 6, 2, 5, 1, 4};

}  // namespace

BOOST_AUTO_TEST_CASE(modules_declare_their_conventions) {
  struct Expected {
    const char* spec;
    bool causal;
    Positional positional;
    int width;
    bool decodes;
  };
  for (const auto& e : {Expected{"builtin:encoder-layer", false, Positional::none, 16, false},
                        Expected{"builtin:encoder-layer-pre-norm", false, Positional::none, 16, false},
                        Expected{"builtin:learned-encoder", false, Positional::absolute, 16, false},
                        Expected{"builtin:llama-block", true, Positional::relative, 32, true},
                        Expected{"builtin:llama-block-dynamic-ntk", true, Positional::relative, 32, true}}) {
    BOOST_TEST_CONTEXT(e.spec) {
      auto subject = make_subject(e.spec);
      const auto& info = subject->info();
      BOOST_TEST_REQUIRE(info.forward.has_value());
      BOOST_TEST(info.forward->causal == e.causal);
      BOOST_TEST((info.forward->positional == e.positional));
      BOOST_TEST(info.forward->width == e.width);
      BOOST_TEST(info.supports(Op::forward));
      BOOST_TEST(info.supports(Op::decode) == e.decodes);
      BOOST_TEST(name(info.dtype) == "float64");
      BOOST_TEST(info.declared.size() >= 3u);
    }
  }
  const auto ntk = make_subject("builtin:llama-block-dynamic-ntk");
  BOOST_TEST(ntk->info().supports(Op::rotate));
  BOOST_TEST((ntk->info().rotate.scaling.type == ScalingType::dynamic_ntk));
  BOOST_TEST((ntk->info().rotate_layout() == Layout::halves));
  BOOST_TEST(!make_subject("builtin:llama-block")->info().supports(Op::rotate));
}

BOOST_AUTO_TEST_CASE(modules_refuse_other_widths_and_ops_they_lack) {
  for (const char* spec : {"builtin:encoder-layer", "builtin:learned-encoder", "builtin:llama-block"}) {
    BOOST_TEST_CONTEXT(spec) {
      auto subject = make_subject(spec);
      const int d = width_of(*subject);
      BOOST_CHECK_THROW(ask::forward(*subject, random_batch(1, 1, 3, d + 2), {}, {}), Refusal);
      // Shapes that disagree with each other are the caller's error.
      BOOST_CHECK_THROW(ask::forward(*subject, random_batch(1, 2, 3, d), counting(1, 3), {}), std::invalid_argument);
      BOOST_CHECK_THROW(ask::forward(*subject, random_batch(1, 1, 3, d), {}, all_real(1, 4)), std::invalid_argument);
      // Defaults: positions 0..N−1, every token real.
      const Batch x = random_batch(2, 1, 3, d);
      BOOST_TEST(max_error(ask::forward(*subject, x, {}, {})[0], ask::forward(*subject, x, counting(1, 3), all_real(1, 3))[0]) ==
                 0.0);
      BOOST_CHECK_THROW(ask::bias(*subject, 2, 2, 0), Refusal);
      // Empty batches and empty sequences are answered, not refused.
      BOOST_TEST(ask::forward(*subject, {}, {}, {}).empty());
      const Batch empty = ask::forward(*subject, {Matrix(0, d)}, {}, {});
      BOOST_TEST_REQUIRE(empty.size() == 1u);
      BOOST_TEST(empty[0].rows() == 0);
    }
  }
  BOOST_CHECK_THROW(ask::decode(*make_subject("builtin:encoder-layer"), "s", Vector::Zero(16), 0), Refusal);
  BOOST_CHECK_THROW(ask::decode(*make_subject("builtin:llama-block"), "s", Vector::Zero(31), 0), Refusal);
  BOOST_CHECK_THROW(ask::rotate(*make_subject("builtin:llama-block"), {0}, Matrix::Zero(1, 4), std::nullopt), Refusal);
  auto learned = make_subject("builtin:learned-encoder");
  BOOST_CHECK_THROW(ask::forward(*learned, random_batch(3, 1, 2, 16), {{0, 4096}}, {}), Refusal);
  // A pad's position is never looked up.
  BoolMatrix padding = all_real(1, 2);
  padding(0, 1) = false;
  BOOST_CHECK_NO_THROW(ask::forward(*learned, random_batch(3, 1, 2, 16), {{0, 4096}}, padding));
}

BOOST_AUTO_TEST_CASE(encoder_layers_are_permutation_equivariant) {
  for (const char* spec : {"builtin:encoder-layer", "builtin:encoder-layer-pre-norm"}) {
    auto subject = make_subject(spec);
    const Batch x = random_batch(31, 2, 7, 16);
    const Batch y = ask::forward(*subject, x, counting(2, 7), all_real(2, 7));
    Batch shuffled;
    for (const auto& s : x) shuffled.push_back(permute_rows(s, kShuffle));
    const Batch y_shuffled = ask::forward(*subject, shuffled, counting(2, 7), all_real(2, 7));
    for (size_t b = 0; b < 2; ++b) {
      judge(max_error(y_shuffled[b], permute_rows(y[b], kShuffle)), magnitude(y),
            std::string(spec) + ": f(Px) vs P f(x)");
    }
  }
}

BOOST_AUTO_TEST_CASE(positional_modules_are_not_permutation_equivariant) {
  // The positions are really used: some permutation changes more than the
  // order of the rows, by far more than rounding.
  for (const char* spec : {"builtin:learned-encoder", "builtin:llama-block"}) {
    auto subject = make_subject(spec);
    const int d = width_of(*subject);
    const Batch x = random_batch(32, 1, 7, d);
    const Batch y = ask::forward(*subject, x, counting(1, 7), all_real(1, 7));
    const Batch y_shuffled = ask::forward(*subject, {permute_rows(x[0], kShuffle)}, counting(1, 7), all_real(1, 7));
    const double error = max_error(y_shuffled[0], permute_rows(y[0], kShuffle));
    BOOST_TEST(error > 1e3 * kModel.bound(magnitude(y)), spec << ": " << error);
  }
}

BOOST_AUTO_TEST_CASE(modules_are_padding_invariant) {
  for (const char* spec : {"builtin:encoder-layer", "builtin:encoder-layer-pre-norm", "builtin:learned-encoder",
                           "builtin:llama-block", "builtin:llama-block-dynamic-ntk"}) {
    check_padding_invariance(spec);
  }
}

BOOST_AUTO_TEST_CASE(modules_are_batch_invariant) {
  for (const char* spec : {"builtin:encoder-layer", "builtin:encoder-layer-pre-norm", "builtin:learned-encoder",
                           "builtin:llama-block", "builtin:llama-block-dynamic-ntk"}) {
    check_batch_invariance(spec);
  }
}

BOOST_AUTO_TEST_CASE(llama_block_is_causal) {
  auto subject = make_subject("builtin:llama-block");
  const int n = 8;
  const Batch x = random_batch(41, 1, n, 32);
  const Batch y = ask::forward(*subject, x, counting(1, n), all_real(1, n));
  for (int j = 1; j < n; ++j) {
    Batch changed = x;
    changed[0].row(j) = random_batch(42 + j, 1, 1, 32)[0].row(0) * 3.0;
    const Batch z = ask::forward(*subject, changed, counting(1, n), all_real(1, n));
    BOOST_TEST_CONTEXT("token " << j << " changed") {
      judge(max_row_error(z[0], range(0, j), y[0], range(0, j)), magnitude(y), "rows before it");
      BOOST_TEST(max_error(z[0].row(j), y[0].row(j)) > 1e3 * kModel.bound(magnitude(y)));
    }
  }
}

BOOST_AUTO_TEST_CASE(llama_block_is_shift_invariant) {
  auto subject = make_subject("builtin:llama-block");
  const int n = 9;
  const Batch x = random_batch(51, 2, n, 32);
  const Batch y = ask::forward(*subject, x, counting(2, n), all_real(2, n));
  for (Position k : {1, 5, 1000, 123456}) {
    const Batch shifted = ask::forward(*subject, x, counting(2, n, k), all_real(2, n));
    // The angle t·ω is computed from a larger t: its rounding grows with t
    // (u·|t·ω_0| = u·t radians), which rotates q and k by up to that much.
    const double scale = magnitude(y) * static_cast<double>(k + n);
    for (size_t b = 0; b < 2; ++b) judge(max_error(shifted[b], y[b]), scale, "shift by " + std::to_string(k));
  }
}

BOOST_AUTO_TEST_CASE(llama_block_decodes_what_it_forwards) {
  auto subject = make_subject("builtin:llama-block");
  const int n = 10;
  const Batch x = random_batch(61, 2, n, 32);
  const Batch y = ask::forward(*subject, x, counting(2, n), all_real(2, n));
  // Session a first holds five other tokens, then is reset; then a and b
  // decode their sequences interleaved.
  const Batch other = random_batch(62, 1, 5, 32);
  for (int t = 0; t < 5; ++t) ask::decode(*subject, "a", other[0].row(t).transpose(), t);
  ask::reset(*subject, "a");
  for (int t = 0; t < n; ++t) {
    const Vector a = ask::decode(*subject, "a", x[0].row(t).transpose(), t);
    const Vector b = ask::decode(*subject, "b", x[1].row(t).transpose(), t);
    judge(max_error(a.transpose(), y[0].row(t)), magnitude(y), "session a after a reset, token " + std::to_string(t));
    judge(max_error(b.transpose(), y[1].row(t)), magnitude(y), "session b, token " + std::to_string(t));
  }
  // Resetting a session nobody used is harmless.
  ask::reset(*subject, "never-used");
  // Decoding at shifted positions gives the same rows (RoPE is relative).
  ask::reset(*subject, "a");
  for (int t = 0; t < n; ++t) {
    const Vector a = ask::decode(*subject, "a", x[0].row(t).transpose(), 700 + t);
    judge(max_error(a.transpose(), y[0].row(t)), magnitude(y) * (700 + n), "positions from 700");
  }
}

BOOST_AUTO_TEST_CASE(learned_encoder_is_not_shift_invariant) {
  auto subject = make_subject("builtin:learned-encoder");
  const Batch x = random_batch(71, 1, 6, 16);
  const Batch y = ask::forward(*subject, x, counting(1, 6), all_real(1, 6));
  const Batch shifted = ask::forward(*subject, x, counting(1, 6, 5), all_real(1, 6));
  BOOST_TEST(max_error(shifted[0], y[0]) > 1e3 * kModel.bound(magnitude(y)));
  // And the table is what moved it: the same shift on the layer without one changes nothing.
  auto plain = make_subject("builtin:encoder-layer");
  BOOST_TEST(max_error(ask::forward(*plain, x, counting(1, 6, 5), all_real(1, 6))[0],
                       ask::forward(*plain, x, counting(1, 6), all_real(1, 6))[0]) == 0.0);
}

BOOST_AUTO_TEST_CASE(dynamic_ntk_block_is_the_plain_block_up_to_its_original_length) {
  auto ntk = make_subject("builtin:llama-block-dynamic-ntk");
  auto plain = make_subject("builtin:llama-block");
  const Batch x = random_batch(81, 1, 24, 32);
  // Up to L = 16 positions the base is the original one: the same weights give the same rows.
  const Batch short_x = {x[0].topRows(16)};
  BOOST_TEST(max_error(ask::forward(*ntk, short_x, {}, {})[0], ask::forward(*plain, short_x, {}, {})[0]) == 0.0);
  // Beyond it the base grows and every row moves.
  const Batch y_ntk = ask::forward(*ntk, x, {}, {}), y_plain = ask::forward(*plain, x, {}, {});
  BOOST_TEST(max_error(y_ntk[0].bottomRows(23), y_plain[0].bottomRows(23)) > 1e3 * kModel.bound(magnitude(y_plain)));
}

BOOST_AUTO_TEST_CASE(dynamic_ntk_block_decodes_what_the_prefix_forwards) {
  // Dynamic NTK makes row t of a forward depend on the whole length (the
  // base follows it), so decode step t is compared with the last row of a
  // forward over tokens 0..t: that is what a consistent cache gives.
  auto subject = make_subject("builtin:llama-block-dynamic-ntk");
  const int n = 24;
  const Batch x = random_batch(91, 1, n, 32);
  for (int t = 0; t < n; ++t) {
    const Vector row = ask::decode(*subject, "s", x[0].row(t).transpose(), t);
    const Batch prefix = ask::forward(*subject, {x[0].topRows(t + 1)}, {}, {});
    judge(max_error(row.transpose(), prefix[0].row(t)), magnitude(prefix), "token " + std::to_string(t));
  }
}

BOOST_AUTO_TEST_CASE(dynamic_ntk_block_answers_independently_of_history) {
  auto fresh = make_subject("builtin:llama-block-dynamic-ntk");
  auto used = make_subject("builtin:llama-block-dynamic-ntk");
  const Batch x = random_batch(101, 1, 40, 32);
  const Batch short_x = {x[0].topRows(8)};
  ask::forward(*used, x, {}, {});
  ask::rotate(*used, {0, 100}, Matrix::Ones(2, 8), std::nullopt);
  BOOST_TEST(max_error(ask::forward(*used, short_x, {}, {})[0], ask::forward(*fresh, short_x, {}, {})[0]) == 0.0);
  const Matrix r = Matrix::Ones(3, 8);
  BOOST_TEST(max_error(ask::rotate(*used, {1, 2, 3}, r, 4), ask::rotate(*fresh, {1, 2, 3}, r, 4)) == 0.0);
}

BOOST_AUTO_TEST_CASE(dynamic_ntk_block_rotates_with_the_declared_rotary) {
  auto subject = make_subject("builtin:llama-block-dynamic-ntk");
  const Matrix x = random_batch(111, 1, 3, 8)[0];
  const Positions at = {0, 7, 30};
  for (Position len : {10, 16, 17, 64}) {
    const double base = reference::dynamic_ntk_base(10000, 2, len, 16, 8);
    BOOST_TEST(max_error(ask::rotate(*subject, at, x, len), reference::rotate_halves(x, at, reference::rope_frequencies(8, base))) ==
               0.0);
  }
  // Without seq_len the length is max(positions) + 1 = 31.
  const double base31 = 10000 * std::pow(2.0 * 31 / 16 - 1, 8.0 / 6);
  BOOST_TEST(reference::dynamic_ntk_base(10000, 2, 31, 16, 8) == base31);
  BOOST_TEST(max_error(ask::rotate(*subject, at, x, std::nullopt),
                       reference::rotate_halves(x, at, reference::rope_frequencies(8, base31))) == 0.0);
  BOOST_CHECK_THROW(ask::rotate(*subject, {0}, Matrix::Ones(1, 3), std::nullopt), Refusal);
}

BOOST_AUTO_TEST_SUITE_END()  // test_modules_invariants
