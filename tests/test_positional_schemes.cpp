// The positional schemes of 2024–2026 models (CLAIMS.md §9; SUBJECT-PROTOCOL.md
// "Positional schemes"): the reference's numbers against the published
// formulas worked by hand, the declarations read from a hello, pecheck.toml
// and the built-ins, and a config.json's rope_scaling / rope_parameters of each
// family (tests/data/configs/) accepted verbatim.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numbers>

#include "pecheck/config/config_file.h"
#include "pecheck/property/registry.h"
#include "pecheck/reference/rotary.h"
#include "pecheck/subjects/builtin/published.h"
#include "pecheck/subjects/declare.h"
#include "pecheck/subjects/factory.h"
#include "protocol/hello.h"
#include "protocol/responses.h"
#include "support/cli.h"
#include "support/planted.h"
#include "support/rotation_error.h"

BOOST_AUTO_TEST_SUITE(test_positional_schemes)

using namespace pecheck;
using namespace pecheck::process;
using pecheck::testing::random_matrix;

namespace {

std::string source_dir() {
  const char* dir = std::getenv("PECHECK_SOURCE_DIR");
  if (dir == nullptr) throw std::runtime_error("PECHECK_SOURCE_DIR is not set (run through ctest)");
  return dir;
}

json config(const std::string& name) {
  std::ifstream in(source_dir() + "/tests/data/configs/" + name);
  BOOST_REQUIRE_MESSAGE(in, "no tests/data/configs/" << name);
  return json::parse(in);
}

json hello_with(const json& rotate, const char* ops = R"(["rotate"])") {
  return json{{"protocol", 2}, {"name", "s"}, {"ops", json::parse(ops)}, {"dtype", "float32"},
              {"params", {{"rotate", rotate}}}};
}

// params.rotate for a config.json: its rope dict pasted as `scaling`, rope_theta as the base (unless the
// dict carries it), and the lengths Phi-3 and Llama 2 keep beside it.
json rotate_of(const json& c, const char* layout = "halves") {
  json rotate = {{"layout", layout}};
  const json& dict = c.contains("rope_parameters") ? c["rope_parameters"] : c["rope_scaling"];
  rotate["scaling"] = dict;
  if (c.contains("rope_theta")) rotate["base"] = c["rope_theta"];
  for (const char* key : {"max_position_embeddings", "original_max_position_embeddings"}) {
    if (c.contains(key)) rotate[key] = c[key];
  }
  return rotate;
}

RotateConvention read_rotate(const json& rotate) { return read_hello(hello_with(rotate)).info.rotate; }

double relative(double got, double want) { return std::fabs(got - want) / std::fabs(want); }

}  // namespace

// Reference -------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(longrope_divides_each_pair_by_its_factor_and_switches_past_the_original_length) {
  const RotateConvention phi = phi35_longrope();
  const auto base = reference::rotary_inv_freq(96, [] {
    RotateConvention c;
    c.layout = Layout::halves;
    return c;
  }(), std::nullopt);
  const auto at_4096 = reference::rotary_inv_freq(96, phi, 4096), at_4097 = reference::rotary_inv_freq(96, phi, 4097);
  for (size_t i = 0; i < 48; ++i) {
    BOOST_TEST(relative(at_4096[i], base[i] / phi.scaling.short_factor[i]) <= 1e-15, i);
    BOOST_TEST(relative(at_4097[i], base[i] / phi.scaling.long_factor[i]) <= 1e-15, i);
  }
  // √(1 + ln 32 / ln 4096) = √(1 + 5/12): Phi-3.5's attention factor.
  BOOST_TEST(relative(reference::rotary_magnitude(phi), std::sqrt(17.0 / 12.0)) <= 1e-15);
  RotateConvention declared = phi;
  declared.scaling.attention_factor = 1.25;
  BOOST_TEST(reference::rotary_magnitude(declared) == 1.25);
  declared = phi;
  declared.max_position_embeddings.reset();
  BOOST_TEST(reference::rotary_magnitude(declared) == 1.0, "f = factor = 1 without max_position_embeddings");
  // The switch rules: the length (transformers), a position (vLLM before #27431), the context (after).
  BOOST_TEST(!reference::longrope_long(phi, 4096));
  BOOST_TEST(reference::longrope_long(phi, 4097));
  BOOST_TEST(reference::rotary_length({0, 5, 4096}, std::nullopt, phi) == 4097);
  BOOST_TEST(reference::rotary_length({0, 5}, 9000, phi) == 9000);
  RotateConvention vllm = phi;
  vllm.scaling.factor_switch = FactorSwitch::position;
  BOOST_TEST(reference::rotary_length({0, 5, 4096}, 9000, vllm) == 4096, "long only once a position passes 4096");
  RotateConvention fixed = phi;
  fixed.scaling.factor_switch = FactorSwitch::context;
  BOOST_TEST(reference::longrope_long(fixed, 10), "max_position_embeddings 131072 > 4096: long for every sequence");
  BOOST_TEST(!fixed.length_dependent());
  BOOST_TEST(phi.length_dependent());
}

