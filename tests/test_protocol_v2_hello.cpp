// Protocol v2's declarations in hello (src/protocol/hello.cpp): every
// field SUBJECT-PROTOCOL.md defines lands in SubjectInfo, with its dotted path
// in `declared`; every field pecheck does not know, every value of the wrong
// type or out of range, and params for an undeclared op is a BadDeclaration
// naming the field — through make_subject too, where it is a BadSubjectSpec
// (exit 2) and the subject is stopped. serve's hello_result is read back as
// the same declarations.
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>

#include "pecheck/subjects/factory.h"
#include "protocol/declarations.h"
#include "protocol/hello.h"
#include "protocol/responses.h"
#include "support/cli.h"

BOOST_AUTO_TEST_SUITE(test_protocol_v2_hello)

using namespace pecheck;
using namespace pecheck::process;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

json base(const char* ops = R"(["rotate"])") {
  return json{{"protocol", 2}, {"name", "s"}, {"ops", json::parse(ops)}, {"dtype", "float32"}};
}

// The BadDeclaration a hello raises (its field and message), or "(accepted)".
std::pair<std::string, std::string> refused(const json& hello) {
  try {
    read_hello(hello);
  } catch (const BadDeclaration& d) {
    return {d.field, d.what()};
  }
  return {"(accepted)", ""};
}

json with(json hello, const std::string& pointer, json value) {
  hello[json::json_pointer(pointer)] = std::move(value);
  return hello;
}

std::string source_dir() {
  const char* dir = std::getenv("PECHECK_SOURCE_DIR");
  if (dir == nullptr) throw std::runtime_error("PECHECK_SOURCE_DIR is not set (run through ctest)");
  return dir;
}

// A subject that answers hello with `hello` (tests/subjects/says_hello.py).
std::string says(const json& hello) {
  return "/usr/bin/python3 '" + source_dir() + "/tests/subjects/says_hello.py' '" + hello.dump() + "'";
}

bool no_children() { return waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD; }

}  // namespace

