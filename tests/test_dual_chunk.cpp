// Issue 35 — Qwen2.5-1M's dual chunk attention (params.attention.dual_chunk,
// from a config's dual_chunk_attention_config), judged by value by
// attention.reference_values: the positions of vLLM's
// DualChunkRotaryEmbedding at hand-computed points, the reference against
// plain RoPE attention where every key is in the query's chunk, the built-in
// passing in float64 and float32, each planted misreading failing with the
// diagnosis naming it, the claims that assume position-free attention not
// applied, and the declaration read from the hello and from a config.
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <fstream>
#include <string>

#include "pecheck/core/subject_spec.h"
#include "pecheck/property/registry.h"
#include "pecheck/reference/attention.h"
#include "pecheck/reference/dual_chunk.h"
#include "pecheck/reference/rotary.h"
#include "pecheck/subjects/builtin/attention.h"
#include "pecheck/subjects/declare.h"
#include "pecheck/subjects/factory.h"
#include "support/declarations.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_dual_chunk)

using namespace pecheck;
using pecheck::testing::run_property;

namespace {

constexpr const char* kClaim = "attention.reference_values";

// Qwen2.5-1M's shape, scaled down: chunk_size 6, local_size 2, chunks of L = 4.
DualChunk small() {
  DualChunk dc;
  dc.chunk_size = 6;
  dc.local_size = 2;
  dc.rotate.base = 10000;
  dc.rotate.layout = Layout::halves;
  return dc;
}

Matrix filled(Eigen::Index rows, Eigen::Index cols, double seed) {
  Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = std::sin(seed + 0.7 * static_cast<double>(i));
  return m;
}

json scaled_down_config() {
  std::ifstream in(testing::source_file("tests/fixtures/dual_chunk/qwen2_5_1m_scaled_down.json"));
  return json::parse(in);
}

std::string refusal(const std::string& spec, const json& declared) {
  return testing::declarations_refusal(make_subject(spec), declared);
}

void expect_caught(const std::string& spec, const std::string& cause) {
  const PropertyResult r = run_property(kClaim, spec);
  BOOST_TEST((r.status() == Status::failed), spec << ": " << r.message());
  const auto* c = r.counterexample();
  BOOST_REQUIRE_MESSAGE(c != nullptr, spec << ": no counterexample");
  BOOST_TEST(c->check == "entries", spec << ": " << c->check);
  BOOST_TEST(c->diagnosis.find(cause) != std::string::npos, spec << ": " << c->diagnosis);
}

}  // namespace

BOOST_AUTO_TEST_CASE(positions_as_vllm_builds_them) {
  using reference::dual_chunk_positions;
  const DualChunk dc = small();
  // Own chunk: both at their offset in the chunk (5 mod 4 = 1, 4 mod 4 = 0).
  BOOST_TEST((dual_chunk_positions(dc, 5, 4) == std::pair<Position, Position>{1, 0}));
  // The chunk before: the query at min(p mod L + L, chunk_size): 1 + 4 = 5; key 2 stays 2.
  BOOST_TEST((dual_chunk_positions(dc, 5, 2) == std::pair<Position, Position>{5, 2}));
  // ... clamped at chunk_size: 7 mod 4 + 4 = 7 → 6.
  BOOST_TEST((dual_chunk_positions(dc, 7, 3) == std::pair<Position, Position>{6, 3}));
  // Further back: the constant min(2L − 1, chunk_size) = min(7, 6) = 6; key 1 stays 1, key 13 → 1.
  BOOST_TEST((dual_chunk_positions(dc, 9, 1) == std::pair<Position, Position>{6, 1}));
  BOOST_TEST((dual_chunk_positions(dc, 13, 1) == std::pair<Position, Position>{6, 1}));
  // Where 2L − 1 is below chunk_size (local_size > chunk_size / 2 + …): L = 2 of 6, inter 3.
  DualChunk wide = dc;
  wide.local_size = 4;
  BOOST_TEST((dual_chunk_positions(wide, 9, 1) == std::pair<Position, Position>{3, 1}));
  // The misreadings.
  using R = reference::DualChunkReading;
  BOOST_TEST((dual_chunk_positions(dc, 7, 3, R::successive_unclamped) == std::pair<Position, Position>{7, 3}));
  BOOST_TEST((dual_chunk_positions(dc, 9, 1, R::inter_off_by_one) == std::pair<Position, Position>{5, 1}));
  BOOST_TEST((dual_chunk_positions(dc, 9, 5, R::plain_rope) == std::pair<Position, Position>{9, 5}));
  BOOST_TEST((dual_chunk_positions(dc, 13, 5, R::keys_absolute) == std::pair<Position, Position>{6, 5}));  // faithful: {6, 1}
  BOOST_TEST((dual_chunk_positions(dc, 9, 5, R::keys_absolute) == std::pair<Position, Position>{5, 5}));  // 5 is in the chunk before
}

