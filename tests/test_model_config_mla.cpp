// Issue 35 (with issue 34's reader): DeepSeek MLA read from config.json and
// judged, no longer refused. The reader follows transformers'
// modeling_deepseek_v3.py (DeepseekV3Attention: q_pass, q_rot = split(q,
// [qk_nope_head_dim, qk_rope_head_dim]); apply_rotary_pos_emb_interleave under
// rope_interleave; the scale qk_head_dim^−½ · yarn_get_mscale(factor,
// mscale_all_dim)²) and modeling_deepseek_v2.py (a complex, interleaved
// rotary); each layer's rope is the decoupled rotary of rope.decoupled, the
// YaRN of the rope slice at its own width. The fixtures of
// tests/fixtures/configs/ (check_model_configs.py) hold the published configs;
// these cases vary the fields one at a time.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "pecheck/core/subject_spec.h"
#include "pecheck/protocol/model_config.h"
#include "pecheck/subjects/declare.h"
#include "pecheck/subjects/factory.h"
#include "support/declarations.h"

BOOST_AUTO_TEST_SUITE(test_model_config_mla)

using namespace pecheck;
using testing::declarations_refusal;
using testing::with_model;
using model::read_model_config;

namespace {

// DeepSeek-V3's attention fields (deepseek-ai/DeepSeek-V3 config.json) at a small size.
json small_v3() {
  return {{"model_type", "deepseek_v3"},
          {"num_attention_heads", 4},
          {"num_key_value_heads", 4},
          {"hidden_size", 64},
          {"num_hidden_layers", 2},
          {"qk_nope_head_dim", 16},
          {"qk_rope_head_dim", 8},
          {"v_head_dim", 12},
          {"max_position_embeddings", 163840},
          {"rope_theta", 10000},
          {"rope_scaling",
           {{"type", "yarn"}, {"factor", 40}, {"mscale", 1.0}, {"mscale_all_dim", 1.0},
            {"original_max_position_embeddings", 4096}, {"beta_fast", 32}, {"beta_slow", 1}}}};
}

double mscale(double factor, double m) { return 0.1 * m * std::log(factor) + 1; }

}  // namespace

BOOST_AUTO_TEST_CASE(each_layer_turns_the_last_qk_rope_features_with_the_slice_s_yarn) {
  const auto r = read_model_config(small_v3());
  BOOST_TEST(r.not_judged.empty());
  BOOST_TEST(r.head_dim == 24);
  BOOST_TEST(*r.v_head_dim == 12);
  for (const auto& l : r.layers) {
    BOOST_REQUIRE(l.rope.has_value());
    BOOST_TEST(l.rope->decoupled());
    BOOST_TEST(*l.rope->qk_rope_head_dim == 8);
    BOOST_TEST(*l.rope->qk_nope_head_dim == 16);
    BOOST_TEST(!l.rope->rotary_dim.has_value());  // the slice's width is qk_rope_head_dim, not a leading block
    BOOST_TEST(l.rotary_dim == 8);
    BOOST_TEST((l.rope->layout == Layout::interleave_then_halves));
    BOOST_TEST((l.rope->scaling.type == ScalingType::yarn));
    BOOST_TEST(*l.rope->scaling.mscale == 1.0);
    BOOST_TEST(*l.rope->scaling.mscale_all_dim == 1.0);
  }
  // A config saved by transformers carries head_dim = qk_rope_head_dim (configuration_deepseek_v3.py aliases
  // it, the rotary's width): the head pecheck sends is still qk_nope + qk_rope wide.
  json saved = small_v3();
  saved["head_dim"] = 8;
  const auto aliased = read_model_config(saved);
  BOOST_TEST(aliased.head_dim == 24);
  BOOST_TEST((std::find(aliased.unread.begin(), aliased.unread.end(), "head_dim") == aliased.unread.end()));
  // DeepseekV3Attention: 24^−½ · g(40, 1)².
  BOOST_TEST(*r.scale == std::pow(24.0, -0.5) * mscale(40, 1) * mscale(40, 1), boost::test_tools::tolerance(1e-15));
}

