// Every planted module bug (planted/module_mutants.cpp) differs from its
// correct twin exactly in the situation its bug describes, and agrees with
// it (within the error model of tests/support/module_checks.h, or bit for
// bit where the computation is the same) everywhere else:
//   a cache keyed wrong differs only once the cache is hit with other
//   positions; a cache grown and never shrunk only after a longer request;
//   a batch bug only beside other sequences; a padding bug only with left
//   pads; a leaking mask only in the rows before the last.
#include <boost/test/unit_test.hpp>

#include <string>

#include "pecheck/reference/modules.h"
#include "pecheck/subjects/builtin/builtins.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/typed_subject.h"
#include "support/module_checks.h"

BOOST_AUTO_TEST_SUITE(test_modules_mutants)

using namespace pecheck;
using namespace pecheck::testing;

namespace {

// Decodes sequence x (positions from `from`) in session s, one row per token.
Matrix decode_all(Subject& subject, const Matrix& x, Position from = 0, const std::string& session = "s") {
  Matrix out(x.rows(), x.cols());
  for (Eigen::Index t = 0; t < x.rows(); ++t) out.row(t) = ask::decode(subject, session, x.row(t).transpose(), from + t).transpose();
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_module_mutant_is_registered_with_its_twins_scheme) {
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"llama-rotary-cache-by-length", "llama-block"},
      {"llama-kv-cache-current-position", "llama-block"},
      {"llama-causal-mask-leak", "llama-block"},
      {"llama-reset-keeps-cache", "llama-block"},
      {"llama-ntk-cache-never-shrinks", "llama-block-dynamic-ntk"},
      {"llama-ntk-static-base", "llama-block-dynamic-ntk"},
      {"llama-ntk-kv-cache-stale-base", "llama-block-dynamic-ntk"},
      {"llama-ntk-batch-max-length", "llama-block-dynamic-ntk"},
      {"learned-encoder-position-ids-from-row-start", "learned-encoder"},
      {"encoder-layer-batch-statistics", "encoder-layer"},
  };
  for (const auto& [name, scheme] : expected) {
    BOOST_TEST_CONTEXT(name) {
      auto mutant = make_subject("mutant:" + name);
      auto twin = make_subject("builtin:" + scheme);
      BOOST_TEST(mutant->info().scheme == scheme);
      BOOST_TEST(format_spec(mutant->info().spec) == "mutant:" + name);
      // It declares what its twin declares: nothing in the hello gives it away.
      BOOST_TEST(mutant->info().ops == twin->info().ops);
      BOOST_TEST(mutant->info().declared == twin->info().declared);
      BOOST_TEST((mutant->info().forward->positional == twin->info().forward->positional));
    }
  }
}

BOOST_AUTO_TEST_CASE(rotary_cache_keyed_by_length_rotates_every_decoded_token_like_the_first) {
  auto mutant = make_subject("mutant:llama-rotary-cache-by-length");
  auto twin = make_subject("builtin:llama-block");
  const Batch x = random_batch(1, 1, 8, 32);
  // A forward cannot show it: at offset 0 the cache holds the right
  // rotation, and at offset 5 it holds offset 0's, which RoPE cannot tell
  // apart (a whole-sequence shift changes nothing).
  const Batch y = ask::forward(*twin, x, {}, {});
  BOOST_TEST(max_error(ask::forward(*mutant, x, {}, {})[0], y[0]) == 0.0);
  BOOST_TEST(agrees(max_error(ask::forward(*mutant, x, counting(1, 8, 5), {})[0], y[0]), magnitude(y)));
  // Decode rotates one row per call: the first call (offset 0) fills the
  // cache for length 1, and every later token is rotated as if at 0.
  const Matrix decoded = decode_all(*mutant, x[0]), expected = decode_all(*twin, x[0]);
  BOOST_TEST(max_error(decoded.row(0), expected.row(0)) == 0.0);
  for (Eigen::Index t = 1; t < 8; ++t) BOOST_TEST(differs(max_error(decoded.row(t), expected.row(t)), magnitude(y)), "token " << t);
}

