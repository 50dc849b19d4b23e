// `pecheck identify` (src/cli/identify_command.cpp, properties/identify/):
// each published convention's built-in is recognised — its base, schedule,
// offset, layout, rotary width and scaling — with the version-2 hello that
// declares it; a planted convention bug is named for what it computes; a
// subject no declarable convention explains exits 1.
#include <boost/test/unit_test.hpp>

#include <string>

#include "pecheck/core/json.h"
#include "support/cli.h"

BOOST_AUTO_TEST_SUITE(test_identify)

using namespace pecheck;
using pecheck::testing::run_cli;

namespace {

struct Identified {
  int exit_code = -1;
  json report;
  std::string output;  // identify's output as printed (the JSON report)
};

Identified identify(const std::string& spec) {
  const auto r = run_cli({"identify", "--json", "--subject", spec});
  Identified out{r.exit_code, json(), r.output};
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0 || r.exit_code == 1, spec << ": " << r.output);
  out.report = json::parse(r.output);
  return out;
}

// params.<op> of the hello identify printed.
json params(const Identified& id, const std::string& op) { return id.report["hello"]["params"][op]; }

}  // namespace

BOOST_AUTO_TEST_CASE(each_published_rotary_convention_is_recognised) {
  {
    const auto id = identify("builtin:rope@gptj");
    BOOST_TEST(id.exit_code == 0);
    BOOST_TEST(params(id, "rotate")["rotary_dim"] == 64);
    BOOST_TEST(params(id, "rotate")["layout"] == "interleaved");
  }
  {
    const auto id = identify("builtin:rope@neox");
    BOOST_TEST(id.exit_code == 0);
    BOOST_TEST(params(id, "rotate")["rotary_fraction"] == 0.25);
    BOOST_TEST(params(id, "rotate")["layout"] == "halves");
  }
  {
    const auto id = identify("builtin:rope@llama3");
    BOOST_TEST(id.exit_code == 0, id.report.dump());
    BOOST_TEST(params(id, "rotate")["base"] == 500000.0);
    BOOST_TEST(params(id, "rotate")["scaling"]["type"] == "llama3", id.report.dump());
  }
  {
    const auto id = identify("builtin:rope@llama");
    BOOST_TEST(id.exit_code == 0);
    BOOST_TEST(params(id, "rotate")["base"] == 10000.0);
    BOOST_TEST(params(id, "rotate")["layout"] == "halves");
    BOOST_TEST(!params(id, "rotate").contains("scaling"));
  }
}

BOOST_AUTO_TEST_CASE(each_published_encoder_convention_is_recognised) {
  {
    const auto id = identify("builtin:sinusoidal@fairseq");
    BOOST_TEST(id.exit_code == 0);
    BOOST_TEST(params(id, "encode")["position_offset"] == 2);
    BOOST_TEST(params(id, "encode")["schedule"] == "i/(h-1)", id.report.dump());
    BOOST_TEST(params(id, "encode")["layout"] == "halves");
  }
  {
    const auto id = identify("builtin:sinusoidal@t2t");
    BOOST_TEST(id.exit_code == 0);
    BOOST_TEST(params(id, "encode")["schedule"] == "i/(h-1)");
  }
  {
    const auto id = identify("builtin:sinusoidal");
    BOOST_TEST(id.exit_code == 0);
    BOOST_TEST(params(id, "encode")["base"] == 10000.0);
    BOOST_TEST(params(id, "encode")["layout"] == "interleaved");
  }
}

BOOST_AUTO_TEST_CASE(a_planted_convention_bug_is_named_for_what_it_computes) {
  // It declares base 10000 and computes base 1000: identify says what it is.
  const auto id = identify("mutant:rope-base-1000");
  BOOST_TEST(id.exit_code == 0);
  BOOST_TEST(params(id, "rotate")["base"] == 1000.0);
}

BOOST_AUTO_TEST_CASE(nothing_declarable_fits_exits_1_with_the_closest) {
  // Llama 3 scaling with its bands exchanged is no convention anyone declares.
  const auto id = identify("mutant:rope-llama3-bands-swapped");
  BOOST_TEST(id.exit_code == 1);
  BOOST_TEST(id.report["fits"] == false);
  BOOST_TEST(!id.report["ops"][0]["convention"].get<std::string>().empty());
}

BOOST_AUTO_TEST_CASE(a_subject_with_none_of_the_ops_is_a_usage_error) {
  const auto r = run_cli({"identify", "--subject", "builtin:encoder-layer"});
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(r.output.find("neither encode, rotate nor attention") != std::string::npos, r.output);
}

