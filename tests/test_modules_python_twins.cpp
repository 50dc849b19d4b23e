// The buggy twins of the PyTorch module examples (tests/subjects/llama_*.py
// and encoder_*.py), each started once and driven over stdin/stdout: each
// breaks the invariant its bug breaks, exactly where (decode agrees on the
// first token and not after; a leaking mask moves the row before a changed
// token; batch statistics move with the neighbours; row-start position ids
// show under left pads and not right ones), judged by the error model of
// tests/support/module_checks.h.
#include <boost/test/unit_test.hpp>

#include <string>

#include "support/module_requests.h"

BOOST_AUTO_TEST_SUITE(test_modules_python_twins)

using namespace pecheck;
using namespace pecheck::testing;

BOOST_AUTO_TEST_CASE(rotary_cache_keyed_by_length_decodes_every_token_like_the_first) {
  const auto run = forward_then_decode("tests/subjects/llama_rotary_cache_offset.py", random_batch(6, 1, 6, 32)[0]);
  BOOST_TEST(agrees(max_error(run.decoded.row(0), run.forward.row(0)), run.scale, "token 0"));
  for (Eigen::Index t = 1; t < 6; ++t) {
    BOOST_TEST(differs(max_error(run.decoded.row(t), run.forward.row(t)), run.scale, "token " + std::to_string(t)));
  }
}

BOOST_AUTO_TEST_CASE(kv_cache_rotated_at_the_current_position_decodes_token_zero_only) {
  const auto run = forward_then_decode("tests/subjects/llama_kv_cache_wrong_position.py", random_batch(7, 1, 6, 32)[0]);
  BOOST_TEST(agrees(max_error(run.decoded.row(0), run.forward.row(0)), run.scale, "token 0"));
  for (Eigen::Index t = 1; t < 6; ++t) {
    BOOST_TEST(differs(max_error(run.decoded.row(t), run.forward.row(t)), run.scale, "token " + std::to_string(t)));
  }
}

BOOST_AUTO_TEST_CASE(look_ahead_mask_shows_in_causality_and_in_decode) {
  const int n = 6;
  const Matrix x = random_batch(8, 1, n, 32)[0];
  Matrix changed = x;
  changed.row(3) *= -3.0;
  std::vector<json> requests = {forward_request({x}, counting(1, n), all_real(1, n)),
                                forward_request({changed}, counting(1, n), all_real(1, n))};
  for (int t = 0; t < n; ++t) requests.push_back(decode_request("s", x.row(t).transpose(), t));
  const auto answers = run_python_subject({"tests/subjects/llama_lookahead_mask.py"}, requests);
  log_run("llama_lookahead_mask.py", answers);
  const Matrix y = batch_from(answers.result(1))[0], after = batch_from(answers.result(2))[0];
  const double scale = y.cwiseAbs().maxCoeff();
  BOOST_TEST(differs(max_error(after.row(2), y.row(2)), scale, "row 2 after token 3 changed"));
  BOOST_TEST(agrees(max_error(after.topRows(2), y.topRows(2)), scale, "rows 0 and 1"));
  const Matrix decoded = decoded_rows(answers, 3, n);
  BOOST_TEST(agrees(max_error(decoded.row(n - 1), y.row(n - 1)), scale, "the last row has nothing to leak"));
  BOOST_TEST(differs(max_error(decoded.topRows(n - 1), y.topRows(n - 1)), scale, "decode vs forward"));
}

BOOST_AUTO_TEST_CASE(batch_statistics_twin_depends_on_its_neighbours) {
  const Batch x = random_batch(9, 3, 5, 16);
  Batch changed = x;
  changed[2] *= 3.0;
  const auto answers = run_python_subject({"tests/subjects/encoder_batch_statistics.py"},
                                          {forward_request({x[0]}, counting(1, 5), all_real(1, 5)),
                                           forward_request(x, counting(3, 5), all_real(3, 5)),
                                           forward_request(changed, counting(3, 5), all_real(3, 5))});
  log_run("encoder_batch_statistics.py", answers);
  const Matrix alone = batch_from(answers.result(1))[0];
  const Matrix first = batch_from(answers.result(2))[0], again = batch_from(answers.result(3))[0];
  const double scale = alone.cwiseAbs().maxCoeff();
  BOOST_TEST(differs(max_error(first, alone), scale, "alone vs first of three"));
  BOOST_TEST(differs(max_error(again, first), scale, "after its neighbour changed"));
}

BOOST_AUTO_TEST_CASE(position_ids_from_the_row_start_show_under_left_padding) {
  const Matrix x = random_batch(10, 1, 6, 16)[0];
  const auto answers = run_python_subject({"tests/subjects/encoder_position_ids_from_row_start.py"},
                                          {forward_request({x}, counting(1, 6), all_real(1, 6)),
                                           padded_request(x, 2, false), padded_request(x, 2, true)});
  log_run("encoder_position_ids_from_row_start.py", answers);
  const Matrix y = batch_from(answers.result(1))[0];
  const double scale = y.cwiseAbs().maxCoeff();
  BOOST_TEST(agrees(max_error(batch_from(answers.result(2))[0].topRows(6), y), scale, "right pads"));
  BOOST_TEST(differs(max_error(batch_from(answers.result(3))[0].bottomRows(6), y), scale, "left pads"));
}

BOOST_AUTO_TEST_SUITE_END()  // test_modules_python_twins