BOOST_AUTO_TEST_CASE(the_scale_follows_mscale_all_dim_and_the_layout_rope_interleave) {
  json c = small_v3();
  c["rope_scaling"]["mscale_all_dim"] = 0.707;  // DeepSeek-V2-Lite's
  c["rope_scaling"]["mscale"] = 0.707;
  BOOST_TEST(*read_model_config(c).scale == std::pow(24.0, -0.5) * mscale(40, 0.707) * mscale(40, 0.707),
             boost::test_tools::tolerance(1e-15));
  c["rope_scaling"]["mscale_all_dim"] = 0;  // `if mscale_all_dim:` — no factor
  BOOST_TEST(*read_model_config(c).scale == std::pow(24.0, -0.5), boost::test_tools::tolerance(1e-15));
  c.erase("rope_scaling");  // no scaling: qk_head_dim^−½ alone, an unscaled slice
  const auto plain = read_model_config(c);
  BOOST_TEST(*plain.scale == std::pow(24.0, -0.5), boost::test_tools::tolerance(1e-15));
  BOOST_TEST((plain.layers[0].rope->scaling.type == ScalingType::none));
  c["rope_interleave"] = false;  // apply_rotary_pos_emb: rotate_half on the slice as it comes
  BOOST_TEST((read_model_config(c).layers[0].rope->layout == Layout::halves));
  c["model_type"] = "deepseek_v2";  // modeling_deepseek_v2.py: complex pairs, interleaved
  c.erase("rope_interleave");
  BOOST_TEST((read_model_config(c).layers[0].rope->layout == Layout::interleaved));
}

BOOST_AUTO_TEST_CASE(an_unknown_family_with_an_mla_head_reads_deepseek_s_own_code) {
  json c = small_v3();
  c["model_type"] = "my_deepseek_derivative";
  const auto r = read_model_config(c);
  BOOST_TEST(r.layers[0].rope->decoupled());
  BOOST_TEST((r.layers[0].rope->layout == Layout::interleave_then_halves));
  BOOST_TEST(r.notes.size() == 2u);  // the unknown family, and the MLA head read as DeepSeek's code
  c.erase("qk_nope_head_dim");
  BOOST_CHECK_THROW(read_model_config(c), model::ModelConfigError);
  c = small_v3();
  c["qk_rope_head_dim"] = 7;  // pairs
  BOOST_CHECK_THROW(read_model_config(c), model::ModelConfigError);
  c["qk_rope_head_dim"] = 8;
  c["qk_nope_head_dim"] = 4000000000LL;  // past an int: refused, not wrapped
  BOOST_CHECK_THROW(read_model_config(c), model::ModelConfigError);
}

BOOST_AUTO_TEST_CASE(a_subject_declared_by_the_config_gets_the_decoupled_rotary_and_its_scale) {
  // rope@mla declares DeepSeek's decoupled head (128 + 64, base 10000, interleaved as vLLM's
  // is_neox_style=False): a DeepSeek-V2 config (complex rotary, interleaved) agrees and adds the scaling.
  json v2 = small_v3();
  v2["model_type"] = "deepseek_v2";
  v2["qk_nope_head_dim"] = 128;
  v2["qk_rope_head_dim"] = 64;
  SubjectPtr s = with_declarations(make_subject("builtin:rope@mla"), with_model(v2));
  const RotateConvention& rotate = s->info().rotate;
  BOOST_TEST(rotate.decoupled());
  BOOST_TEST(*rotate.qk_rope_head_dim == 64);
  BOOST_TEST((rotate.layout == Layout::interleaved));
  BOOST_TEST((rotate.scaling.type == ScalingType::yarn));
  // transformers' DeepSeek-V3 regroups the pairs (apply_rotary_pos_emb_interleave): the declared
  // interleaved layout contradicts it, exit 2 showing both values.
  json v3 = v2;
  v3["model_type"] = "deepseek_v3";
  const std::string layout = declarations_refusal(make_subject("builtin:rope@mla"), with_model(v3));
  BOOST_TEST(layout.find("contradict") != std::string::npos, layout);
  BOOST_TEST(layout.find("interleave_then_halves") != std::string::npos, layout);
  // A head of other widths contradicts the declared one.
  v2["qk_rope_head_dim"] = 32;
  v2["qk_nope_head_dim"] = 160;
  const std::string head = declarations_refusal(make_subject("builtin:rope@mla"), with_model(v2));
  BOOST_TEST(head.find("qk_rope_head_dim") != std::string::npos, head);
}

BOOST_AUTO_TEST_SUITE_END()
