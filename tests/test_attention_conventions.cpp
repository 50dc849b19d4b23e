// Issue 20 — the attention of 2024–2026 models: the reference of each declared
// convention against its closed form, the declarations a hello (and pecheck.toml)
// reads, the multi-head wire, and the built-ins judged by every claim of
// CLAIMS.md §8 (their expected violations of §1 demonstrated). The planted
// bugs are run by test_planted_catalog, the published ones by test_real_cli_attention.
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "pecheck/property/registry.h"
#include "pecheck/reference/attention.h"
#include "pecheck/subjects/builtin/builtins.h"
#include "pecheck/protocol/calls.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/serve.h"
#include "pecheck/subjects/typed_subject.h"
#include "protocol/declarations.h"
#include "protocol/hello.h"
#include "protocol/requests.h"
#include "protocol/responses.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_attention_conventions)

using namespace pecheck;

namespace {

Matrix random_matrix(Eigen::Index rows, Eigen::Index cols, unsigned seed) {
  std::srand(seed);
  return Matrix::Random(rows, cols);
}

// One head's softmax(scale·q kᵀ) v over `allowed`, written out.
Matrix one_head(const Matrix& q, const Matrix& k, const Matrix& v, const BoolMatrix& allowed, double scale,
                std::optional<double> cap = std::nullopt, std::optional<double> sink = std::nullopt) {
  Matrix y = Matrix::Zero(q.rows(), v.cols());
  for (Eigen::Index i = 0; i < q.rows(); ++i) {
    double sum = sink ? std::exp(*sink) : 0.0;
    Vector w = Vector::Zero(k.rows());
    for (Eigen::Index j = 0; j < k.rows(); ++j) {
      if (!allowed(i, j)) continue;
      double s = q.row(i).dot(k.row(j)) * scale;
      if (cap) s = *cap * std::tanh(s / *cap);
      w(j) = std::exp(s);
      sum += w(j);
    }
    if (sum > 0) y.row(i) = (w / sum).transpose() * v;
  }
  return y;
}

json hello_with(json params, const char* ops = R"(["attention"])") {
  return json{{"protocol", 2}, {"name", "s"}, {"ops", json::parse(ops)}, {"dtype", "float32"}, {"params", params}};
}

std::string refused(const json& hello) {
  try {
    process::read_hello(hello);
  } catch (const BadDeclaration& d) {
    return d.field + ": " + d.what();
  }
  return "(accepted)";
}

}  // namespace

BOOST_AUTO_TEST_CASE(grouped_heads_read_their_kv_head_by_repeat_interleave_or_tile) {
  const Matrix q = random_matrix(3, 4 * 2, 1), k = random_matrix(5, 2 * 2, 2), v = random_matrix(5, 2 * 3, 3);
  for (Grouping rule : {Grouping::repeat_interleave, Grouping::tile}) {
    AttentionConvention c;
    c.heads = 4;
    c.kv_heads = 2;
    c.grouping = rule;
    const Matrix y = reference::attention(q, k, v, AttentionMask::none(), 4, Dtype::float64, c);
    BOOST_REQUIRE(y.rows() == 3 && y.cols() == 4 * 3);
    for (int h = 0; h < 4; ++h) {
      const int g = rule == Grouping::tile ? h % 2 : h / 2;
      const Matrix want = one_head(q.middleCols(2 * h, 2), k.middleCols(2 * g, 2), v.middleCols(3 * g, 3),
                                   BoolMatrix::Constant(3, 5, true), 1 / std::sqrt(2.0));
      BOOST_TEST((y.middleCols(3 * h, 3) - want).cwiseAbs().maxCoeff() < 1e-14, "head " << h);
    }
  }
}

