// The protocol's schema (python/pecheck/protocol.schema.json, issue 38 item 2):
// one file, embedded in the C++ readers at build time and read by the Python
// package. Here: the embedded text is the file (no stale copy); the names the
// readers take from it agree with the op table and the codecs that act on
// them; and the readers obey its bounds, enums and aliases (a value one step
// outside a bound is refused, one at it accepted).
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "pecheck/core/op_table.h"
#include "pecheck/protocol/check_declarations.h"
#include "protocol/codec.h"
#include "protocol/hello.h"
#include "protocol/schema.h"

BOOST_AUTO_TEST_SUITE(test_protocol_schema)

using namespace pecheck;
namespace schema = pecheck::process::schema;

namespace {

std::vector<std::string> strings(const schema::Names& names) { return {names.begin(), names.end()}; }

json verdict(const json& params, std::vector<std::string> ops) {
  const json hello = {{"protocol", 2}, {"name", "s"}, {"ops", ops}, {"dtype", "float32"}, {"params", params}};
  return check_declarations(hello.dump());
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_embedded_schema_is_the_file_in_the_python_package) {
  const char* source = std::getenv("PECHECK_SOURCE_DIR");
  BOOST_REQUIRE_MESSAGE(source != nullptr, "PECHECK_SOURCE_DIR is not set (run through ctest)");
  std::ifstream in(std::string(source) + "/python/pecheck/protocol.schema.json");
  BOOST_REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  BOOST_TEST(text.str() == std::string(schema::text()));
  BOOST_TEST(schema::root().at("$schema") == "https://json-schema.org/draft/2020-12/schema");
}

BOOST_AUTO_TEST_CASE(its_ops_and_params_are_the_op_table_s_and_the_codecs) {
  std::vector<std::string> wire, with_params;
  for (const OpRow& row : op_table()) {
    if (row.on_wire) wire.emplace_back(row.name);
    if (params_codec(row.op)) with_params.emplace_back(row.name);
  }
  wire.emplace_back("reset");  // comes with decode
  with_params.emplace_back("model");
  std::vector<std::string> ops;
  for (const auto& v : schema::def("op").at("enum")) ops.push_back(v.get<std::string>());
  std::sort(ops.begin(), ops.end());
  std::sort(wire.begin(), wire.end());
  BOOST_TEST(ops == wire, boost::test_tools::per_element());
  BOOST_TEST(strings(schema::fields("params")) == with_params, boost::test_tools::per_element());
  for (auto op : schema::annotation("", "x-pecheck-replayable-ops")) BOOST_TEST(parse_op(op).has_value());
}

BOOST_AUTO_TEST_CASE(each_scaling_type_name_means_a_type_pecheck_has) {
  const auto& names = schema::def("scaling").at("x-pecheck-type-names");
  for (auto it = names.begin(); it != names.end(); ++it) {
    BOOST_TEST_CONTEXT(it.key()) {
      const auto type = parse_scaling_type(it.value().get<std::string>());
      BOOST_REQUIRE(type.has_value());
      BOOST_TEST(schema::def("scaling").at("x-pecheck-types").contains(std::string(name(*type))));
    }
  }
}

BOOST_AUTO_TEST_CASE(the_readers_obey_the_schema_s_bounds) {
  // An integer at its bound and one past it, for each integer field of params.bias (read by bias_codec.cpp).
  const auto [min, max] = schema::integer_bounds("params.bias", "num_buckets");
  // Unidirectional: the fewest buckets (2) still leave one exact bucket below max_distance.
  const json t5 = {{"scheme", "t5"}, {"heads", 2}, {"max_distance", 1 << 30}, {"bidirectional", false}};
  json ok = t5, below = t5, above = t5;
  ok["num_buckets"] = min;
  below["num_buckets"] = min - 1;
  above["num_buckets"] = max + 1;
  BOOST_TEST(verdict({{"bias", ok}}, {"bias"})["ok"] == true);
  BOOST_TEST(verdict({{"bias", below}}, {"bias"})["field"] == "params.bias.num_buckets");
  BOOST_TEST(verdict({{"bias", above}}, {"bias"})["field"] == "params.bias.num_buckets");
  // A number's strict minimum and maximum, worded as the schema words them.
  const schema::Bounds fraction = schema::number_bounds("rotate_convention", "rotary_fraction");
  BOOST_TEST(fraction.strict);
  const json at_min = verdict({{"rotate", {{"rotary_fraction", fraction.min}}}}, {"rotate"});
  BOOST_TEST(at_min["ok"] == false);
  BOOST_TEST(at_min["message"].get<std::string>().find(fraction.range) != std::string::npos);
  BOOST_TEST(verdict({{"rotate", {{"rotary_fraction", *fraction.max}}}}, {"rotate"})["ok"] == true);
  BOOST_TEST(verdict({{"rotate", {{"rotary_fraction", *fraction.max * 1.5}}}}, {"rotate"})["ok"] == false);
}

BOOST_AUTO_TEST_CASE(an_enum_and_an_alias_come_from_the_schema) {
  for (auto grouping : schema::choices("attention_conventions", "grouping")) {
    BOOST_TEST(verdict({{"attention", {{"heads", 4}, {"grouping", grouping}}}}, {"attention"})["ok"] == true);
  }
  BOOST_TEST(verdict({{"attention", {{"heads", 4}, {"grouping", "nosuch"}}}}, {"attention"})["field"] ==
             "params.attention.grouping");
  for (const auto& [alias, canonical] : schema::aliases("attention_conventions")) {
    BOOST_TEST_CONTEXT(alias) {
      // The alias is read as its field: a value the field refuses is refused under the alias's name.
      const json refused = verdict({{"attention", {{std::string(alias), "x"}}}}, {"attention"});
      BOOST_TEST(refused["ok"] == false);
      BOOST_TEST(refused["message"].get<std::string>().find(std::string(canonical)) != std::string::npos);
    }
  }
}

// Config names read as what they mean (issue 40 item 4): Gemma's query_pre_attn_scalar s is the scale
// s^(-1/2); head_dim is the declared width shapes.d, of params.attention and params.rotate.
BOOST_AUTO_TEST_CASE(config_names_are_read_as_the_fields_they_name) {
  const json hello = {{"protocol", 2}, {"name", "s"}, {"ops", {"attention", "rotate"}}, {"dtype", "float32"},
                      {"params", {{"attention", {{"heads", 4}, {"query_pre_attn_scalar", 256}, {"head_dim", 64}}},
                                  {"rotate", {{"head_dim", 128}}}}}};
  const SubjectInfo info = process::read_hello(hello).info;
  BOOST_TEST(info.attention.scale.value_or(0) == 0.0625);
  const Extent* d = info.shapes.find(Op::attention, ShapeDim::d);
  BOOST_REQUIRE(d != nullptr);
  BOOST_TEST(d->values == std::vector<std::int64_t>{64}, boost::test_tools::per_element());
  const Extent* rd = info.shapes.find(Op::rotate, ShapeDim::d);
  BOOST_REQUIRE(rd != nullptr);
  BOOST_TEST(rd->values == std::vector<std::int64_t>{128}, boost::test_tools::per_element());
  // Said twice, differently: refused naming both.
  const json both = verdict({{"attention", {{"query_pre_attn_scalar", 256}, {"scale", 0.1}}}}, {"attention"});
  BOOST_TEST(both["message"].get<std::string>().find("params.attention.scale (0.1) and params.attention.query_pre_attn_scalar (256)") !=
             std::string::npos);
  // An unknown field's refusal lists the config names and suggests them.
  const json typo = verdict({{"attention", {{"num_attention_head", 8}}}}, {"attention"});
  BOOST_TEST(typo["message"].get<std::string>().find("config names: num_attention_heads") != std::string::npos);
  BOOST_TEST(typo["message"].get<std::string>().find("did you mean num_attention_heads?") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_hello_that_is_not_json_or_breaks_the_framing_is_a_protocol_verdict) {
  BOOST_TEST(check_declarations("{\"protocol\": 2,")["kind"] == "protocol");
  BOOST_TEST(check_declarations(R"({"protocol": 2, "name": "s", "ops": [], "dtype": "float32"})")["kind"] ==
             "protocol");
  BOOST_TEST(check_declarations(R"({"protocol": 2, "name": "s", "ops": ["rotate"], "dtype": "float32"})")["ok"] ==
             true);
}

BOOST_AUTO_TEST_SUITE_END()