BOOST_AUTO_TEST_CASE(the_specs_example_is_read_whole) {
  const json hello = json::parse(R"({"protocol":2,"name":"llama-rope","ops":["rotate"],"dtype":"bfloat16",
    "compute":{"angles":"float32"},
    "params":{"rotate":{"base":500000,"rotary_dim":64,"layout":"halves",
                        "scaling":{"type":"llama3","factor":8,"low_freq_factor":1,
                                   "high_freq_factor":4,"original_max_position":8192}}}})");
  const Hello h = read_hello(hello);
  const SubjectInfo& info = h.info;
  BOOST_TEST(h.protocol == 2);
  BOOST_TEST(info.name == "llama-rope");
  BOOST_TEST(info.ops == static_cast<unsigned>(Op::rotate));
  BOOST_TEST(name(info.dtype) == "bfloat16");
  BOOST_TEST(name(info.angles_dtype()) == "float32");
  BOOST_TEST(name(info.accumulate_dtype()) == "bfloat16", "an undeclared stage computes in dtype");
  BOOST_TEST(info.rotate.base == 500000);
  BOOST_TEST(*info.rotate.rotary_dim == 64);
  BOOST_TEST(!info.rotate.rotary_fraction.has_value());
  BOOST_TEST(name(info.rotate_layout()) == "halves");
  BOOST_TEST(name(info.rotate.scaling.type) == "llama3");
  BOOST_TEST(info.rotate.scaling.factor == 8);
  BOOST_TEST(info.rotate.scaling.low_freq_factor == 1);
  BOOST_TEST(info.rotate.scaling.high_freq_factor == 4);
  BOOST_TEST(info.rotate.scaling.original_max_position == 8192);
  BOOST_TEST(!info.batch);
  BOOST_TEST(!info.b64le);
  const std::vector<std::string> declared{"compute.angles",
                                          "params.rotate.base",
                                          "params.rotate.layout",
                                          "params.rotate.rotary_dim",
                                          "params.rotate.scaling.factor",
                                          "params.rotate.scaling.high_freq_factor",
                                          "params.rotate.scaling.low_freq_factor",
                                          "params.rotate.scaling.original_max_position",
                                          "params.rotate.scaling.type"};
  BOOST_TEST(info.declared == declared, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(every_op_s_params_and_the_top_level_fields_are_read) {
  const Hello h = read_hello(json::parse(R"j({"protocol":2,"name":"all","dtype":"float16","layout":"interleaved",
    "ops":["encode","attention","rotate","bias","forward","decode","reset"],
    "compute":{"angles":"float32","accumulate":"float64"},
    "params":{"encode":{"base":20000,"schedule":"i/(h-1)","position_offset":2,"amplitude":0.5,"layout":"halves"},
              "rotate":{"rotary_fraction":0.25,"scaling":{"type":"yarn","factor":4,"original_max_position":4096,
                                                          "beta_fast":16,"beta_slow":2}},
              "bias":{"scheme":"t5","heads":12,"num_buckets":16,"max_distance":64,"bidirectional":false},
              "forward":{"causal":true,"positional":"relative","width":32}},
    "batch":true,"arrays":["b64le"]})j"));
  const SubjectInfo& info = h.info;
  for (Op op : {Op::encode, Op::attention, Op::rotate, Op::bias, Op::forward, Op::decode}) {
    BOOST_TEST(info.supports(op), name(op));
  }
  BOOST_TEST(!info.supports(Op::logits));
  BOOST_TEST(name(*info.compute.accumulate) == "float64");
  BOOST_TEST(info.encode.base == 20000);
  BOOST_TEST(name(info.encode.schedule) == "i/(h-1)");
  BOOST_TEST(info.encode.position_offset == 2);
  BOOST_TEST(info.encode.amplitude == 0.5);
  BOOST_TEST(info.amplitude == 0.5, "the amplitude the encoder properties read");
  BOOST_TEST(name(info.encode_layout()) == "halves", "params.encode.layout wins over the top-level layout");
  BOOST_TEST(name(info.rotate_layout()) == "interleaved", "the top-level layout is rotate's default");
  BOOST_TEST(*info.rotate.rotary_fraction == 0.25);
  BOOST_TEST(info.rotate.rotary_width(64) == 16);
  BOOST_TEST(name(info.rotate.scaling.type) == "yarn");
  BOOST_TEST(info.rotate.scaling.beta_fast == 16);
  BOOST_TEST(info.rotate.scaling.beta_slow == 2);
  BOOST_REQUIRE(info.bias.has_value());
  BOOST_TEST(name(info.bias->scheme) == "t5");
  BOOST_TEST(info.bias->heads == 12);
  BOOST_TEST(info.bias->num_buckets == 16);
  BOOST_TEST(info.bias->max_distance == 64);
  BOOST_TEST(!info.bias->bidirectional);
  BOOST_REQUIRE(info.forward.has_value());
  BOOST_TEST(info.forward->causal);
  BOOST_TEST(name(info.forward->positional) == "relative");
  BOOST_TEST(info.forward->width == 32);
  BOOST_TEST(info.batch);
  BOOST_TEST(info.b64le);
  BOOST_TEST(info.declared.size() == 21u);
  // Omitted yarn betas take the published defaults.
  const Hello yarn = read_hello(with(base(), "/params/rotate/scaling",
                                     {{"type", "yarn"}, {"factor", 2}, {"original_max_position", 2048}}));
  BOOST_TEST(yarn.info.rotate.scaling.beta_fast == 32);
  BOOST_TEST(yarn.info.rotate.scaling.beta_slow == 1);
}

BOOST_AUTO_TEST_CASE(a_version_1_hello_is_read_as_before) {
  const Hello h = read_hello(json::parse(
      R"({"protocol":1,"name":"old","ops":["encode"],"dtype":"float32","layout":"interleaved","version":"1.2"})"));
  BOOST_TEST(h.protocol == 1);
  BOOST_TEST(h.info.declared.empty());
  BOOST_TEST(name(h.info.encode_layout()) == "interleaved");
  BOOST_TEST(!h.info.bias.has_value());
  BOOST_TEST(!h.info.forward.has_value());
  BOOST_TEST(h.info.rotate.base == 10000, "undeclared conventions are the papers'");
}

BOOST_AUTO_TEST_CASE(what_pecheck_does_not_know_or_cannot_accept_is_refused_naming_the_field) {
  struct Case {
    json hello;
    std::string field;
    std::string says;
  };
  const Case cases[] = {
      // Fields pecheck does not know.
      {with(base(), "/params/rotate/rope_theta", 500000), "params.rotate.rope_theta", "does not know"},
      {with(base(), "/max_batch", 4), "max_batch", "does not know"},
      {with(base(), "/compute/softmax", "float32"), "compute.softmax", "does not know"},
      {with(base(), "/params/logits", json::object()), "params.logits", "does not know"},
      {with(base(), "/params/rotate/scaling", {{"type", "linear"}, {"factor", 2}, {"beta_fast", 32}}),
       "params.rotate.scaling.beta_fast", "does not have"},
      {with(base(), "/arrays", {"npy"}), "arrays", "does not know"},
      // Values of the wrong type or out of range.
      {with(base(), "/params/rotate/base", 0), "params.rotate.base", "> 0"},
      {with(base(), "/params/rotate/base", -10000), "params.rotate.base", "> 0"},
      {with(base(), "/params/rotate/base", "10000"), "params.rotate.base", "finite number"},
      {with(base(), "/params/rotate/rotary_dim", 63), "params.rotate.rotary_dim", "even"},
      {with(base(), "/params/rotate/rotary_dim", 0), "params.rotate.rotary_dim", "integer"},
      {with(base(), "/params/rotate/rotary_dim", 64.5), "params.rotate.rotary_dim", "integer"},
      {with(base(), "/params/rotate/rotary_fraction", 0), "params.rotate.rotary_fraction", "(0, 1]"},
      {with(base(), "/params/rotate/rotary_fraction", 1.5), "params.rotate.rotary_fraction", "(0, 1]"},
      {with(with(base(), "/params/rotate/rotary_fraction", 0.5), "/params/rotate/rotary_dim", 64),
       "params.rotate.rotary_fraction", "both declared"},
      {with(base(), "/params/rotate/layout", "pairs"), "params.rotate.layout", "interleaved, halves"},
      {with(base(), "/params/rotate/scaling", {{"type", "rope2"}, {"factor", 2}}), "params.rotate.scaling.type",
       "one of"},
      {with(base(), "/params/rotate/scaling", {{"factor", 2}}), "params.rotate.scaling.type", "is missing"},
      {with(base(), "/params/rotate/scaling", {{"type", "dynamic_ntk"}, {"factor", 2}}),
       "params.rotate.scaling.original_max_position", "needs"},
      {with(base(), "/params/rotate/scaling",
            {{"type", "llama3"}, {"factor", 8}, {"low_freq_factor", 1}, {"original_max_position", 8192}}),
       "params.rotate.scaling.high_freq_factor", "needs"},
      {with(base(), "/params/rotate/scaling",
            {{"type", "llama3"}, {"factor", 8}, {"low_freq_factor", 4}, {"high_freq_factor", 1},
             {"original_max_position", 8192}}),
       "params.rotate.scaling.high_freq_factor", "at least"},
      {with(base(), "/params/rotate/scaling", {{"type", "linear"}, {"factor", 0.5}}), "params.rotate.scaling.factor",
       "≥ 1"},
      {with(with(base(), "/params/rotate/scaling", {{"type", "ntk"}, {"factor", 2}}), "/params/rotate/rotary_dim", 2),
       "params.rotate.rotary_dim", "≥ 4"},
      {with(base(R"(["encode"])"), "/params/encode/schedule", "2i/h"), "params.encode.schedule", "one of"},
      {with(base(R"(["encode"])"), "/params/encode/position_offset", -1), "params.encode.position_offset", "integer"},
      {with(base(R"(["encode"])"), "/params/encode/amplitude", std::nan("")), "params.encode.amplitude", "finite"},
      {with(base(R"(["bias"])"), "/params/bias", {{"scheme", "alibi"}}), "params.bias.heads", "is missing"},
      {with(base(R"(["bias"])"), "/params/bias", {{"scheme", "alibi"}, {"heads", 8}, {"num_buckets", 32}}),
       "params.bias.num_buckets", "t5, not alibi"},
      {with(base(R"(["bias"])"), "/params/bias", {{"scheme", "rope"}, {"heads", 8}}), "params.bias.scheme", "one of"},
      {with(base(R"(["bias"])"), "/params/bias", {{"scheme", "t5"}, {"heads", 8}, {"max_distance", 8}}),
       "params.bias.max_distance", "exceed"},
      {with(base(R"(["forward"])"), "/params/forward/causal", "yes"), "params.forward.causal", "true or false"},
      {with(base(R"(["forward"])"), "/params/forward/positional", "rotary"), "params.forward.positional", "one of"},
      {with(base(), "/compute/angles", "fp8"), "compute.angles", "one of"},
      {with(base(), "/batch", "yes"), "batch", "true or false"},
      {with(base(), "/dtype", "double"), "dtype", "one of"},
      {with(base(), "/ops", {"rotate", "logits"}), "ops", "not an op of the protocol"},
      {with(base(), "/ops", {"forward", "decode"}), "ops", "needs both"},
      // params for an op the subject does not declare.
      {with(base(R"(["encode"])"), "/params/rotate/base", 10000), "params.rotate", "not the op rotate"},
      {with(base(R"(["attention"])"), "/params/forward/causal", true), "params.forward", "not the op forward"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.hello.dump()) {
      const auto [field, message] = refused(c.hello);
      BOOST_TEST(field == c.field);
      BOOST_TEST(contains(message, c.field), message);
      BOOST_TEST(contains(message, c.says), message);
    }
  }
  // What v2 allows is accepted: i/(h-1), params.forward for a decoding-only module, decode with reset.
  BOOST_TEST(refused(with(base(R"(["encode"])"), "/params/encode/schedule", "i/(h-1)")).first == "(accepted)");
  BOOST_TEST(refused(with(base(R"(["decode","reset"])"), "/params/forward/causal", true)).first == "(accepted)");
  BOOST_TEST(refused(with(base(), "/params/rotate/scaling", {{"type", "none"}})).first == "(accepted)");
}

BOOST_AUTO_TEST_CASE(serve_s_hello_reads_back_as_the_same_declarations) {
  SubjectInfo info;
  info.name = "declared";
  info.ops = static_cast<unsigned>(Op::encode) | static_cast<unsigned>(Op::rotate) | static_cast<unsigned>(Op::bias) |
             static_cast<unsigned>(Op::forward) | static_cast<unsigned>(Op::decode) |
             static_cast<unsigned>(Op::logits);  // in-process only: not on the wire
  info.dtype = Dtype::bfloat16;
  info.compute.angles = Dtype::float32;
  info.layout = Layout::halves;
  info.encode.base = 10000;
  info.encode.schedule = Schedule::i_over_h_minus_1;
  info.encode.position_offset = 2;
  info.rotate.base = 500000;
  info.rotate.rotary_dim = 64;
  info.rotate.scaling = {ScalingType::llama3, 8, 8192, 32, 1, 1, 4};
  info.bias = BiasConvention{BiasScheme::alibi, 12, 32, 128, true};
  info.forward = ForwardConvention{true, Positional::relative, 64};
  info.declared = {"params.encode.base", "params.encode.schedule", "params.encode.position_offset",
                   "params.rotate.base"};
  const json written = hello_result(info, 2, true, true);
  const Hello read = read_hello(written);
  BOOST_TEST(read.info.name == info.name);
  BOOST_TEST(read.info.ops == (info.ops & ~static_cast<unsigned>(Op::logits)));
  BOOST_TEST(written["ops"] == json::parse(R"(["encode","rotate","bias","forward","decode","reset"])"));
  BOOST_TEST((read.info.dtype == info.dtype));
  BOOST_TEST((*read.info.compute.angles == Dtype::float32));
  BOOST_TEST(!read.info.compute.accumulate.has_value());
  BOOST_TEST((read.info.layout == Layout::halves));
  BOOST_TEST((read.info.encode.schedule == Schedule::i_over_h_minus_1));
  BOOST_TEST(read.info.encode.position_offset == 2);
  BOOST_TEST(read.info.rotate.base == 500000);
  BOOST_TEST(*read.info.rotate.rotary_dim == 64);
  BOOST_TEST((read.info.rotate.scaling.type == ScalingType::llama3));
  BOOST_TEST(read.info.rotate.scaling.high_freq_factor == 4);
  BOOST_TEST(read.info.bias->heads == 12);
  BOOST_TEST(!written["params"]["bias"].contains("num_buckets"), "t5's fields only for t5");
  BOOST_TEST(read.info.forward->width == 64);
  BOOST_TEST(read.info.batch);
  BOOST_TEST(read.info.b64le);
  // Every declared path survives; set optionals (bias, forward, scaling, rotary_dim) are declared too.
  for (const auto& path : info.declared) {
    BOOST_TEST(std::count(read.info.declared.begin(), read.info.declared.end(), path) == 1, path);
  }
  BOOST_TEST(hello_result(read.info, 2, true, true) == written, "writing what was read gives the same hello");
  // A version-1 harness gets a version-1 hello.
  const json v1 = hello_result(info, 1, true, true);
  BOOST_TEST(v1 == json::parse(R"({"protocol":1,"name":"declared","dtype":"bfloat16","layout":"halves",
                                    "ops":["encode","rotate","bias","forward","decode","reset"]})"));
}

BOOST_AUTO_TEST_CASE(each_op_s_params_are_written_back_as_read_shapes_included) {
  // Each op's codec reads and writes its params.<op> (src/protocol/, ParamsCodec);
  // declarations.cpp asks every op that has them, shapes and attention fields alike.
  json hello = base(R"(["encode","attention","rotate","bias","forward","decode","reset"])");
  hello["params"] = json::parse(R"({
    "encode": {"base": 10000, "layout": "halves", "shapes": {"d": [64, 128]}},
    "attention": {"heads": 8, "kv_heads": 2, "window": 4096, "shapes": {"d": 128, "n": {"min": 1, "max": 4096}}},
    "rotate": {"base": 500000, "shapes": {"d": {"min": 2}}},
    "bias": {"scheme": "alibi", "heads": 8, "alignment": "bottom_right", "shapes": {"m": {"min": 1, "max": 1024}}},
    "forward": {"causal": true, "positional": "relative", "width": 64, "heads": 4, "softcap": 50,
                "shapes": {"batch": [1, 2]}},
    "decode": {"shapes": {"n": 256}}})");
  const Hello read = read_hello(hello);
  const json written = params_json(read.info);
  BOOST_TEST(written == hello["params"], json::diff(hello["params"], written).dump());
  BOOST_TEST(read.info.attention.window.value_or(0) == 4096);
  BOOST_TEST(*read.info.forward->attention.softcap == 50);
  BOOST_TEST(read.info.shapes.ops.size() == 6u);

  // params.forward serves a subject that only decodes; params.decode needs decode.
  json decoding = base(R"(["decode","reset"])");
  decoding["params"] = json::parse(R"({"forward": {"causal": true, "positional": "none", "shapes": {"n": 64}}})");
  const json decoding_written = params_json(read_hello(decoding).info);
  BOOST_TEST(decoding_written == decoding["params"], decoding_written.dump());
  const auto [field, message] = refused(with(base(R"(["forward"])"), "/params/decode/shapes/n", 8));
  BOOST_TEST(field == "params.decode");
  BOOST_TEST(contains(message, "not the op decode"), message);
  // Which params pecheck knows, named when one is not.
  const auto unknown = refused(with(base(), "/params/combine", json::object()));
  BOOST_TEST(unknown.first == "params.combine");
  BOOST_TEST(contains(unknown.second, "encode, attention, rotate, bias, forward, decode"), unknown.second);
}

