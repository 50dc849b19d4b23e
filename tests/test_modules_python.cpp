// The PyTorch module examples (examples/python/torch_encoder_layer.py, with
// and without --learned-positions, and torch_llama_block.py), each started
// once and driven over stdin/stdout with a hand-written hello and
// forward/decode/reset requests. Their weights are their own, so the checks
// are the invariants of CLAIMS.md §7 that apply to each, judged by the
// error model of tests/support/module_checks.h (measured error and bound
// are logged). Their buggy twins: test_modules_python_twins.cpp.
#include <boost/test/unit_test.hpp>

#include <string>

#include "support/module_requests.h"

BOOST_AUTO_TEST_SUITE(test_modules_python)

using namespace pecheck;
using namespace pecheck::testing;

BOOST_AUTO_TEST_CASE(torch_encoder_layer_is_permutation_padding_and_batch_invariant) {
  const Batch x = random_batch(1, 2, 6, 16);
  Batch shuffled;
  for (const auto& s : x) shuffled.push_back(permute_rows(s, kShuffle));
  const auto answers = run_python_subject(
      {"examples/python/torch_encoder_layer.py"},
      {forward_request(x, counting(2, 6), all_real(2, 6)), forward_request(shuffled, counting(2, 6), all_real(2, 6)),
       padded_request(x[0], 2, true), padded_request(x[0], 3, false),
       forward_request({x[0]}, counting(1, 6), all_real(1, 6)),
       forward_request(random_batch(2, 1, 3, 15), counting(1, 3), all_real(1, 3))});
  log_run("torch_encoder_layer.py", answers);
  BOOST_TEST(answers.hello["params"]["forward"]["positional"] == "none");
  BOOST_TEST(answers.hello["params"]["forward"]["causal"] == false);
  const Batch y = batch_from(answers.result(1)), y_shuffled = batch_from(answers.result(2));
  const Matrix left = batch_from(answers.result(3))[0], right = batch_from(answers.result(4))[0];
  const Matrix alone = batch_from(answers.result(5))[0];
  const double scale = magnitude(y);
  for (size_t b = 0; b < 2; ++b) {
    BOOST_TEST(agrees(max_error(y_shuffled[b], permute_rows(y[b], kShuffle)), scale, "f(Px) vs P f(x)"));
  }
  BOOST_TEST(agrees(max_error(left.bottomRows(6), alone), scale, "left pads"));
  BOOST_TEST(agrees(max_error(right.topRows(6), alone), scale, "right pads"));
  BOOST_TEST(agrees(max_error(y[0], alone), scale, "alone vs first of two"));
  BOOST_TEST(answers.errors.count(6) == 1u);  // width 15 refused
}

BOOST_AUTO_TEST_CASE(torch_learned_positions_are_absolute_and_padding_invariant) {
  const Matrix x = random_batch(3, 1, 6, 16)[0];
  const auto answers = run_python_subject({"examples/python/torch_encoder_layer.py", "--learned-positions"},
                                          {forward_request({x}, counting(1, 6), all_real(1, 6)),
                                           forward_request({x}, counting(1, 6, 5), all_real(1, 6)),
                                           padded_request(x, 3, true),
                                           forward_request({permute_rows(x, kShuffle)}, counting(1, 6), all_real(1, 6)),
                                           forward_request({x}, counting(1, 6, 4091), all_real(1, 6))});
  log_run("torch_encoder_layer.py --learned-positions", answers);
  BOOST_TEST(answers.hello["params"]["forward"]["positional"] == "absolute");
  const Matrix y = batch_from(answers.result(1))[0];
  const double scale = y.cwiseAbs().maxCoeff();
  BOOST_TEST(differs(max_error(batch_from(answers.result(2))[0], y), scale, "shifted by 5"));
  BOOST_TEST(agrees(max_error(batch_from(answers.result(3))[0].bottomRows(6), y), scale, "left pads"));
  BOOST_TEST(differs(max_error(batch_from(answers.result(4))[0], permute_rows(y, kShuffle)), scale, "permuted"));
  BOOST_TEST(answers.errors.count(5) == 1u);  // position 4096 is past the table
}

BOOST_AUTO_TEST_CASE(torch_llama_block_is_causal_relative_padding_invariant_and_decodes_what_it_forwards) {
  const int n = 8;
  const Matrix x = random_batch(5, 1, n, 32)[0];
  Matrix changed = x;
  changed.row(5) *= -3.0;
  std::vector<json> requests = {forward_request({x}, counting(1, n), all_real(1, n)),
                                forward_request({changed}, counting(1, n), all_real(1, n)),
                                forward_request({x}, counting(1, n, 100), all_real(1, n)),
                                padded_request(x, 3, true),
                                decode_request("s", x.row(0).transpose(), 0),
                                decode_request("s", x.row(1).transpose(), 1),
                                {{"op", "reset"}, {"session", "s"}}};
  for (int t = 0; t < n; ++t) requests.push_back(decode_request("s", x.row(t).transpose(), t));  // ids 8..15
  const auto answers = run_python_subject({"examples/python/torch_llama_block.py"}, requests);
  log_run("torch_llama_block.py", answers);
  BOOST_TEST(answers.hello["params"]["forward"]["causal"] == true);
  BOOST_TEST(answers.hello["params"]["forward"]["positional"] == "relative");
  const Matrix y = batch_from(answers.result(1))[0];
  const double scale = y.cwiseAbs().maxCoeff();
  const Matrix after_change = batch_from(answers.result(2))[0];
  BOOST_TEST(agrees(max_error(after_change.topRows(5), y.topRows(5)), scale, "rows before a changed token 5"));
  BOOST_TEST(differs(max_error(after_change.row(5), y.row(5)), scale, "row 5 itself"));
  BOOST_TEST(agrees(max_error(batch_from(answers.result(3))[0], y), scale * (100 + n), "positions from 100"));
  BOOST_TEST(agrees(max_error(batch_from(answers.result(4))[0].bottomRows(n), y), scale, "left pads"));
  BOOST_TEST(agrees(max_error(decoded_rows(answers, 8, n), y), scale, "decode after a reset vs forward"));
}

BOOST_AUTO_TEST_SUITE_END()  // test_modules_python
