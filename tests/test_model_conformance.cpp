// module.config_conformance, module.chunk_isolation and rope.position_domain
// (CLAIMS.md §10, issue 34): modules and rotaries declared by a model config
// alone, judged layer by layer as the config reads. A Gemma-3-style block
// passes when its local layers use base 10⁴ unscaled over a window of 4 and
// its global layer base 10⁶ with linear ×8, and fails naming the layer when
// the local layers get the global settings (vLLM PR #29111); a GPT-OSS-style
// block whose every layer is windowed fails naming the full layer (vLLM
// #49795); Llama 4's chunks are cut where the config says; a rotary answers
// every position below the configured max_position_embeddings.
#include <boost/test/unit_test.hpp>

#include "pecheck/planted/mutants.h"
#include "pecheck/property/registry.h"
#include "pecheck/subjects/builtin/modules_config.h"
#include "pecheck/subjects/declare.h"
#include "pecheck/subjects/factory.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_model_conformance)

using namespace pecheck;
using pecheck::testing::run_property;

namespace {

std::string described(const PropertyResult& r) {
  std::string out = std::string(name(r.outcome)) + ": " + r.message();
  if (const Counterexample* c = r.counterexample()) out += " | " + c->check + " | " + c->note + " | " + c->diagnosis;
  return out;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The counterexample of `claim` on `spec`, which must fail by `check`.
Counterexample failing(const std::string& claim, const std::string& spec, const std::string& check) {
  const PropertyResult r = run_property(claim, spec);
  BOOST_REQUIRE_MESSAGE(r.counterexample() != nullptr, spec << ": " << described(r));
  BOOST_TEST(r.counterexample()->check == check, described(r));
  return *r.counterexample();
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_config_alone_declares_each_layer_s_attention_and_rotary) {
  const SubjectPtr block = make_subject("builtin:gemma3-config-block");
  const SubjectInfo& info = block->info();
  BOOST_REQUIRE(info.forward.has_value());
  BOOST_REQUIRE(info.forward->layers.size() == 6u);
  for (int k = 0; k < 6; ++k) {
    const LayerConvention& l = info.forward->layers[static_cast<std::size_t>(k)];
    BOOST_TEST((l.window == (k == 5 ? std::optional<Position>() : std::optional<Position>(4))), "layer " << k);
    BOOST_REQUIRE(l.rotate.has_value());
    BOOST_TEST(l.rotate->base == (k == 5 ? 1e6 : 1e4), "layer " << k);
  }
  const PropertyDef* claim = find_property("module.config_conformance");
  BOOST_REQUIRE(claim != nullptr);
  BOOST_TEST(claim->info.applies_to(info));
  BOOST_TEST(!claim->info.applies_to(make_subject("builtin:gemma3-block")->info()));  // declared by hand, no config
}

BOOST_AUTO_TEST_CASE(gemma3_from_its_config_passes_and_the_local_layers_with_global_settings_fail_naming_the_layer) {
  const PropertyResult good = run_property("module.config_conformance", "builtin:gemma3-config-block");
  BOOST_TEST((good.status() == Status::passed), described(good));
  install_planted_subjects();
  const Counterexample c = failing("module.config_conformance", "mutant:gemma3-config-local-layers-global",
                                   "layer's positions as the config reads");
  BOOST_TEST(has(c.diagnosis, "layer "), c.diagnosis);
  BOOST_TEST(has(c.diagnosis, "rope_local_base_freq"), c.diagnosis);
  BOOST_TEST(has(c.diagnosis, "vLLM PR #29111"), c.diagnosis);
}

BOOST_AUTO_TEST_CASE(sliding_layers_see_their_window_and_nothing_before) {
  install_planted_subjects();
  const Counterexample wide =
      failing("module.config_conformance", "mutant:gemma3-config-window-plus-one", "sliding layer within its window");
  BOOST_TEST(has(wide.diagnosis, "sliding_window = 4"), wide.diagnosis);
  BOOST_TEST(has(wide.diagnosis, "W + 1 = 5 keys"), wide.diagnosis);
  failing("module.config_conformance", "mutant:gemma3-config-window-minus-one", "sliding layer sees its window");
  // The same bug through module.window_no_lookback, which reads each layer's window from the config too.
  failing("module.window_no_lookback", "mutant:gemma3-config-window-plus-one", "rows past the window unchanged");
  const PropertyResult good = run_property("module.window_no_lookback", "builtin:gemma3-config-block");
  BOOST_TEST((good.status() == Status::passed), described(good));
}

BOOST_AUTO_TEST_CASE(gpt_oss_with_every_layer_windowed_fails_naming_the_full_layer) {
  const PropertyResult good = run_property("module.config_conformance", "builtin:gpt-oss-config-block");
  BOOST_TEST((good.status() == Status::passed), described(good));
  install_planted_subjects();
  const Counterexample c = failing("module.config_conformance", "mutant:gpt-oss-config-every-layer-sliding",
                                   "full layer sees every earlier token");
  BOOST_TEST((has(c.diagnosis, "layer 1 is full attention") || has(c.diagnosis, "layer 3 is full attention")),
             c.diagnosis);
  BOOST_TEST(has(c.diagnosis, "vLLM #49795"), c.diagnosis);
}

BOOST_AUTO_TEST_CASE(llama4_chunks_are_cut_where_the_config_says) {
  for (const char* claim : {"module.chunk_isolation", "module.config_conformance"}) {
    const PropertyResult good = run_property(claim, "builtin:llama4-config-block");
    BOOST_TEST((good.status() == Status::passed), claim << ": " << described(good));
  }
  install_planted_subjects();
  const Counterexample window =
      failing("module.chunk_isolation", "mutant:llama4-config-chunk-as-window", "tokens of other chunks unseen");
  BOOST_TEST(has(window.diagnosis, "attention_chunk_size = 4"), window.diagnosis);
  BOOST_TEST(has(window.diagnosis, "sliding window"), window.diagnosis);
  failing("module.chunk_isolation", "mutant:llama4-config-chunk-minus-one", "own chunk seen");
  failing("module.config_conformance", "mutant:llama4-config-chunk-as-window", "chunked layer within its chunk");
}

BOOST_AUTO_TEST_CASE(every_position_below_the_configured_maximum_is_answered) {
  const SubjectPtr rope = make_subject("builtin:rope-config-linear");
  BOOST_TEST(rope->info().rotate.max_position_embeddings.value_or(0) == 16384);
  const PropertyResult good = run_property("rope.position_domain", "builtin:rope-config-linear");
  BOOST_TEST((good.status() == Status::passed), described(good));
  install_planted_subjects();
  const Counterexample wraps =
      failing("rope.position_domain", "mutant:rope-config-table-wraps", "every position below max_position_embeddings");
  BOOST_TEST(has(wraps.diagnosis, "wraps"), wraps.diagnosis);
  const Counterexample twice =
      failing("rope.position_domain", "mutant:rope-config-factor-twice", "every position below max_position_embeddings");
  BOOST_TEST(has(twice.diagnosis, "applied twice"), twice.diagnosis);
}

BOOST_AUTO_TEST_SUITE_END()