BOOST_AUTO_TEST_CASE(deepseek_yarn_carries_the_mscale_ratio_on_the_rotary_and_its_square_on_the_logits) {
  const RotateConvention v3 = deepseek_v3_yarn();
  BOOST_TEST(reference::rotary_magnitude(v3) == 1.0, "mscale = mscale_all_dim: the ratio is 1");
  const double g40 = 0.1 * std::log(40.0) + 1;
  BOOST_TEST(relative(reference::yarn_softmax_scale(v3.scaling), g40 * g40) <= 1e-15);  // 1.8740
  RotateConvention lite = v3;
  lite.scaling.mscale = lite.scaling.mscale_all_dim = 0.707;
  BOOST_TEST(reference::rotary_magnitude(lite) == 1.0);
  const double g_lite = 0.1 * 0.707 * std::log(40.0) + 1;
  BOOST_TEST(relative(reference::yarn_softmax_scale(lite.scaling), g_lite * g_lite) <= 1e-15);  // 1.590
  RotateConvention mixed = v3;
  mixed.scaling.mscale_all_dim = 0.707;
  BOOST_TEST(relative(reference::rotary_magnitude(mixed), g40 / g_lite) <= 1e-15);
  RotateConvention plain = v3;
  plain.scaling.mscale.reset();
  plain.scaling.mscale_all_dim.reset();
  BOOST_TEST(relative(reference::rotary_magnitude(plain), g40) <= 1e-15, "the paper's 0.1·ln F + 1");
  BOOST_TEST(reference::yarn_softmax_scale(plain.scaling) == 1.0);
  // truncate false (gpt-oss) leaves the correction range unrounded: another ramp.
  RotateConvention untruncated = v3;
  untruncated.scaling.truncate = false;
  BOOST_TEST((reference::yarn_ramp(64, untruncated) != reference::yarn_ramp(64, v3)));
}

BOOST_AUTO_TEST_CASE(interleave_then_halves_reads_adjacent_pairs_and_writes_them_to_halves) {
  RotateConvention deepseek = deepseek_v3_yarn(), interleaved = deepseek_v3_yarn();
  interleaved.layout = Layout::interleaved;
  const Matrix x = random_matrix(3, 8, 7);
  const Positions at = {0, 5, 4000};
  const Matrix regrouped = reference::rotary(at, x, deepseek, std::nullopt);
  const Matrix in_place = reference::rotary(at, x, interleaved, std::nullopt);
  for (int i = 0; i < 4; ++i) {
    BOOST_TEST((regrouped.col(i) == in_place.col(2 * i)), i);
    BOOST_TEST((regrouped.col(4 + i) == in_place.col(2 * i + 1)), i);
  }
  BOOST_TEST((reference::rotary_input_order(regrouped, 8, Layout::interleave_then_halves) == in_place));
}

