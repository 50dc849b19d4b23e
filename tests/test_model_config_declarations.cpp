// params.model (SUBJECT-PROTOCOL.md "Model configs"): a config.json as the
// declaration. A Gemma-3-style block that declares nothing but its ops is
// judged layer by layer from the config alone — module.layer_schedule passes
// when its local layers use base 10⁴ unscaled and its global layer 10⁶ with
// linear ×8, and fails naming the layer when the local layers get the global
// settings (vLLM PR #29111, llama.cpp #14367). An explicit field that agrees
// with the config is kept; one that contradicts it is a BadDeclaration
// showing both values; a field the reader cannot judge yet is refused.
#include <boost/test/unit_test.hpp>

#include <fmt/format.h>

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <utility>
#include <vector>

#include "pecheck/core/subject_spec.h"
#include "pecheck/subjects/builtin/modules.h"
#include "pecheck/subjects/builtin/modules_layered.h"
#include "pecheck/subjects/declare.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/protocol/model_config.h"
#include "support/cli.h"
#include "support/declarations.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_model_config_declarations)

using namespace pecheck;
using testing::declarations_refusal;
using testing::source_file;
using testing::with_model;

namespace {

json tiny_gemma3() {
  std::ifstream in(source_file("tests/fixtures/model_blocks/gemma3_tiny.json"));
  return json::parse(in);
}

std::string described(const PropertyResult& r) {
  std::string out = r.message();
  if (const Counterexample* c = r.counterexample()) out += " | " + c->check + " | " + c->note + " | " + c->diagnosis;
  return out;
}

// gemma3-block's layers under an info that declares only what it offers (no params).
SubjectPtr undeclared_block(std::vector<LlamaBlockOptions> layers) {
  SubjectInfo info = module_info("gemma3-from-config", builtin_spec("gemma3-block"),
                                 {true, Positional::relative, layers.front().width}, true, "gemma3-block");
  info.ops |= static_cast<unsigned>(Op::rotate);
  info.declared.clear();
  return std::make_unique<LayeredBlockSubject>(std::move(info), std::move(layers));
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_config_alone_declares_every_layer) {
  SubjectPtr block = with_declarations(undeclared_block(gemma3_layers()), with_model(tiny_gemma3()));
  const SubjectInfo& info = block->info();
  BOOST_REQUIRE(info.forward.has_value());
  BOOST_REQUIRE(info.forward->layers.size() == 6u);
  for (int k = 0; k < 6; ++k) {
    const auto& rotate = info.forward->layers[static_cast<std::size_t>(k)].rotate;
    BOOST_REQUIRE(rotate.has_value());
    BOOST_TEST(rotate->base == (k == 5 ? 1e6 : 1e4), "layer " << k);
    BOOST_TEST((rotate->scaling.type == (k == 5 ? ScalingType::linear : ScalingType::none)), "layer " << k);
  }
  BOOST_TEST(info.forward->causal);
  BOOST_TEST(info.rotate.base == 1e4);  // a rotate without "layer" is layer 0's
}

BOOST_AUTO_TEST_CASE(a_block_judged_from_its_config_passes_and_its_swapped_twin_fails_naming_the_layer) {
  SubjectPtr right = with_declarations(undeclared_block(gemma3_layers()), with_model(tiny_gemma3()));
  const PropertyResult good = testing::run_property("module.layer_schedule", *right);
  BOOST_TEST(good.held(), described(good));

  auto global_everywhere = gemma3_layers();
  for (auto& layer : global_everywhere) {
    layer.base = 1e6;
    layer.scaling.type = ScalingType::linear;
    layer.scaling.factor = 8;
  }
  SubjectPtr wrong = with_declarations(undeclared_block(global_everywhere), with_model(tiny_gemma3()));
  const PropertyResult bad = testing::run_property("module.layer_schedule", *wrong);
  BOOST_REQUIRE(bad.counterexample() != nullptr);
  const std::string text = described(bad);
  BOOST_TEST(text.find("rotary layer as declared") != std::string::npos, text);
  bool names_a_local_layer = false;
  for (int k = 0; k < 5; ++k) names_a_local_layer |= text.find(fmt::format("layer {}", k)) != std::string::npos;
  BOOST_TEST(names_a_local_layer, text);
}

BOOST_AUTO_TEST_CASE(explicit_fields_that_agree_are_kept_and_contradictions_show_both_values) {
  // gemma3-block declares its own layers and params.rotate: the config agrees with them.
  SubjectPtr agreeing = with_declarations(make_subject("builtin:gemma3-block"), with_model(tiny_gemma3()));
  BOOST_TEST(agreeing->info().forward->layers.size() == 6u);

  json config = tiny_gemma3();
  config["rope_local_base_freq"] = 20000;  // the config's local layers now disagree with the block's declaration
  const std::string why = declarations_refusal(make_subject("builtin:gemma3-block"), with_model(config));
  BOOST_TEST(why.find("contradict") != std::string::npos, why);
  BOOST_TEST(why.find("10000") != std::string::npos, why);
  BOOST_TEST(why.find("20000") != std::string::npos, why);
}

BOOST_AUTO_TEST_CASE(fields_read_but_not_judged_are_refused_by_name) {
  json config = tiny_gemma3();
  config["model_type"] = "gemma3n_text";  // the last layers share keys and values: not judged yet
  config["num_kv_shared_layers"] = 2;
  const std::string why = declarations_refusal(undeclared_block(gemma3_layers()), with_model(config));
  BOOST_TEST(why.find("num_kv_shared_layers") != std::string::npos, why);
  BOOST_TEST(why.find("cannot judge yet") != std::string::npos, why);
}

BOOST_AUTO_TEST_CASE(llama4_temperature_tuning_is_declared_on_the_nope_layers) {
  // configuration_llama4.py: every 4th layer NoPE; attn_temperature_tuning with attn_scale and floor_scale.
  json config = tiny_gemma3();
  config["model_type"] = "llama4_text";
  config["num_hidden_layers"] = 4;
  config["attn_temperature_tuning"] = true;
  config["attn_scale"] = 0.25;
  config["floor_scale"] = 16;
  SubjectPtr block = with_declarations(undeclared_block(llama4_layers()), with_model(config));
  const auto& layers = block->info().forward->layers;
  BOOST_REQUIRE(layers.size() == 4u);
  BOOST_TEST(!layers[0].temperature_tuning.has_value());
  BOOST_REQUIRE(layers[3].temperature_tuning.has_value());
  BOOST_TEST(layers[3].temperature_tuning->attn_scale == 0.25);
  BOOST_TEST(layers[3].temperature_tuning->floor_scale == 16);
  // The hostile pass: attn_scale -1 (queries far along flipped) was accepted from a config while a hello's
  // layers[].attn_scale is refused outside (0, 100]: both readers refuse it now, naming the field.
  for (double scale : {-1.0, 0.0, 1e308}) {
    config["attn_scale"] = scale;
    try {
      (void)with_declarations(undeclared_block(llama4_layers()), with_model(config));
      BOOST_ERROR("attn_scale " << scale << " accepted");
    } catch (const std::exception& e) {
      BOOST_TEST(std::string(e.what()).find("attn_scale") != std::string::npos, e.what());
    }
  }
}

BOOST_AUTO_TEST_CASE(the_cli_takes_the_config_and_a_contradiction_is_exit_2) {
  const std::string config = source_file("tests/fixtures/model_blocks/gemma3_tiny.json");
  const auto ok = testing::run_cli({"run", "--subject", "builtin:gemma3-block", "--model-config", config,
                                    "--properties", "module.layer_schedule", "--cases", "20", "--quiet"});
  BOOST_TEST(ok.exit_code == 0, ok.output);
  const std::string llama2 = source_file("tests/fixtures/configs/llama2_7b.json");
  const auto contradiction = testing::run_cli({"run", "--subject", "builtin:gemma3-block", "--model-config", llama2,
                                               "--properties", "module.layer_schedule", "--cases", "20", "--quiet"});
  BOOST_TEST(contradiction.exit_code == 2, contradiction.output);
  BOOST_TEST(contradiction.output.find("--model-config") != std::string::npos, contradiction.output);
}

BOOST_AUTO_TEST_CASE(pecheck_toml_takes_model_config) {
  const std::string dir = testing::temp_dir("model-config-toml");
  const auto run_with = [&dir](const std::string& line) {
    const std::string path = dir + "/pecheck.toml";
    std::ofstream(path) << "subject = \"builtin:gemma3-block\"\nproperties = [\"module.layer_schedule\"]\ncases = 20\n"
                        << line << "\n";
    return testing::run_cli({"run", "--config", path, "--quiet", "--no-regressions", "--report-dir", dir + "/reports"});
  };
  const auto agreeing = run_with("model_config = \"" + source_file("tests/fixtures/model_blocks/gemma3_tiny.json") + "\"");
  BOOST_TEST(agreeing.exit_code == 0, agreeing.output);
  const auto contradicting = run_with("model_config = \"" + source_file("tests/fixtures/configs/gemma2_9b.json") + "\"");
  BOOST_TEST(contradicting.exit_code == 2, contradicting.output);
  BOOST_TEST(contradicting.output.find("params.forward.layers") != std::string::npos, contradicting.output);
  const auto empty = run_with("model_config = \"\"");
  BOOST_TEST(empty.exit_code == 2, empty.output);
  BOOST_TEST(empty.output.find("model_config") != std::string::npos, empty.output);
}

// The hostile pass of issue 39 (tests/hostile/pass.py): a --model-config that
// is a FIFO waited for a writer, /dev/zero was read until memory ran out, and a
// 100 MB file was read whole (560 MB resident) and accepted. A config.json is
// kilobytes: each is refused at once (exit 2) naming the file and why; and
// one nested 100 000 levels deep, which crashed the reader, is refused too.
BOOST_AUTO_TEST_CASE(a_model_config_is_read_bounded) {
  const std::string dir = testing::temp_dir("model-config-bounded");
  const std::string fifo = dir + "/fifo.json";
  BOOST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string large = dir + "/large.json";
  {
    std::ofstream out(large);
    out << R"({"model_type": "llama", "padding": ")" << std::string(std::size_t{5} << 20, 'x') << "\"}";
  }
  const std::string nul = dir + "/nul.json";
  std::ofstream(nul) << std::string(1, '\0') << "{}";
  // 100 000 nested objects crashed the reader (SIGSEGV): refused as JSON nested too deep.
  const std::string deep = dir + "/deep.json";
  std::ofstream(deep) << R"({"text_config": )" << std::string(100000, '[') << std::string(100000, ']') << "}";
  for (const auto& [path, why] : std::vector<std::pair<std::string, std::string>>{
           {fifo, "not a regular file"}, {"/dev/zero", "not a regular file"}, {large, "more than"}, {nul, "NUL"},
           {deep, "nested more than"}}) {
    const auto r = testing::run_cli({"run", "--subject", "builtin:llama-block", "--model-config", path, "--properties",
                                     "module.causality", "--cases", "5", "--quiet", "--no-regressions"});
    BOOST_TEST(r.exit_code == 2, path << ": " << r.output);
    BOOST_TEST(r.output.find(why) != std::string::npos, path << ": " << r.output);
    BOOST_TEST(r.seconds < 10, path << " took " << r.seconds << " s");
    const auto explained = testing::run_cli({"explain-config", path});
    BOOST_TEST(explained.exit_code == 2, path << ": " << explained.output);
  }
}

BOOST_AUTO_TEST_SUITE_END()
