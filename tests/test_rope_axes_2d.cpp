// Issue 35 — rope.axes_2d (Pixtral's and Qwen2-VL's vision 2-D rotary): the
// hello's rope_2d, the reference's frequency split, the built-in that
// passes, and the planted bugs that fail each sub-check with a diagnosis.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>

#include "pecheck/config/config_file.h"
#include "pecheck/property/registry.h"
#include "pecheck/reference/rotary.h"
#include "pecheck/subjects/declare.h"
#include "pecheck/subjects/factory.h"
#include "protocol/hello.h"
#include "support/hello_refusal.h"
#include "support/planted.h"

BOOST_AUTO_TEST_SUITE(test_rope_axes_2d)

using namespace pecheck;
using pecheck::testing::hello_refusal;
using pecheck::testing::run_property;

namespace {

json hello(json rotate) {
  return json{{"protocol", 2}, {"name", "pixtral"}, {"ops", json::array({"rotate"})}, {"dtype", "float32"},
              {"params", {{"rotate", std::move(rotate)}}}};
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_hello_declares_the_axes_and_the_frequencies) {
  const auto info = process::read_hello(hello({{"base", 10000}, {"layout", "halves"},
                                               {"rope_2d", {{"axes", {"h", "w"}}, {"frequencies", "even_odd"}}}}))
                        .info;
  BOOST_REQUIRE(info.rotate.rope_2d.has_value());
  BOOST_TEST(info.rotate.position_axes() == 2);
  BOOST_TEST(find_property("rope.axes_2d")->info.applies_to(info));
  for (const char* other : {"rope.reference_values", "rope.relative_dot", "rope.axis_independence"}) {
    const auto* p = find_property(other);
    if (p != nullptr) BOOST_TEST(!p->info.applies_to(info), other);
  }
  BOOST_TEST(hello_refusal(hello({{"rope_2d", {{"axes", {"h", "t"}}, {"frequencies", "halves"}}}})).find("axes") !=
             std::string::npos);
  BOOST_TEST(hello_refusal(hello({{"rope_2d", {{"axes", {"h", "w"}}}}})).find("frequencies is missing") != std::string::npos);
  BOOST_TEST(hello_refusal(hello({{"rope_2d", {{"axes", {"h", "w"}}, {"frequencies", "halves"}}},
                            {"mrope_section", {1, 1, 2}}}))
                 .find("do not stand beside") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(pecheck_toml_declares_it_as_a_hello_does) {
  std::vector<std::string> ids;
  for (const auto& p : all_properties()) ids.push_back(p.info.id);
  const auto c = parse_config(R"(
[subject."plugin:./libvision.so"]
params.rotate = { base = 10000, layout = "halves", rope_2d = { axes = ["w", "h"], frequencies = "halves" } }
)", "pecheck.toml", ids);
  SubjectInfo info = make_subject("builtin:rope")->info();
  apply_declarations(c.subject_declarations.at("plugin:./libvision.so").declared, info);
  BOOST_REQUIRE(info.rotate.rope_2d.has_value());
  BOOST_TEST(info.rotate.rope_2d->columns_first);
  BOOST_TEST((info.rotate.rope_2d->frequencies == Frequencies2d::halves));
}

BOOST_AUTO_TEST_CASE(the_reference_turns_rows_at_even_and_columns_at_odd_frequencies) {
  RotateConvention c;
  c.layout = Layout::interleaved;
  c.rope_2d = Rope2d{};
  // d = 8: ω_i = 10⁴^(−i/4); pairs 0, 1 by the row at ω_0, ω_2; pairs 2, 3 by the column at ω_1, ω_3.
  BOOST_TEST(reference::rotary_frequency_index(1, 8, c) == 2);
  BOOST_TEST(reference::rotary_frequency_index(2, 8, c) == 1);
  BOOST_TEST(reference::rotary_frequency_index(3, 8, c) == 3);
  Matrix x = Matrix::Zero(1, 8);
  x(0, 4) = 1;  // pair 2: the column's first, at ω_1 = 0.1
  const Matrix y = reference::rotary_axes({{5}, {3}}, x, c, std::nullopt);
  BOOST_TEST(std::abs(y(0, 4) - std::cos(0.3)) < 1e-12);
  BOOST_TEST(std::abs(y(0, 5) - std::sin(0.3)) < 1e-12);
  c.rope_2d->frequencies = Frequencies2d::halves;
  BOOST_TEST(reference::rotary_frequency_index(2, 8, c) == 0);
  BOOST_CHECK_THROW(reference::rotary_axes({{1}, {1}}, Matrix::Ones(1, 6), c, std::nullopt), Refusal);
}

BOOST_AUTO_TEST_CASE(the_pixtral_builtin_passes) {
  const PropertyResult r = run_property("rope.axes_2d", "builtin:rope@pixtral");
  BOOST_TEST((r.status() == Status::passed), r.message());
}

BOOST_AUTO_TEST_CASE(each_planted_2d_bug_fails_its_sub_check_with_its_cause) {
  struct Expected {
    const char* mutant;
    const char* check;
    const char* cause;
  };
  for (const Expected& e :
       {Expected{"rope-2d-rows-columns-swapped", "rows and columns as declared", "rows and columns swapped"},
        Expected{"rope-2d-halves-frequencies", "rows and columns as declared", "halves frequencies"},
        Expected{"rope-2d-table-wraps", "logit depends only on (Δrow, Δcol)", "table of fixed size"}}) {
    const PropertyResult r = run_property("rope.axes_2d", std::string("mutant:") + e.mutant);
    BOOST_TEST_CONTEXT(e.mutant) {
      BOOST_TEST((r.status() == Status::failed), r.message());
      BOOST_REQUIRE(r.counterexample() != nullptr);
      BOOST_TEST(r.counterexample()->check == e.check);
      BOOST_TEST(r.counterexample()->diagnosis.find(e.cause) != std::string::npos, r.counterexample()->diagnosis);
      // Named by the rotary diagnosis (identify's suspects), re-queried with the row and the column apart.
      BOOST_TEST(r.counterexample()->diagnosis.find("it explains every re-queried answer") != std::string::npos,
                 r.counterexample()->diagnosis);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()  // test_rope_axes_2d