BOOST_AUTO_TEST_CASE(window_chunk_and_alignment_narrow_the_causal_mask_only) {
  AttentionConvention window;
  window.window = 3;
  BOOST_TEST(window.causal_sees(5, 3, 6, 6));
  BOOST_TEST(!window.causal_sees(5, 2, 6, 6));  // j = i − W: outside
  BOOST_TEST(!window.causal_sees(2, 3, 6, 6));  // the future
  AttentionConvention chunk;
  chunk.chunk = 3;
  BOOST_TEST(chunk.causal_sees(4, 3, 6, 6));
  BOOST_TEST(!chunk.causal_sees(3, 2, 6, 6));
  AttentionConvention cache;
  cache.alignment = Alignment::bottom_right;
  cache.window = 2;
  BOOST_TEST(cache.causal_sees(0, 3, 2, 5));   // query 0 sits at key 3
  BOOST_TEST(!cache.causal_sees(0, 4, 2, 5));
  BOOST_TEST(!cache.causal_sees(0, 1, 2, 5));  // outside the window counted from key 3
  // A boolean mask is used as given.
  const BoolMatrix seen = reference::visible_keys(AttentionMask::none(), 2, 5, cache);
  BOOST_TEST(seen.all());
  // Version 1 refuses a causal n ≠ m; a declared alignment allows it.
  const Matrix q = random_matrix(2, 4, 4), k = random_matrix(5, 4, 5), v = random_matrix(5, 2, 6);
  BOOST_CHECK_THROW(reference::attention(q, k, v, AttentionMask::causal(), 1, Dtype::float64, AttentionConvention{}),
                    Refusal);
  const Matrix y = reference::attention(q, k, v, AttentionMask::causal(), 1, Dtype::float64, cache);
  const Matrix want = one_head(q, k, v, reference::visible_keys(AttentionMask::causal(), 2, 5, cache), 0.5);
  BOOST_TEST((y - want).cwiseAbs().maxCoeff() < 1e-14);
}

BOOST_AUTO_TEST_CASE(softcap_sinks_and_scale_follow_their_formulas) {
  const Matrix q = random_matrix(2, 4, 7) * 20, k = random_matrix(3, 4, 8), v = random_matrix(3, 2, 9);
  AttentionConvention c;
  c.softcap = 5;
  c.scale = 0.3;
  c.sinks = true;
  c.sink_logits = {0.7};
  const Matrix y = reference::attention(q, k, v, AttentionMask::none(), 1, Dtype::float64, c);
  const Matrix want = one_head(q, k, v, BoolMatrix::Constant(2, 3, true), 0.3, 5.0, 0.7);
  BOOST_TEST((y - want).cwiseAbs().maxCoeff() < 1e-13);
  // With every logit 0 the keys take m/(e^σ + m).
  const Matrix zero = Matrix::Zero(1, 4);
  const Matrix w = reference::attention(zero, k, Matrix::Identity(3, 3), AttentionMask::none(), 1, Dtype::float64, c);
  BOOST_TEST(std::fabs(w.sum() - 3 / (std::exp(0.7) + 3)) < 1e-15);
}

BOOST_AUTO_TEST_CASE(a_fully_masked_row_gets_the_policy) {
  const Matrix q = random_matrix(2, 2, 10), k = random_matrix(2, 2, 11), v = random_matrix(2, 2, 12);
  BoolMatrix allowed(2, 2);
  allowed << false, false, true, false;
  AttentionConvention zeros;
  zeros.fully_masked = FullyMasked::zeros;
  const Matrix y = reference::attention(q, k, v, AttentionMask::boolean(allowed), 1, Dtype::float64, zeros);
  BOOST_TEST(y.row(0).isZero(0));
  BOOST_TEST((y.row(1) - v.row(0)).cwiseAbs().maxCoeff() < 1e-15);
  BOOST_CHECK_THROW(reference::attention(q, k, v, AttentionMask::boolean(allowed), 1, Dtype::float64,
                                         AttentionConvention{}),
                    Refusal);
}