BOOST_AUTO_TEST_CASE(freq_factors_in_llama_cpp_s_form_are_llama_3_s_scaling) {
  RotateConvention llama3;
  llama3.base = 500000;
  llama3.layout = Layout::halves;
  llama3.scaling.type = ScalingType::llama3;
  llama3.scaling.factor = 8;
  llama3.scaling.original_max_position = 8192;
  const auto want = reference::rotary_inv_freq(128, llama3, std::nullopt);
  const auto got = reference::rotary_inv_freq(128, llama3_freq_factors(), std::nullopt);
  for (size_t i = 0; i < 64; ++i) BOOST_TEST(relative(got[i], want[i]) <= 1e-14, i);
}

BOOST_AUTO_TEST_CASE(multi_axis_pairs_turn_by_their_axis_in_sections_or_round_robin) {
  const RotateConvention qwen2 = qwen2_vl_mrope(), qwen3 = qwen3_vl_mrope();
  std::string sections, interleaved;
  for (int i = 0; i < 64; ++i) {
    sections += "thw"[reference::rotary_axis(i, 128, qwen2)];
    interleaved += "thw"[reference::rotary_axis(i, 128, qwen3)];
  }
  BOOST_TEST(sections == std::string(16, 't') + std::string(24, 'h') + std::string(24, 'w'));
  std::string want;
  for (int i = 0; i < 60; ++i) want += "thw"[i % 3];
  BOOST_TEST(interleaved == want + "tttt");
  // Each pair at its axis's position: the one-axis rotation at that position, pair by pair.
  const Matrix x = random_matrix(1, 128, 11);
  const std::vector<Positions> axes = {{7}, {300}, {9000}};
  const Matrix got = reference::rotary_axes(axes, x, qwen2, std::nullopt);
  RotateConvention plain = qwen2;
  plain.mrope_section.clear();
  for (int a = 0; a < 3; ++a) {
    const Matrix one = reference::rotary(axes[static_cast<size_t>(a)], x, plain, std::nullopt);
    for (int i = 0; i < 64; ++i) {
      if (reference::rotary_axis(i, 128, qwen2) != a) continue;
      BOOST_TEST(got(0, i) == one(0, i));
      BOOST_TEST(got(0, 64 + i) == one(0, 64 + i));
    }
  }
  // Text (one position on every axis) is plain RoPE.
  BOOST_TEST((reference::rotary({5}, x, qwen2, std::nullopt) == reference::rotary({5}, x, plain, std::nullopt)));
}

BOOST_AUTO_TEST_CASE(per_pair_lists_of_the_wrong_length_are_refused) {
  RotateConvention c = phi35_longrope();
  BOOST_CHECK_THROW(reference::rotary_inv_freq(64, c, std::nullopt), Refusal);
  c = qwen2_vl_mrope();
  BOOST_CHECK_THROW(reference::rotary_inv_freq(96, c, std::nullopt), Refusal);
  c = llama3_freq_factors();
  BOOST_CHECK_THROW(reference::rotary_inv_freq(64, c, std::nullopt), Refusal);
  BOOST_CHECK_THROW(reference::rotary_axes({{1}, {2}}, random_matrix(1, 128, 1), qwen2_vl_mrope(), std::nullopt),
                    Refusal);
}

// Declarations ----------------------------------------------------------------

