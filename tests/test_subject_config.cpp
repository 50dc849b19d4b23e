// pecheck.toml's [subject."SPEC"] tables (src/config/subject_config.cpp) and
// the declarations they state, laid over a subject
// (src/subjects/declare.cpp): read with the version-2 hello's rules, a field
// stated there wins over the subject's own, and the claims then judge the
// subject against what the file declares.
#include <boost/test/unit_test.hpp>

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "pecheck/config/config_file.h"
#include "pecheck/property/registry.h"
#include "pecheck/subjects/declare.h"
#include "pecheck/subjects/factory.h"
#include "support/cli.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_subject_config)

using namespace pecheck;
using pecheck::testing::run_property;

namespace {

std::vector<std::string> ids() {
  std::vector<std::string> out;
  for (const auto& p : all_properties()) out.push_back(p.info.id);
  return out;
}

FileConfig parse(const std::string& text) { return parse_config(text, "pecheck.toml", ids()); }

}  // namespace

BOOST_AUTO_TEST_CASE(a_subject_table_states_conventions_and_a_max_position) {
  const auto c = parse(R"(
[subject."cmd:python3 my_rope.py"]
dtype = "bfloat16"
compute = { angles = "float32" }
params.rotate = { base = 500000, layout = "halves" }
max_position = 8192
)");
  BOOST_REQUIRE(c.subject_declarations.count("cmd:python3 my_rope.py") == 1);
  const auto& d = c.subject_declarations.at("cmd:python3 my_rope.py");
  BOOST_TEST(d.max_position.value_or(0) == 8192);
  BOOST_TEST(d.declared["dtype"] == "bfloat16");
  BOOST_TEST(d.declared["compute"]["angles"] == "float32");
  BOOST_TEST(d.declared["params"]["rotate"]["base"] == 500000);
  BOOST_TEST(!d.declared.contains("max_position"));
  BOOST_TEST(d.where == "pecheck.toml:2");
  // The table also selects the subject.
  BOOST_TEST(c.subjects == std::vector<std::string>{"cmd:python3 my_rope.py"});
}

BOOST_AUTO_TEST_CASE(bad_tables_are_config_errors_naming_the_key) {
  auto message = [](const std::string& text) -> std::string {
    try {
      parse(text);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "no error";
  };
  BOOST_TEST(message("[subject.\"builtin:rope\"]\nbase = 3\n").find("subject.\"builtin:rope\".base: unknown key") !=
             std::string::npos);
  BOOST_TEST(message("[subject.\"rope\"]\ndtype = \"float32\"\n").find("has no known kind") != std::string::npos);
  BOOST_TEST(message("[subject.\"builtin:rope\"]\nmax_position = 0\n").find("max_position: expected an integer") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(declarations_are_laid_over_the_subject_with_the_hello_rules) {
  auto rope = with_declarations(make_subject("builtin:rope"),
                                json{{"params", {{"rotate", {{"base", 500000}, {"layout", "halves"}}}}}});
  BOOST_TEST(rope->info().rotate.base == 500000.0);
  BOOST_TEST((rope->info().rotate_layout() == Layout::halves));
  // The same errors as a hello: an unknown field, a bad value.
  BOOST_CHECK_THROW(with_declarations(make_subject("builtin:rope"), json{{"params", {{"rotate", {{"bass", 1}}}}}}),
                    BadDeclaration);
  BOOST_CHECK_THROW(with_declarations(make_subject("builtin:rope"), json{{"dtype", "float8"}}), BadDeclaration);
}

BOOST_AUTO_TEST_CASE(a_file_declares_the_shapes_of_a_subject_that_cannot_say_them_itself) {
  // A C plugin's ABI carries no declarations: its shapes come from the file.
  const auto c = parse(R"(
[subject."plugin:./librope.so"]
params.rotate = { layout = "halves", shapes = { d = [64, 128], n = { max = 4096 } } }
)");
  SubjectInfo info = make_subject("builtin:rope")->info();
  apply_declarations(c.subject_declarations.at("plugin:./librope.so").declared, info);
  BOOST_TEST(info.shapes.describe(Op::rotate) == "d 64, 128, n 1..4096");
  BOOST_TEST((info.rotate_layout() == Layout::halves));
  // Read as a hello's are: a dimension pecheck does not know is refused, naming it.
  BOOST_CHECK_THROW(with_declarations(make_subject("builtin:rope"),
                                      json::parse(R"({"params": {"rotate": {"shapes": {"width": 128}}}})")),
                    BadDeclaration);
}

BOOST_AUTO_TEST_CASE(the_claims_judge_against_what_the_file_declares) {
  // The planted base-1000 rotary declares base 10000 and fails; declared
  // honestly (base 1000, Llama's halves) from outside, it passes. An op's
  // params replace the subject's own whole: the layout must be restated.
  BOOST_TEST(name(run_property("rope.reference_values", "mutant:rope-base-1000").outcome) == "violated");
  auto honest = with_declarations(make_subject("mutant:rope-base-1000"),
                                  json{{"params", {{"rotate", {{"base", 1000}, {"layout", "halves"}}}}}});
  const auto r = run_property("rope.reference_values", *honest);
  BOOST_TEST(name(r.outcome) == "holds", r.message() << (r.counterexample() ? r.counterexample()->diagnosis : ""));
}

// End to end: `pecheck run --config` lays the file's declarations over the
// subject it names, and gates it at its own max_position; a bad declaration
// is a usage error (exit 2) naming the field.
BOOST_AUTO_TEST_CASE(the_run_lays_the_files_declarations_over_its_subject) {
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("pecheck-subject-config-{}", ::getpid());
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& text) {
    std::ofstream((dir / "pecheck.toml").string()) << text;
    return (dir / "pecheck.toml").string();
  };
  auto run = [&](const std::string& config) {
    return pecheck::testing::run_cli({"run", "--config", config, "--subject", "mutant:rope-base-1000", "--properties",
                                      "rope.reference_values", "--cases", "30", "--no-regressions", "--report-dir",
                                      (dir / "reports").string()});
  };
  // Undeclared, the base-1000 rotary fails against the base it claims.
  const auto plain = run(write("cases = 30\n"));
  BOOST_TEST(plain.exit_code == 1, plain.output);
  // Declared honestly from the file, it passes, gated at its own 512 positions.
  const auto honest = run(write("[subject.\"mutant:rope-base-1000\"]\n"
                                "params.rotate = { base = 1000, layout = \"halves\" }\n"
                                "max_position = 512\n"));
  BOOST_TEST(honest.exit_code == 0, honest.output);
  const json report = json::parse(std::ifstream((dir / "reports" / "report.json").string()));
  BOOST_TEST(report["results"][0]["coverage"]["position_gate"] == 512, report["results"][0].dump());
  // A declaration pecheck cannot accept stops the run before any cell.
  const auto bad = run(write("[subject.\"mutant:rope-base-1000\"]\nparams.rotate = { bass = 1 }\n"));
  BOOST_TEST(bad.exit_code == 2, bad.output);
  BOOST_TEST(bad.output.find("bass") != std::string::npos, bad.output);
  std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_SUITE_END()  // test_subject_config