BOOST_AUTO_TEST_CASE(params_attention_reads_config_names_and_refuses_what_cannot_be) {
  const auto hello = process::read_hello(hello_with(
      {{"attention", {{"num_attention_heads", 8}, {"num_key_value_heads", 2}, {"sliding_window", 4096},
                      {"attn_logit_softcapping", 50.0}, {"attention_chunk_size", nullptr}, {"alignment", "bottom_right"},
                      {"sinks", true}, {"sink_logits", {0, 1, 2, 3, 4, 5, 6, 7}}}}}));
  const AttentionConvention& a = hello.info.attention;
  BOOST_TEST(*a.heads == 8);
  BOOST_TEST(a.key_heads() == 2);
  BOOST_TEST(*a.window == 4096);
  BOOST_TEST(*a.softcap == 50.0);
  BOOST_TEST(!a.chunk.has_value());
  BOOST_TEST((*a.alignment == Alignment::bottom_right));
  BOOST_TEST(a.sink_logits.size() == 8u);
  // Written back in pecheck's spelling, read back the same.
  const json params = process::params_json(hello.info);
  BOOST_TEST(params["attention"]["window"] == 4096);
  const auto again = process::read_hello(hello_with(params));
  BOOST_TEST(*again.info.attention.heads == 8);
  BOOST_TEST(*again.info.attention.window == 4096);

  BOOST_TEST(refused(hello_with({{"attention", {{"kv_heads", 2}}}})).find("needs params.attention.heads") !=
             std::string::npos);
  BOOST_TEST(refused(hello_with({{"attention", {{"heads", 4}, {"kv_heads", 3}}}})).find("must divide") !=
             std::string::npos);
  BOOST_TEST(refused(hello_with({{"attention", {{"softcap", 0}}}})).find("leave it out") != std::string::npos);
  BOOST_TEST(refused(hello_with({{"attention", {{"heads", 2}, {"sinks", true}, {"sink_logits", {1.0}}}}})).find(
                 "one number per head") != std::string::npos);
  BOOST_TEST(refused(hello_with({{"attention", {{"window", 4}, {"sliding_window", 8}}}})).find("say different") !=
             std::string::npos);
  BOOST_TEST(refused(hello_with({{"attention", {{"windw", 4}}}})).find("params.attention.windw") != std::string::npos);
  BOOST_TEST(refused(hello_with({{"attention", {{"window", 4}}}}, R"(["rotate"])")).find("not the op attention") !=
             std::string::npos);
  // params.forward: the same fields, and the request fields a module accepts.
  const auto module = process::read_hello(
      hello_with({{"forward", {{"causal", true}, {"window", 4}, {"segments", true}, {"multi_token_decode", true},
                               {"cache_capacity", true}}}},
                 R"(["forward", "decode", "reset"])"));
  BOOST_TEST(*module.info.forward->attention.window == 4);
  BOOST_TEST(module.info.forward->segments);
  BOOST_TEST(module.info.forward->multi_token_decode);
  BOOST_TEST(module.info.forward->cache_capacity);
}

BOOST_AUTO_TEST_CASE(multi_head_requests_travel_as_head_tensors_and_come_back_packed) {
  const Matrix q = random_matrix(2, 4 * 3, 13), k = random_matrix(3, 2 * 3, 14), v = random_matrix(3, 2 * 2, 15);
  const AttentionCall call{q, k, v, AttentionMask::causal(), 4};
  (void)call;
  const json request = json::parse(process::call_request(1, AttentionCall{q, q.leftCols(6), v.topRows(2),
                                                                           AttentionMask::none(), 4},
                                                         process::Arrays::json, true));
  BOOST_TEST(request["q"].size() == 4u);        // H heads
  BOOST_TEST(request["q"][0].size() == 2u);     // n rows
  BOOST_TEST(request["q"][0][0].size() == 3u);  // d_h
  BOOST_TEST(request["k"].size() == 2u);        // G heads
  // pecheck serve of a GQA built-in reads the tensors and answers H × n × d_v.
  auto block = make_subject("builtin:llama-gqa-block");
  json r = {{"id", 7}, {"op", "attention"}, {"q", json::array()}, {"k", json::array()}, {"v", json::array()},
            {"mask", "none"}};
  for (const Matrix& h : columns_to_heads(q, 4)) r["q"].push_back(matrix_to_json(h));
  for (const Matrix& h : columns_to_heads(k, 2)) r["k"].push_back(matrix_to_json(h));
  for (const Matrix& h : columns_to_heads(v, 2)) r["v"].push_back(matrix_to_json(h));
  bool shutdown = false;
  const json answer = json::parse(pecheck::answer(*block, r.dump(), shutdown));
  BOOST_REQUIRE_MESSAGE(answer.contains("result"), answer.dump());
  BOOST_TEST(answer["result"].size() == 4u);
  BOOST_TEST(answer["result"][0].size() == 2u);
  BOOST_TEST(answer["result"][0][0].size() == 2u);
  const Matrix packed = ask::attention(*block, q, k, v, AttentionMask::none(), 4);
  BOOST_TEST(matrix_from_json(answer["result"][3]).isApprox(packed.rightCols(2)));
}