BOOST_AUTO_TEST_CASE(each_family_s_config_json_dict_is_accepted_verbatim) {
  // Phi-3.5: rope_scaling {type longrope, ...}, both lengths beside it.
  const RotateConvention phi = read_rotate(rotate_of(config("phi-3.5-mini-instruct.json")));
  BOOST_TEST((phi.scaling.type == ScalingType::longrope));
  BOOST_TEST(phi.scaling.original_max_position == 4096);
  BOOST_TEST(*phi.max_position_embeddings == 131072);
  BOOST_TEST(phi.scaling.short_factor == phi35_longrope().scaling.short_factor);
  BOOST_TEST(phi.scaling.long_factor == phi35_longrope().scaling.long_factor);
  // DeepSeek-V3 and V2-Lite: yarn with mscale, original_max_position_embeddings inside.
  for (const char* name : {"deepseek-v3.json", "deepseek-v2-lite.json"}) {
    const RotateConvention d = read_rotate(rotate_of(config(name), "interleave_then_halves"));
    BOOST_TEST((d.scaling.type == ScalingType::yarn), name);
    BOOST_TEST(d.scaling.original_max_position == 4096, name);
    BOOST_TEST(d.scaling.mscale.has_value(), name);
    BOOST_TEST(reference::rotary_magnitude(d) == 1.0, name);
    BOOST_TEST((d.layout == Layout::interleave_then_halves), name);
  }
  // Qwen2-VL: {type mrope, mrope_section}; Qwen3-VL: {rope_type default, mrope_section, mrope_interleaved}.
  const RotateConvention q2 = read_rotate(rotate_of(config("qwen2-vl-7b-instruct.json")));
  BOOST_TEST((q2.scaling.type == ScalingType::none));
  BOOST_TEST(q2.mrope_section == (std::vector<int>{16, 24, 24}));
  BOOST_TEST(!q2.mrope_interleaved);
  const RotateConvention q3 = read_rotate(rotate_of(config("qwen3-vl-8b-instruct.json")));
  BOOST_TEST(q3.mrope_section == (std::vector<int>{24, 20, 20}));
  BOOST_TEST(q3.mrope_interleaved);
  BOOST_TEST(q3.base == 5000000);
  // Gemma 3's global scaling, Llama 3.1, Llama 4 (low = high), gpt-oss (truncate false).
  BOOST_TEST((read_rotate(rotate_of(config("gemma-3-4b-it.json"))).scaling.type == ScalingType::linear));
  BOOST_TEST((read_rotate(rotate_of(config("llama-3.1-8b.json"))).scaling.type == ScalingType::llama3));
  const RotateConvention llama4 = read_rotate(rotate_of(config("llama-4-scout.json")));
  BOOST_TEST(llama4.scaling.low_freq_factor == llama4.scaling.high_freq_factor);
  BOOST_TEST(reference::rotary_inv_freq(128, llama4, std::nullopt).size() == 64u);
  BOOST_TEST(!read_rotate(rotate_of(config("gpt-oss-20b.json"))).scaling.truncate);
  // Llama 2's {type dynamic, factor 2}: L is max_position_embeddings, as in transformers.
  const RotateConvention dynamic = read_rotate(rotate_of(config("llama-2-dynamic.json")));
  BOOST_TEST((dynamic.scaling.type == ScalingType::dynamic_ntk));
  BOOST_TEST(dynamic.scaling.original_max_position == 4096);
  // transformers v5 rope_parameters: rope_theta inside the dict is the base.
  const RotateConvention v5 = read_rotate(rotate_of(config("transformers-v5-llama3-rope-parameters.json")));
  BOOST_TEST(v5.base == 500000);
  BOOST_TEST((v5.scaling.type == ScalingType::llama3));
}