// Issue 20: the window, grouping, cap, scale and alignment of an attention
// subject that declares nothing about them — here built-ins and planted bugs
// with their declarations stripped to the heads.
BOOST_AUTO_TEST_CASE(attention_conventions_are_named) {
  const auto plain = identify("builtin:attention");
  BOOST_TEST(plain.exit_code == 0, plain.output);
  const std::string convention = plain.report["ops"][0]["convention"].get<std::string>();
  BOOST_TEST(convention.find("scale 1/√d_head") != std::string::npos, convention);
  BOOST_TEST(convention.find("no softcap") != std::string::npos, convention);
  BOOST_TEST(convention.find("no window or chunk") != std::string::npos, convention);
  BOOST_TEST(convention.find("causal requests with fewer queries than keys are refused") != std::string::npos,
             convention);

  const auto mistral = identify("builtin:mistral-block");
  const std::string m = mistral.report["ops"][0]["convention"].get<std::string>();
  BOOST_TEST(m.find("a sliding window of 4 keys") != std::string::npos, m);
  BOOST_TEST(m.find("bottom_right") != std::string::npos, m);
  BOOST_TEST(m.find("grouping repeat_interleave") != std::string::npos, m);
  BOOST_TEST(mistral.report["hello"]["params"]["attention"]["window"] == 4, mistral.report.dump());

  const auto gemma = identify("builtin:gemma2-block");
  const std::string g = gemma.report["ops"][0]["convention"].get<std::string>();
  BOOST_TEST(g.find("softcap 50") != std::string::npos, g);
  BOOST_TEST(g.find("scale 0.0625") != std::string::npos, g);

  const auto tiled = identify("mutant:llama-gqa-block-tile");
  const std::string t = tiled.report["ops"][0]["convention"].get<std::string>();
  BOOST_TEST(t.find("grouping tile") != std::string::npos, t);

  const auto chunked = identify("builtin:attention-llama4");
  const std::string c = chunked.report["ops"][0]["convention"].get<std::string>();
  BOOST_TEST(c.find("chunked attention of 3 keys") != std::string::npos, c);
  BOOST_TEST(c.find("top_left") != std::string::npos, c);
}

BOOST_AUTO_TEST_CASE(the_schemes_of_2024_2026_models_are_recognised) {
  {
    const auto id = identify("builtin:rope@deepseek-yarn");
    BOOST_TEST(id.exit_code == 0, id.report.dump());
    BOOST_TEST(params(id, "rotate")["layout"] == "interleave_then_halves", id.report.dump());
    BOOST_TEST(params(id, "rotate")["scaling"]["type"] == "yarn", id.report.dump());
    BOOST_TEST(params(id, "rotate")["scaling"]["factor"] == 40.0, id.report.dump());
    BOOST_TEST(params(id, "rotate")["scaling"]["mscale_all_dim"] == 1.0, id.report.dump());
  }
  {
    const auto id = identify("builtin:rope@longrope");
    BOOST_TEST(id.exit_code == 0, id.report.dump());
    BOOST_TEST(params(id, "rotate")["scaling"]["type"] == "longrope", id.report.dump());
    BOOST_TEST(params(id, "rotate")["scaling"]["original_max_position"] == 4096, id.report.dump());
    BOOST_TEST(params(id, "rotate")["scaling"]["long_factor"].size() == 48u);
  }
  {
    const auto id = identify("builtin:rope@mrope");
    BOOST_TEST(id.exit_code == 0, id.report.dump());
    BOOST_TEST(params(id, "rotate")["mrope_section"] == json::array({16, 24, 24}), id.report.dump());
    BOOST_TEST(!params(id, "rotate").contains("mrope_interleaved"));
  }
  {
    const auto id = identify("builtin:rope@qwen3-vl");
    BOOST_TEST(id.exit_code == 0, id.report.dump());
    BOOST_TEST(params(id, "rotate")["mrope_section"] == json::array({24, 20, 20}), id.report.dump());
    BOOST_TEST(params(id, "rotate")["mrope_interleaved"] == true);
  }
}

BOOST_AUTO_TEST_CASE(swapped_sections_are_no_declarable_convention) {
  const auto id = identify("mutant:rope-mrope-sections-swapped");
  BOOST_TEST(id.exit_code == 1, id.report.dump());
  BOOST_TEST(id.report["ops"][0]["convention"].get<std::string>().find("neither sections") != std::string::npos,
             id.report.dump());
}