BOOST_AUTO_TEST_CASE(built_ins_meet_every_claim_of_section_8_they_declare) {
  const char* claims[] = {"attention.gqa_grouping",    "attention.window_no_lookback", "attention.chunk_isolation",
                          "attention.softcap_bound",   "attention.sink_mass",          "attention.alignment",
                          "attention.fully_masked_rows", "module.multi_token_decode",  "module.packed_sequences",
                          "module.cache_capacity"};
  int ran = 0;
  for (const char* subject : {"mistral-block", "llama-gqa-block", "gemma2-block", "gpt-oss-block", "attention-llama4",
                              "llama-block-dynamic-ntk"}) {
    auto made = make_subject(std::string("builtin:") + subject);
    for (const char* id : claims) {
      const PropertyDef* p = find_property(id);
      BOOST_REQUIRE(p != nullptr);
      if (!p->info.applies_to(made->info())) continue;
      ++ran;
      const PropertyResult r = pecheck::testing::run_property(id, std::string("builtin:") + subject);
      BOOST_TEST((r.status() == Status::passed), subject << " × " << id << ": " << r.message());
    }
  }
  BOOST_TEST(ran >= 25);
}

BOOST_AUTO_TEST_CASE(a_cap_or_a_sink_makes_section_1_claims_expected_violations_shown_with_witnesses) {
  const PropertyResult convex = pecheck::testing::run_property("attention.convex_combination", "builtin:gpt-oss-block");
  BOOST_TEST((convex.expectation == Expect::violated));
  BOOST_TEST((convex.status() == Status::passed), convex.message());
  BOOST_TEST(convex.counterexample() != nullptr);
  const PropertyResult stable = pecheck::testing::run_property("attention.softmax_stability", "builtin:gemma2-block");
  BOOST_TEST((stable.expectation == Expect::violated));
  BOOST_TEST((stable.status() == Status::passed), stable.message());
  // Without them the same claims hold.
  const PropertyResult plain = pecheck::testing::run_property("attention.convex_combination", "builtin:llama-gqa-block");
  BOOST_TEST((plain.expectation == Expect::holds));
  BOOST_TEST((plain.status() == Status::passed), plain.message());
}

BOOST_AUTO_TEST_CASE(a_gqa_module_grouped_wrong_in_forward_and_decode_fails) {
  // Every module claim holds (a consistent head permutation is only other
  // weights); its attention op shows the grouping.
  for (const char* id : {"module.incremental_decoding", "module.causality", "module.multi_token_decode"}) {
    const PropertyResult r = pecheck::testing::run_property(id, "mutant:llama-gqa-block-tile");
    BOOST_TEST((r.status() == Status::passed), id << ": " << r.message());
  }
  const PropertyResult grouping = pecheck::testing::run_property("attention.gqa_grouping", "mutant:llama-gqa-block-tile");
  BOOST_TEST((grouping.status() == Status::failed));
  const auto* c = grouping.counterexample();
  BOOST_REQUIRE(c != nullptr);
  BOOST_TEST(c->diagnosis.find("tile") != std::string::npos, c->diagnosis);
}

BOOST_AUTO_TEST_SUITE_END()  // test_attention_conventions