BOOST_AUTO_TEST_CASE(transformers_spellings_mean_the_protocols_and_disagreements_are_refused) {
  const json both = {{"type", "linear"}, {"rope_type", "linear"}, {"factor", 8}};
  BOOST_TEST((read_rotate({{"scaling", both}}).scaling.type == ScalingType::linear), "type and rope_type agreeing");
  auto refused = [](const json& rotate) -> std::pair<std::string, std::string> {
    try {
      read_hello(hello_with(rotate));
    } catch (const BadDeclaration& d) {
      return {d.field, d.what()};
    }
    return {"(accepted)", ""};
  };
  const json yarn = {{"rope_type", "yarn"}, {"factor", 4}, {"original_max_position", 4096},
                     {"original_max_position_embeddings", 4096}};
  BOOST_TEST(refused({{"scaling", yarn}}).first == "params.rotate.scaling.original_max_position_embeddings");
  BOOST_TEST(refused({{"scaling", {{"type", "linear"}, {"rope_type", "yarn"}, {"factor", 2}}}}).first ==
             "params.rotate.scaling.rope_type");
  BOOST_TEST(refused({{"base", 10000}, {"scaling", {{"rope_type", "default"}, {"rope_theta", 500000}}}}).first ==
             "params.rotate.scaling.rope_theta");
  BOOST_TEST(refused({{"scaling", {{"type", "mrope"}}}}).first == "params.rotate.scaling.mrope_section");
  BOOST_TEST(refused({{"mrope_interleaved", true}}).first == "params.rotate.mrope_interleaved");
  BOOST_TEST(refused({{"rotary_dim", 64}, {"mrope_section", {16, 24, 24}}}).first == "params.rotate.rotary_dim");
  BOOST_TEST(refused({{"freq_factors", {1, 2}}, {"mrope_section", {1, 1, 1}}}).first == "params.rotate.mrope_section");
  BOOST_TEST(refused({{"freq_factors", {1, -2}}}).first == "params.rotate.freq_factors");
  BOOST_TEST(refused({{"scaling", {{"type", "longrope"}, {"short_factor", {1, 1}}, {"long_factor", {2}},
                                   {"original_max_position", 8}}}})
                 .first == "params.rotate.scaling.long_factor");
  BOOST_TEST(refused({{"scaling", {{"type", "longrope"}, {"short_factor", {1}}, {"long_factor", {2}}}}}).first ==
             "params.rotate.scaling.original_max_position");
  BOOST_TEST(refused({{"scaling", {{"type", "longrope"}, {"short_factor", {1}}, {"long_factor", {2}},
                                   {"original_max_position", 8}, {"factor_switch", "tokens"}}}})
                 .first == "params.rotate.scaling.factor_switch");
  BOOST_TEST(refused({{"layout", "interleave_then_halves"}}).first == "(accepted)");
}

BOOST_AUTO_TEST_CASE(per_layer_settings_are_read_and_a_nope_layer_is_null) {
  const json gemma = config("gemma-3-4b-it.json");
  json layers = json::array();
  for (int k = 0; k < 6; ++k) {
    const bool global = (k + 1) % 6 == 0;
    layers.push_back({{"rotate", global ? json{{"base", gemma["rope_theta"]}, {"scaling", gemma["rope_scaling"]}}
                                        : json{{"base", gemma["rope_local_base_freq"]}}}});
  }
  layers.push_back({{"rotate", nullptr}});
  json hello = hello_with({{"base", 10000}}, R"(["rotate","forward"])");
  hello["params"]["forward"] = {{"causal", true}, {"positional", "relative"}, {"width", 16}, {"layers", layers}};
  const SubjectInfo info = read_hello(hello).info;
  BOOST_REQUIRE(info.forward.has_value());
  BOOST_REQUIRE(info.forward->layers.size() == 7u);
  BOOST_TEST(info.forward->layers[0].rotate->base == 10000);
  BOOST_TEST((info.forward->layers[5].rotate->scaling.type == ScalingType::linear));
  BOOST_TEST(!info.forward->layers[6].rotate.has_value());
  // Written back and read again, the same layers.
  const SubjectInfo again = read_hello(hello_result(info, 2, false, false)).info;
  BOOST_TEST(again.forward->layers.size() == 7u);
  BOOST_TEST(again.forward->layers[5].rotate->scaling.factor == 8);
  BOOST_TEST(!again.forward->layers[6].rotate.has_value());
  // A layer without its rotate, or a layer that is not an object, is refused naming it.
  hello["params"]["forward"]["layers"] = json::array({json::object()});
  try {
    read_hello(hello);
    BOOST_FAIL("accepted a layer without rotate");
  } catch (const BadDeclaration& d) {
    BOOST_TEST(d.field == "params.forward.layers[0].rotate");
  }
}