// Issue 35: DeepSeek MLA's decoupled rotary, probed at the head width it
// declares (nope + rope features), its split read off the answers.
BOOST_AUTO_TEST_CASE(mla_decoupled_rotary_is_recognised_at_its_declared_head) {
  const auto id = identify("builtin:rope@mla");
  BOOST_TEST(id.exit_code == 0, id.output);
  BOOST_TEST(params(id, "rotate")["qk_rope_head_dim"] == 64, id.output);
  BOOST_TEST(params(id, "rotate")["qk_nope_head_dim"] == 128, id.output);
  BOOST_TEST(params(id, "rotate")["layout"] == "interleaved", id.output);
  BOOST_TEST(params(id, "rotate")["base"] == 10000.0, id.output);
  BOOST_TEST(!params(id, "rotate").contains("rotary_dim"), id.output);
}

BOOST_AUTO_TEST_CASE(mla_planted_bugs_are_named_for_what_they_compute) {
  {  // The rotary on the nope slice: the first 64 features turn, as GPT-J's partial rotary.
    const auto id = identify("mutant:rope-mla-nope-slice");
    const std::string convention = id.report["ops"][0]["convention"].get<std::string>();
    BOOST_TEST(convention.find("the rotary applied to the nope slice") != std::string::npos, convention);
    BOOST_TEST(params(id, "rotate")["rotary_dim"] == 64, id.output);
    BOOST_TEST(!params(id, "rotate").contains("qk_rope_head_dim"), id.output);
  }
  {  // rotate_half on the rope slice: the decoupled head in the halves layout.
    const auto id = identify("mutant:rope-mla-rotate-half");
    BOOST_TEST(id.exit_code == 0, id.output);
    BOOST_TEST(params(id, "rotate")["layout"] == "halves", id.output);
    BOOST_TEST(params(id, "rotate")["qk_rope_head_dim"] == 64, id.output);
  }
  {  // The nope features zeroed: a defect, exit 1, named.
    const auto id = identify("mutant:rope-mla-nope-zeroed");
    BOOST_TEST(id.exit_code == 1, id.output);
    const std::string convention = id.report["ops"][0]["convention"].get<std::string>();
    BOOST_TEST(convention.find("the nope features returned as zeros") != std::string::npos, convention);
    BOOST_TEST(convention.find("base 10000, interleaved layout") != std::string::npos, convention);
  }
}

// Issue 35: the vision 2-D rotary (Pixtral), probed with a row and a column
// per vector: its layout, base, frequency split and which stream is the row.
BOOST_AUTO_TEST_CASE(pixtral_2d_rotary_is_recognised_with_its_axes) {
  const auto id = identify("builtin:rope@pixtral");
  BOOST_TEST(id.exit_code == 0, id.output);
  BOOST_TEST(params(id, "rotate")["layout"] == "halves", id.output);
  BOOST_TEST(params(id, "rotate")["base"] == 10000.0, id.output);
  BOOST_TEST(params(id, "rotate")["rope_2d"]["axes"] == json::array({"h", "w"}), id.output);
  BOOST_TEST(params(id, "rotate")["rope_2d"]["frequencies"] == "even_odd", id.output);
}

BOOST_AUTO_TEST_CASE(pixtral_planted_bugs_are_named_for_what_they_compute) {
  {  // Rows and columns swapped: what it computes is axes [w, h], and the slip is named.
    const auto id = identify("mutant:rope-2d-rows-columns-swapped");
    BOOST_TEST(params(id, "rotate")["rope_2d"]["axes"] == json::array({"w", "h"}), id.output);
    const std::string convention = id.report["ops"][0]["convention"].get<std::string>();
    BOOST_TEST(convention.find("rows and columns swapped") != std::string::npos, convention);
  }
  {  // Qwen2-VL's split where Pixtral's is declared.
    const auto id = identify("mutant:rope-2d-halves-frequencies");
    BOOST_TEST(params(id, "rotate")["rope_2d"]["frequencies"] == "halves", id.output);
    const std::string convention = id.report["ops"][0]["convention"].get<std::string>();
    BOOST_TEST(convention.find("where even_odd is declared") != std::string::npos, convention);
  }
  {  // A 64 × 64 table indexed modulo 64: a defect, exit 1, named.
    const auto id = identify("mutant:rope-2d-table-wraps");
    BOOST_TEST(id.exit_code == 1, id.output);
    const std::string convention = id.report["ops"][0]["convention"].get<std::string>();
    BOOST_TEST(convention.find("indexed modulo 64") != std::string::npos, convention);
  }
}

BOOST_AUTO_TEST_SUITE_END()  // test_identify