BOOST_AUTO_TEST_CASE(kv_cache_rotated_at_the_current_position_breaks_decode_only) {
  auto mutant = make_subject("mutant:llama-kv-cache-current-position");
  auto twin = make_subject("builtin:llama-block");
  const Batch x = random_batch(2, 1, 8, 32);
  const Batch y = ask::forward(*twin, x, {}, {});
  BOOST_TEST(max_error(ask::forward(*mutant, x, {}, {})[0], y[0]) == 0.0);
  const Matrix decoded = decode_all(*mutant, x[0]), expected = decode_all(*twin, x[0]);
  BOOST_TEST(max_error(decoded.row(0), expected.row(0)) == 0.0);  // one key: its own position
  for (Eigen::Index t = 1; t < 8; ++t) BOOST_TEST(differs(max_error(decoded.row(t), expected.row(t)), magnitude(y)), "token " << t);
}

BOOST_AUTO_TEST_CASE(a_leaking_causal_mask_lets_row_i_see_token_i_plus_one) {
  auto mutant = make_subject("mutant:llama-causal-mask-leak");
  auto twin = make_subject("builtin:llama-block");
  const int n = 6;
  const Batch x = random_batch(3, 1, n, 32);
  const Batch y = ask::forward(*twin, x, {}, {}), leaked = ask::forward(*mutant, x, {}, {});
  // The last row has no next token to see; every other row differs.
  BOOST_TEST(max_error(leaked[0].row(n - 1), y[0].row(n - 1)) == 0.0);
  for (int i = 0; i + 1 < n; ++i) BOOST_TEST(differs(max_error(leaked[0].row(i), y[0].row(i)), magnitude(y)), "row " << i);
  // Changing token 3 moves row 2 (one step of look-ahead) but not row 1.
  Batch changed = x;
  changed[0].row(3) *= -2.0;
  const Batch after = ask::forward(*mutant, changed, {}, {});
  BOOST_TEST(differs(max_error(after[0].row(2), leaked[0].row(2)), magnitude(y)));
  BOOST_TEST(max_error(after[0].row(1), leaked[0].row(1)) == 0.0);
  // Decode has no future token to leak: it still agrees with the twin.
  BOOST_TEST(max_error(decode_all(*mutant, x[0]), decode_all(*twin, x[0])) == 0.0);
}

BOOST_AUTO_TEST_CASE(a_reset_that_keeps_the_cache_shows_after_the_reset_only) {
  auto mutant = make_subject("mutant:llama-reset-keeps-cache");
  auto twin = make_subject("builtin:llama-block");
  const Batch x = random_batch(4, 1, 6, 32);
  BOOST_TEST(max_error(decode_all(*mutant, x[0]), decode_all(*twin, x[0])) == 0.0);
  ask::reset(*mutant, "s");
  ask::reset(*twin, "s");
  const Matrix again = decode_all(*mutant, x[0]), expected = decode_all(*twin, x[0]);
  for (Eigen::Index t = 0; t < 6; ++t) BOOST_TEST(differs(max_error(again.row(t), expected.row(t)), 1.0), "token " << t);
  // Another session, never reset, is unaffected.
  BOOST_TEST(max_error(decode_all(*mutant, x[0], 0, "other"), expected) == 0.0);
}