BOOST_AUTO_TEST_CASE(the_built_ins_hellos_read_back_as_the_same_conventions) {
  for (const char* name : {"rope@longrope", "rope@deepseek-yarn", "rope@mrope", "rope@qwen3-vl",
                           "rope@llama3-freq-factors", "gemma3-block", "llama4-block"}) {
    BOOST_TEST_CONTEXT(name) {
      const SubjectPtr subject = make_subject(std::string("builtin:") + name);
      const SubjectInfo& info = subject->info();
      const SubjectInfo read = read_hello(hello_result(info, 2, false, false)).info;
      BOOST_TEST(read.rotate.base == info.rotate.base);
      BOOST_TEST((read.rotate.layout == info.rotate.layout));
      BOOST_TEST(read.rotate.mrope_section == info.rotate.mrope_section);
      BOOST_TEST(read.rotate.mrope_interleaved == info.rotate.mrope_interleaved);
      BOOST_TEST(read.rotate.freq_factors == info.rotate.freq_factors);
      BOOST_TEST((read.rotate.scaling.type == info.rotate.scaling.type));
      BOOST_TEST(read.rotate.scaling.short_factor == info.rotate.scaling.short_factor);
      BOOST_TEST(reference::rotary_magnitude(read.rotate) == reference::rotary_magnitude(info.rotate));
      BOOST_TEST(read.forward.has_value() == info.forward.has_value());
      if (info.forward) BOOST_TEST(read.forward->layers.size() == info.forward->layers.size());
    }
  }
}

BOOST_AUTO_TEST_CASE(pecheck_toml_takes_the_same_dicts) {
  std::vector<std::string> ids;
  for (const auto& p : all_properties()) ids.push_back(p.info.id);
  const json phi = config("phi-3.5-mini-instruct.json");
  auto list = [](const json& values) {
    std::string out;
    for (const auto& v : values) out += (out.empty() ? "" : ", ") + v.dump();
    return "[" + out + "]";
  };
  const std::string text = "[subject.\"builtin:rope@llama\"]\n"
                           "params.rotate = { base = 10000.0, layout = \"halves\", max_position_embeddings = 131072, "
                           "original_max_position_embeddings = 4096, scaling = { type = \"longrope\", short_factor = " +
                           list(phi["rope_scaling"]["short_factor"]) +
                           ", long_factor = " + list(phi["rope_scaling"]["long_factor"]) + " } }\n"
                           "[subject.\"builtin:rope@mrope\"]\n"
                           "params.rotate = { base = 1000000.0, layout = \"halves\", scaling = { rope_type = "
                           "\"default\", mrope_section = [16, 24, 24] } }\n";
  const FileConfig c = parse_config(text, "pecheck.toml", ids);
  SubjectPtr phi_subject = with_declarations(make_subject("builtin:rope@llama"),
                                             c.subject_declarations.at("builtin:rope@llama").declared);
  BOOST_TEST((phi_subject->info().rotate.scaling.type == ScalingType::longrope));
  BOOST_TEST(phi_subject->info().rotate.scaling.long_factor == phi35_longrope().scaling.long_factor);
  SubjectPtr qwen = with_declarations(make_subject("builtin:rope@mrope"),
                                      c.subject_declarations.at("builtin:rope@mrope").declared);
  BOOST_TEST(qwen->info().rotate.mrope_section == (std::vector<int>{16, 24, 24}));
}

// Claims and diagnoses --------------------------------------------------------

