// The rotary conventions of SUBJECT-PROTOCOL.md "New conventions" through the
// C plugin ABI (adapters/c/pecheck_plugin.h): PECHECK_OP_ROTATE_SHIFT with
// pecheck_rotate_shift (it declares context_shift), PECHECK_OP_ROTATE_AXES
// with pecheck_rotate_axes (rope_2d declared in pecheck.toml), and an MLA
// decoupled head through pecheck_rotate alone. Each correct example plugin
// passes its claim through `pecheck run --subject plugin:...`, each planted
// twin fails it (exit 1) with its cause; a bit without its symbol is a load
// error (exit 3), and a plugin built before the bits loads as before.
#include <boost/test/unit_test.hpp>

#include <fstream>

#include "pecheck/reference/rotary.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/typed_subject.h"
#include "support/cli.h"

// The CLI keeps state in its working directory (.pecheck/): this suite's runs get a fresh one.
BOOST_AUTO_TEST_SUITE(test_plugin_conventions, *boost::unit_test::fixture<pecheck::testing::FreshWorkingDirectory>())

using namespace pecheck;
using pecheck::testing::run_cli;
using pecheck::testing::temp_dir;

namespace {

std::string lib(const std::string& name) {
  return pecheck::testing::ctest_env("PECHECK_PLUGIN_DIR") + "/lib" + name + ".so";
}
std::string plugin(const std::string& name) { return "plugin:" + lib(name); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A pecheck.toml declaring `params` (a TOML inline table's body) for each plugin named.
std::string config(const std::vector<std::string>& names, const std::string& params) {
  const std::string path = temp_dir("pecheck-plugin-conventions") + "/pecheck.toml";
  std::ofstream out(path);
  for (const auto& name : names) out << "[subject.\"" << plugin(name) << "\"]\nparams.rotate = { " << params << " }\n";
  return path;
}

// `pecheck run` of the `properties` globs on one plugin (with `config_file` when given).
testing::CliResult run(const std::string& name, const std::vector<std::string>& properties,
                       const std::string& config_file = {}) {
  std::vector<std::string> args = {"run", "--subject", plugin(name), "--cases", "40", "--no-regressions",
                                   "--report-dir", temp_dir("pecheck-plugin-conventions")};
  for (const auto& p : properties) args.insert(args.end(), {"--properties", p});
  if (!config_file.empty()) args.insert(args.end(), {"--config", config_file});
  return run_cli(args);
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_shift_bit_declares_context_shift_and_a_plugin_built_before_it_loads_unchanged) {
  const auto shift = make_subject("plugin-inproc:" + lib("rope_shift_plugin"));
  BOOST_TEST(shift->info().context_shift);
  // Keys rotated at p, shifted by Δ (negative too), come back as the float64 reference's.
  RotateConvention c;
  c.layout = Layout::interleaved;
  const Positions at = {5, 40, 7};
  const Matrix keys = reference::rotary(at, Matrix::Random(3, 8), c, std::nullopt);
  for (Position delta : {Position{-5}, Position{0}, Position{300}}) {
    const Matrix answer = ask::rotate_shift(*shift, std::nullopt, at, keys, delta);
    BOOST_TEST((answer - reference::rotary_shift(at, delta, keys, c)).cwiseAbs().maxCoeff() < 1e-12, delta);
  }
  // It has no module layers to shift as.
  BOOST_CHECK_THROW(ask::rotate_shift(*shift, 0, at, keys, 1), Refusal);
  const auto old = make_subject("plugin-inproc:" + lib("rope_attention_plugin"));
  BOOST_TEST(!old->info().context_shift);
  try {
    ask::rotate_shift(*old, std::nullopt, at, keys, 1);
    BOOST_FAIL("a plugin without pecheck_rotate_shift shifted");
  } catch (const Refusal& r) {
    BOOST_TEST(contains(r.what(), "exports no pecheck_rotate_shift (PECHECK_OP_ROTATE_SHIFT"), r.what());
  }
  BOOST_CHECK_THROW(ask::rotate_axes(*old, {{1}, {2}}, Matrix::Ones(1, 4), std::nullopt), Refusal);
}

BOOST_AUTO_TEST_CASE(positions_per_axis_cross_the_abi_axis_by_axis) {
  const auto vision = make_subject("plugin-inproc:" + lib("rope_2d_plugin"));
  RotateConvention c;
  c.layout = Layout::interleaved;
  c.rope_2d = Rope2d{};
  const std::vector<Positions> axes = {{3, 0, 17}, {1, 9, 4}};
  const Matrix x = Matrix::Random(3, 8);
  const Matrix answer = ask::rotate_axes(*vision, axes, x, std::nullopt);
  BOOST_TEST((answer - reference::rotary_axes(axes, x, c, std::nullopt)).cwiseAbs().maxCoeff() < 1e-12);
  BOOST_CHECK_THROW(ask::rotate_axes(*vision, {{1}, {2}, {3}}, Matrix::Ones(1, 8), std::nullopt), Refusal);
}

BOOST_AUTO_TEST_CASE(a_bit_without_its_symbol_is_a_load_error) {
  try {
    make_subject("plugin-inproc:" + lib("missing_feature_plugin"));
    BOOST_FAIL("loaded without error");
  } catch (const SubjectFailure& f) {
    BOOST_TEST(contains(f.what(), "declares PECHECK_OP_ROTATE_SHIFT but exports no pecheck_rotate_shift"), f.what());
  }
  const auto r = run("missing_feature_plugin", {"rope.*"});
  BOOST_TEST(r.exit_code == 3, r.output);
  BOOST_TEST(contains(r.output, "exports no pecheck_rotate_shift"), r.output);
}

BOOST_AUTO_TEST_CASE(a_context_shift_plugin_passes_and_its_reversed_twin_fails) {
  // No pecheck.toml: the bit declares context_shift, and the rotary profile judges it.
  const auto right = run("rope_shift_plugin", {"module.context_shift"});
  BOOST_TEST(right.exit_code == 0, right.output);
  BOOST_TEST(contains(right.output, "1 cells: 1 passed"), right.output);
  const auto reversed = run("rope_shift_reversed_plugin", {"module.context_shift"});
  BOOST_TEST(reversed.exit_code == 1, reversed.output);
  BOOST_TEST(contains(reversed.output, "turns its keys by −Δ"), reversed.output);
}

BOOST_AUTO_TEST_CASE(a_2d_plugin_declared_in_pecheck_toml_passes_and_its_swapped_twin_fails) {
  const std::string toml = config({"rope_2d_plugin", "rope_2d_swapped_plugin"},
                                  R"(rope_2d = { axes = ["h", "w"], frequencies = "even_odd" })");
  const auto right = run("rope_2d_plugin", {"rope.axes_2d"}, toml);
  BOOST_TEST(right.exit_code == 0, right.output);
  BOOST_TEST(contains(right.output, "1 cells: 1 passed"), right.output);
  const auto swapped = run("rope_2d_swapped_plugin", {"rope.axes_2d"}, toml);
  BOOST_TEST(swapped.exit_code == 1, swapped.output);
  BOOST_TEST(contains(swapped.output, "rows and columns swapped"), swapped.output);
  // Declared the other way round (["w", "h"]: the first stream is the column), the swapped one is right.
  const std::string columns_first = config({"rope_2d_swapped_plugin"}, R"(rope_2d = { axes = ["w", "h"], frequencies = "even_odd" })");
  const auto read_as_declared = run("rope_2d_swapped_plugin", {"rope.axes_2d"}, columns_first);
  BOOST_TEST(read_as_declared.exit_code == 0, read_as_declared.output);
}

BOOST_AUTO_TEST_CASE(an_mla_plugin_turns_its_last_features_and_shifts_them) {
  const std::string toml =
      config({"mla_rope_shift_plugin", "mla_rope_on_nope_plugin"}, "qk_rope_head_dim = 8, qk_nope_head_dim = 8");
  const auto right = run("mla_rope_shift_plugin", {"rope.decoupled", "module.context_shift"}, toml);
  BOOST_TEST(right.exit_code == 0, right.output);
  BOOST_TEST(contains(right.output, "2 cells: 2 passed"), right.output);
  const auto on_nope = run("mla_rope_on_nope_plugin", {"rope.decoupled"}, toml);
  BOOST_TEST(on_nope.exit_code == 1, on_nope.output);
  BOOST_TEST(contains(on_nope.output, "the nope slice"), on_nope.output);
}

BOOST_AUTO_TEST_CASE(pecheck_toml_declaring_what_the_plugin_does_not_export_is_never_green) {
  // context_shift declared for a plugin without pecheck_rotate_shift: every shift is refused, naming the bit.
  const auto shift = run("rope_attention_plugin", {"module.context_shift"}, config({"rope_attention_plugin"}, "context_shift = true"));
  BOOST_TEST(shift.exit_code != 0, shift.output);
  BOOST_TEST(contains(shift.output, "pecheck_rotate_shift"), shift.output);
  // A declaration pecheck refuses is still a usage error naming its line (the child is
  // started again without it, so the parent reads it).
  const auto bad = run("rope_2d_plugin", {"rope.axes_2d"}, config({"rope_2d_plugin"}, R"(rope_2d = { axes = ["h", "t"] })"));
  BOOST_TEST(bad.exit_code == 2, bad.output);
  BOOST_TEST(contains(bad.output, "pecheck.toml:2"), bad.output);
}

BOOST_AUTO_TEST_SUITE_END()  // test_plugin_conventions