BOOST_AUTO_TEST_CASE(ntk_frequencies_never_shrunk_answer_a_short_request_differently_after_a_long_one) {
  auto mutant = make_subject("mutant:llama-ntk-cache-never-shrinks");
  auto twin = make_subject("builtin:llama-block-dynamic-ntk");
  const Batch x = random_batch(5, 1, 40, 32);
  const Batch short_x = {x[0].topRows(10)};
  const Batch expected = ask::forward(*twin, short_x, {}, {});
  // Fresh, and even after a request longer than L, as long as nothing longer came before: the same.
  BOOST_TEST(max_error(ask::forward(*mutant, short_x, {}, {})[0], expected[0]) == 0.0);
  const Batch medium = {x[0].topRows(20)};
  BOOST_TEST(max_error(ask::forward(*mutant, medium, {}, {})[0], ask::forward(*twin, medium, {}, {})[0]) == 0.0);
  // After 40 tokens, the short request keeps the base of 40.
  ask::forward(*mutant, x, {}, {});
  BOOST_TEST(differs(max_error(ask::forward(*mutant, short_x, {}, {})[0], expected[0]), magnitude(expected)));
  // So does its rotate, at a width it never saw a long request for... only once it has.
  const Matrix ones = Matrix::Ones(2, 8);
  BOOST_TEST(max_error(ask::rotate(*mutant, {1, 5}, ones, 8), ask::rotate(*twin, {1, 5}, ones, 8)) > 0.01);
  const Matrix wide = Matrix::Ones(2, 6);
  BOOST_TEST(max_error(ask::rotate(*mutant, {1, 5}, wide, 8), ask::rotate(*twin, {1, 5}, wide, 8)) == 0.0);
  ask::rotate(*mutant, {0}, Matrix::Ones(1, 6), 100);
  BOOST_TEST(max_error(ask::rotate(*mutant, {1, 5}, wide, 8), ask::rotate(*twin, {1, 5}, wide, 8)) > 0.01);
}

BOOST_AUTO_TEST_CASE(a_static_ntk_base_is_right_only_at_length_l_times_factor) {
  auto mutant = make_subject("mutant:llama-ntk-static-base");
  auto twin = make_subject("builtin:llama-block-dynamic-ntk");
  const Matrix x = random_batch(6, 1, 3, 8)[0];
  const Positions at = {0, 3, 9};
  // At 32 = 16·2 the published formula gives (2·32/16 − 1) = 3 = F² − F + 1: they agree.
  BOOST_TEST(max_error(ask::rotate(*mutant, at, x, 32), ask::rotate(*twin, at, x, 32)) == 0.0);
  for (Position len : {8, 16, 17, 64}) {
    BOOST_TEST(max_error(ask::rotate(*mutant, at, x, len), ask::rotate(*twin, at, x, len)) > 1e-3, "length " << len);
  }
  // In forward too: a short sequence differs. No structural module claim
  // sees it (it is shift-invariant below L, consistent and history-free):
  // only the reference values of its rotate do.
  const Batch seq = random_batch(7, 1, 8, 32);
  const Batch y = ask::forward(*twin, seq, {}, {});
  BOOST_TEST(differs(max_error(ask::forward(*mutant, seq, {}, {})[0], y[0]), magnitude(y)));
  BOOST_TEST(agrees(max_error(ask::forward(*mutant, seq, counting(1, 8, 3), {})[0], ask::forward(*mutant, seq, {}, {})[0]),
                    magnitude(y) * 11));
}

BOOST_AUTO_TEST_CASE(kv_cache_with_a_stale_ntk_base_differs_once_the_length_passes_l) {
  auto mutant = make_subject("mutant:llama-ntk-kv-cache-stale-base");
  auto twin = make_subject("builtin:llama-block-dynamic-ntk");
  const Batch x = random_batch(8, 1, 22, 32);
  const Matrix decoded = decode_all(*mutant, x[0]), expected = decode_all(*twin, x[0]);
  // Up to 16 tokens every base is the original one.
  BOOST_TEST(max_error(decoded.topRows(16), expected.topRows(16)) == 0.0);
  for (Eigen::Index t = 16; t < 22; ++t) BOOST_TEST(differs(max_error(decoded.row(t), expected.row(t)), 1.0), "token " << t);
  // Forward rotates every key with one base: the same as the twin.
  BOOST_TEST(max_error(ask::forward(*mutant, x, {}, {})[0], ask::forward(*twin, x, {}, {})[0]) == 0.0);
}