BOOST_AUTO_TEST_CASE(the_usual_mistakes_are_named_in_the_diagnosis) {
  const std::vector<std::pair<std::string, std::string>> named = {
      {"mutant:rope-longrope-short-factors-only", "short factors where the long ones belong"},
      {"mutant:rope-deepseek-yarn-mscale-ignored", "ignores mscale/mscale_all_dim"},
      {"mutant:rope-deepseek-interleave-ignored", "matches the interleaved layout"},
      {"mutant:rope-mrope-sections-swapped", "h and w sections swapped"},
      {"mutant:rope-qwen3-vl-interleave-ignored", "assigns the axes in sections"},
      {"mutant:rope-freq-factors-multiplied", "multiplies ω by freq_factors"},
  };
  for (const auto& [spec, words] : named) {
    BOOST_TEST_CONTEXT(spec) {
      const PropertyResult r = pecheck::testing::run_property("rope.reference_values", spec);
      BOOST_REQUIRE(r.counterexample() != nullptr);
      BOOST_TEST(r.counterexample()->diagnosis.find(words) != std::string::npos, r.counterexample()->diagnosis);
    }
  }
  const PropertyResult layers = pecheck::testing::run_property("module.layer_schedule", "mutant:gemma3-local-layers-scaled");
  BOOST_REQUIRE(layers.counterexample() != nullptr);
  BOOST_TEST(layers.counterexample()->diagnosis.find("its own base with layer 5's scaling") != std::string::npos,
             layers.counterexample()->diagnosis);
  const PropertyResult context = pecheck::testing::run_property("rope.factor_switch", "mutant:rope-longrope-context-factors");
  BOOST_REQUIRE(context.counterexample() != nullptr);
  BOOST_TEST(context.counterexample()->diagnosis.find("llama.cpp #24823") != std::string::npos,
             context.counterexample()->diagnosis);
}

BOOST_AUTO_TEST_CASE(the_new_claims_apply_where_their_declarations_are) {
  const auto applies = [](const std::string& id, const std::string& spec) {
    return find_property(id)->info.applies_to(make_subject(spec)->info());
  };
  BOOST_TEST(applies("rope.factor_switch", "builtin:rope@longrope"));
  BOOST_TEST(!applies("rope.factor_switch", "builtin:rope@yarn"));
  BOOST_TEST(applies("rope.axis_independence", "builtin:rope@qwen3-vl"));
  BOOST_TEST(!applies("rope.axis_independence", "builtin:rope@llama"));
  BOOST_TEST(applies("module.layer_schedule", "builtin:gemma3-block"));
  BOOST_TEST(!applies("module.layer_schedule", "builtin:llama-block"));
  for (const char* spec : {"builtin:rope@longrope", "builtin:rope@mrope", "builtin:gemma3-block", "builtin:llama4-block"}) {
    for (const char* id : {"rope.factor_switch", "rope.axis_independence", "module.layer_schedule",
                           "rope.reference_values"}) {
      if (!applies(id, spec)) continue;
      BOOST_TEST_CONTEXT(id << " on " << spec) {
        const PropertyResult r = pecheck::testing::run_property(id, spec);
        BOOST_TEST((r.status() == Status::passed), r.message());
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_kept_rope_deltas_is_shown_by_the_shortest_history) {
  const PropertyResult r = pecheck::testing::run_property("history_independence", "mutant:rope-mrope-rope-deltas-kept");
  BOOST_REQUIRE(r.counterexample() != nullptr);
  const json& script = r.counterexample()->inputs;
  BOOST_REQUIRE_MESSAGE(script.is_array() && script.size() == 2u, script.dump());  // an image prompt, then text
  BOOST_TEST(script[0]["positions"][0] != script[0]["positions"][1], script.dump());
  BOOST_TEST(script[1]["positions"][0] == script[1]["positions"][1], script.dump());
  BOOST_TEST(r.counterexample()->diagnosis.find("depends on the requests before it") != std::string::npos,
             r.counterexample()->diagnosis);
}

BOOST_AUTO_TEST_SUITE_END()  // test_positional_schemes