BOOST_AUTO_TEST_CASE(within_one_chunk_it_is_plain_rope_attention) {
  // n ≤ L: every key is in the query's chunk, at its own position: RoPE attention, from
  // reference::rotary and the plain attention reference, another path to the same numbers.
  AttentionConvention a;
  a.dual_chunk = small();
  const Matrix q = filled(4, 6, 0.3), k = filled(4, 6, 1.1), v = filled(4, 3, 2.0);
  const Positions at = {0, 1, 2, 3};
  const Matrix expected = reference::attention(reference::rotary(at, q, a.dual_chunk->rotate, 4),
                                               reference::rotary(at, k, a.dual_chunk->rotate, 4), v,
                                               AttentionMask::causal(), 1, Dtype::float64);
  const Matrix got = reference::attention(q, k, v, AttentionMask::causal(), 1, Dtype::float64, a);
  BOOST_TEST((got - expected).cwiseAbs().maxCoeff() < 1e-12);
  // Past it the positions are remapped: 10 tokens differ from RoPE at the absolute positions.
  const Matrix q10 = filled(10, 6, 0.3), k10 = filled(10, 6, 1.1), v10 = filled(10, 3, 2.0);
  const Positions at10 = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  const Matrix rope = reference::attention(reference::rotary(at10, q10, a.dual_chunk->rotate, 10),
                                           reference::rotary(at10, k10, a.dual_chunk->rotate, 10), v10,
                                           AttentionMask::causal(), 1, Dtype::float64);
  const Matrix dca = reference::attention(q10, k10, v10, AttentionMask::causal(), 1, Dtype::float64, a);
  BOOST_TEST((dca - rope).cwiseAbs().maxCoeff() > 1e-3);
  // A mask that is not causal has no dual chunk positions.
  BOOST_CHECK_THROW(reference::attention(q, k, v, AttentionMask::none(), 1, Dtype::float64, a), Refusal);
}

BOOST_AUTO_TEST_CASE(the_builtin_passes_in_float64_and_float32) {
  for (const char* spec : {"builtin:attention-dca", "builtin:attention-dca@float32"}) {
    for (std::uint64_t seed : {1, 2}) {
      const PropertyResult r = run_property(kClaim, spec, {.seed = seed});
      BOOST_TEST((r.status() == Status::passed), spec << " seed " << seed << ": " << r.message());
      BOOST_TEST(r.discards <= r.cases / 4, spec << ": " << r.discards << " discards of " << r.cases);
    }
  }
}

BOOST_AUTO_TEST_CASE(each_misreading_fails_with_its_cause_named) {
  expect_caught("mutant:dca-successive-unclamped", "not clamped at chunk_size");
  expect_caught("mutant:dca-inter-off-by-one", "inter-chunk query position one less");
  expect_caught("mutant:dca-plain-rope", "plain RoPE at the absolute positions");
  expect_caught("mutant:dca-keys-absolute", "keys rotated at j");
}

BOOST_AUTO_TEST_CASE(claims_of_position_free_attention_do_not_apply) {
  const SubjectPtr s = make_subject("builtin:attention-dca");
  const PropertyDef* by_value = find_property(kClaim);
  BOOST_REQUIRE(by_value != nullptr);
  BOOST_TEST(by_value->info.applies_to(s->info()));
  for (const char* id : {"attention.kv_permutation_invariance", "attention.query_permutation_equivariance",
                         "attention.softmax_stability", "attention.padding_mask_isolation"}) {
    const PropertyDef* p = find_property(id);
    BOOST_REQUIRE(p != nullptr);
    BOOST_TEST(!p->info.applies_to(s->info()), id);
  }
}

BOOST_AUTO_TEST_CASE(declared_in_the_hello) {
  json dc = {{"chunk_size", 6}, {"local_size", 2}, {"rotate", {{"base", 10000}, {"layout", "halves"}}}};
  const SubjectPtr s = with_declarations(make_subject("builtin:attention"), {{"params", {{"attention", {{"dual_chunk", dc}}}}}});
  BOOST_REQUIRE(s->info().attention.dual_chunk.has_value());
  BOOST_TEST(s->info().attention.dual_chunk->chunk_len() == 4);
  json no_rotate = dc;
  no_rotate.erase("rotate");
  std::string why = refusal("builtin:attention", {{"params", {{"attention", {{"dual_chunk", no_rotate}}}}}});
  BOOST_TEST(why.find("params.attention.dual_chunk.rotate") != std::string::npos, why);
  json too_local = dc;
  too_local["local_size"] = 6;
  why = refusal("builtin:attention", {{"params", {{"attention", {{"dual_chunk", too_local}}}}}});
  BOOST_TEST(why.find("local_size") != std::string::npos, why);
}

BOOST_AUTO_TEST_CASE(read_from_a_config_for_the_attention_op_only) {
  const json declared = {{"params", {{"model", scaled_down_config()}}}};
  const SubjectPtr s = with_declarations(make_subject("builtin:attention"), declared);
  BOOST_REQUIRE(s->info().attention.dual_chunk.has_value());
  const DualChunk& dc = *s->info().attention.dual_chunk;
  BOOST_TEST(dc.chunk_size == 6);
  BOOST_TEST(dc.local_size == 2);
  BOOST_TEST(dc.rotate.base == 1e7);  // rope_theta
  BOOST_TEST((dc.rotate.layout == Layout::halves));  // Qwen2's rotate_half
  // A module's forward cannot show the remapped positions: refused, naming the field.
  const std::string why = refusal("builtin:llama-block", declared);
  BOOST_TEST(why.find("dual_chunk_attention_config") != std::string::npos, why);
  BOOST_TEST(why.find("attention op") != std::string::npos, why);
}

BOOST_AUTO_TEST_SUITE_END()  // test_dual_chunk