BOOST_AUTO_TEST_CASE(ntk_base_of_the_longest_sequence_shows_beside_a_longer_one_only) {
  auto mutant = make_subject("mutant:llama-ntk-batch-max-length");
  auto twin = make_subject("builtin:llama-block-dynamic-ntk");
  const Batch x = random_batch(9, 2, 30, 32);
  // Sequence 0 has 10 real tokens (right-padded), sequence 1 has 30.
  BoolMatrix padding = all_real(2, 30);
  std::vector<Positions> positions = counting(2, 30);
  for (int r = 10; r < 30; ++r) {
    padding(0, r) = false;
    positions[0][static_cast<size_t>(r)] = 0;
  }
  const Batch alone = ask::forward(*twin, {x[0].topRows(10)}, {}, {});
  BOOST_TEST(max_error(ask::forward(*mutant, {x[0].topRows(10)}, {}, {})[0], alone[0]) == 0.0);
  const Batch together = ask::forward(*mutant, x, positions, padding), expected = ask::forward(*twin, x, positions, padding);
  BOOST_TEST(differs(max_error(together[0].topRows(10), alone[0]), magnitude(alone)));
  BOOST_TEST(agrees(max_error(expected[0].topRows(10), alone[0]), magnitude(alone)));
  BOOST_TEST(max_error(together[1], expected[1]) == 0.0);  // the longest one gets its own base
  // The batch's length does not outlive the forward.
  const Matrix ones = Matrix::Ones(1, 8);
  BOOST_TEST(max_error(ask::rotate(*mutant, {3}, ones, 8), ask::rotate(*twin, {3}, ones, 8)) == 0.0);
}

BOOST_AUTO_TEST_CASE(position_ids_from_the_row_start_show_under_left_padding_only) {
  auto mutant = make_subject("mutant:learned-encoder-position-ids-from-row-start");
  auto twin = make_subject("builtin:learned-encoder");
  const Batch x = random_batch(10, 1, 7, 16);
  // No pads, or pads on the right: the row index is the position.
  BOOST_TEST(max_error(ask::forward(*mutant, x, {}, {})[0], ask::forward(*twin, x, {}, {})[0]) == 0.0);
  BoolMatrix right = all_real(1, 7);
  right(0, 5) = right(0, 6) = false;
  const std::vector<Positions> right_positions = {{0, 1, 2, 3, 4, 0, 0}};
  BOOST_TEST(max_error(ask::forward(*mutant, x, right_positions, right)[0].topRows(5),
                       ask::forward(*twin, x, right_positions, right)[0].topRows(5)) == 0.0);
  // Left pads: the real tokens look up rows 2..6 instead of 0..4.
  BoolMatrix left = all_real(1, 7);
  left(0, 0) = left(0, 1) = false;
  const std::vector<Positions> left_positions = {{0, 0, 0, 1, 2, 3, 4}};
  const Batch y = ask::forward(*twin, x, left_positions, left);
  const Batch wrong = ask::forward(*mutant, x, left_positions, left);
  BOOST_TEST(differs(max_error(wrong[0].bottomRows(5), y[0].bottomRows(5)), magnitude(y)));
}

BOOST_AUTO_TEST_CASE(batch_statistics_show_beside_other_sequences_only) {
  auto mutant = make_subject("mutant:encoder-layer-batch-statistics");
  auto twin = make_subject("builtin:encoder-layer");
  const Batch x = random_batch(11, 3, 5, 16);
  // Alone, token r's statistics are its own: LayerNorm, summed in another order.
  const Batch alone = ask::forward(*twin, {x[0]}, {}, {});
  BOOST_TEST(agrees(max_error(ask::forward(*mutant, {x[0]}, {}, {})[0], alone[0]), magnitude(alone)));
  // Beside two others, sequence 0 moves, and moves again when a neighbour changes.
  const Batch together = ask::forward(*mutant, x, {}, {});
  BOOST_TEST(differs(max_error(together[0], alone[0]), magnitude(alone)));
  Batch changed = x;
  changed[2] *= 3.0;
  BOOST_TEST(differs(max_error(ask::forward(*mutant, changed, {}, {})[0], together[0]), magnitude(alone)));
  BOOST_TEST(agrees(max_error(ask::forward(*twin, changed, {}, {})[0], alone[0]), magnitude(alone)));
}

BOOST_AUTO_TEST_SUITE_END()  // test_modules_mutants
