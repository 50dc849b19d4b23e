// Issue 35: identify fits the length-dependent scalings (dynamic NTK,
// LongRoPE) on a decoupled (DeepSeek MLA) head as on a plain rotary: the rope
// slice's frequencies are read at two lengths, and LongRoPE's switch is found
// by asking heads of the declared width (nope + rope) and reading their last
// qk_rope_head_dim features.
#include <boost/test/unit_test.hpp>

#include "pecheck/property/identify.h"
#include "pecheck/reference/rotary.h"
#include "pecheck/subjects/typed_subject.h"

BOOST_AUTO_TEST_SUITE(test_identify_mla_scalings)

using namespace pecheck;

namespace {

// A decoupled head of 16 + 32 features computing `convention` (the float64
// reference); it declares only the head's split, as an MLA subject would.
class ScaledMla final : public TypedSubject {
 public:
  explicit ScaledMla(RopeScaling scaling) {
    convention_.qk_rope_head_dim = 32;
    convention_.qk_nope_head_dim = 16;
    convention_.layout = Layout::interleaved;
    convention_.scaling = std::move(scaling);
    info_.name = "scaled-mla";
    info_.dtype = Dtype::float64;
    info_.ops = static_cast<unsigned>(Op::rotate);
    info_.rotate.qk_rope_head_dim = 32;
    info_.rotate.qk_nope_head_dim = 16;
  }
  const SubjectInfo& info() const override { return info_; }
  Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override {
    return reference::rotary_decoupled(positions, x, convention_, seq_len);
  }

 private:
  RotateConvention convention_;
  SubjectInfo info_;
};

json identified(RopeScaling scaling) {
  ScaledMla subject(std::move(scaling));
  const auto found = identify::identify(subject, ErrorModel{}, 10000);
  BOOST_REQUIRE(found.size() == 1u);
  BOOST_TEST(found[0].fits, found[0].convention << "; " << found[0].details);
  return found[0].params;
}

}  // namespace

BOOST_AUTO_TEST_CASE(dynamic_ntk_on_a_decoupled_head_is_read) {
  RopeScaling dynamic;
  dynamic.type = ScalingType::dynamic_ntk;
  dynamic.factor = 4;
  dynamic.original_max_position = 2048;
  const json params = identified(dynamic);
  BOOST_TEST(params["qk_rope_head_dim"] == 32, params.dump());
  BOOST_TEST(params["scaling"]["type"] == "dynamic_ntk", params.dump());
  BOOST_TEST(params["scaling"]["factor"] == 4.0, params.dump());
}

BOOST_AUTO_TEST_CASE(longrope_on_a_decoupled_head_is_read_with_its_switch) {
  RopeScaling longrope;
  longrope.type = ScalingType::longrope;
  longrope.original_max_position = 4096;
  for (int i = 0; i < 16; ++i) {
    longrope.short_factor.push_back(1.0 + 0.05 * i);
    longrope.long_factor.push_back(2.0 + 0.5 * i);
  }
  const json params = identified(longrope);
  BOOST_TEST(params["qk_nope_head_dim"] == 16, params.dump());
  BOOST_TEST(params["scaling"]["type"] == "longrope", params.dump());
  BOOST_TEST(params["scaling"]["original_max_position"] == 4096, params.dump());
  BOOST_TEST(params["scaling"]["long_factor"].size() == 16u, params.dump());
}

BOOST_AUTO_TEST_SUITE_END()  // test_identify_mla_scalings