BOOST_AUTO_TEST_CASE(make_subject_surfaces_a_bad_declaration_as_a_usage_error_and_stops_the_subject) {
  const json hello = with(base(), "/params/rotate/rope_theta", 500000);
  try {
    make_subject("cmd:" + says(hello));
    BOOST_FAIL("expected a BadDeclaration");
  } catch (const BadDeclaration& d) {
    BOOST_TEST(d.field == "params.rotate.rope_theta");
    BOOST_TEST(contains(d.what(), "the subject cmd:/usr/bin/python3"), d.what());
    BOOST_TEST(contains(d.what(), "declares what pecheck cannot accept: params.rotate.rope_theta: a field pecheck does "
                                  "not know"), d.what());
    // A BadSubjectSpec: the CLI's usage errors (exit 2).
    const BadSubjectSpec& usage = d;
    BOOST_TEST(contains(usage.what(), "rope_theta"));
  }
  BOOST_TEST(no_children(), "the subject was stopped and reaped");
}

BOOST_AUTO_TEST_CASE(the_cli_exits_2_naming_the_field) {
  const json hello = with(base(), "/params/rotate/rope_theta", 500000);
  const std::string dir = testing::temp_dir("pecheck-declaration");
  const auto r = testing::run_cli({"run", "--subject", "cmd:" + says(hello), "--properties", "rope.*", "--report-dir",
                                   dir});
  BOOST_TEST(r.exit_code == 2, r.output);
  BOOST_TEST(contains(r.output, "params.rotate.rope_theta"), r.output);
}

BOOST_AUTO_TEST_SUITE_END()  // test_protocol_v2_hello
