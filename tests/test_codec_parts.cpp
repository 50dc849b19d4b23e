// A codec is checked by the compiler (issue 38, item 4): each part a codec
// must have is a Part (src/protocol/codec.h), which cannot be made by default
// nor from nullptr, so a codec that leaves one out does not compile; and each
// alternative of Call must be a CallWithCodec (src/protocol/calls.cpp). The
// static_asserts below ask the compiler, through requires-expressions, whether
// a codec missing a part would compile: it would not, for each of the nine
// parts, while one with every part does.
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <type_traits>
#include <variant>

#include "pecheck/protocol/calls.h"
#include "protocol/codec.h"

BOOST_AUTO_TEST_SUITE(test_codec_parts)

using namespace pecheck;

namespace {

// Left out: every part but one, named.
template <class C> concept without_put = requires(const Codec<C>& k) {
  Codec<C>{.size_hint = k.size_hint, .expected = k.expected, .check = k.check, .read = k.read,
           .to_json = k.to_json, .from_json = k.from_json, .describe = k.describe, .reach = k.reach};
};
template <class C> concept without_size_hint = requires(const Codec<C>& k) {
  Codec<C>{.put = k.put, .expected = k.expected, .check = k.check, .read = k.read,
           .to_json = k.to_json, .from_json = k.from_json, .describe = k.describe, .reach = k.reach};
};
template <class C> concept without_expected = requires(const Codec<C>& k) {
  Codec<C>{.put = k.put, .size_hint = k.size_hint, .check = k.check, .read = k.read,
           .to_json = k.to_json, .from_json = k.from_json, .describe = k.describe, .reach = k.reach};
};
template <class C> concept without_check = requires(const Codec<C>& k) {
  Codec<C>{.put = k.put, .size_hint = k.size_hint, .expected = k.expected, .read = k.read,
           .to_json = k.to_json, .from_json = k.from_json, .describe = k.describe, .reach = k.reach};
};
template <class C> concept without_read = requires(const Codec<C>& k) {
  Codec<C>{.put = k.put, .size_hint = k.size_hint, .expected = k.expected, .check = k.check,
           .to_json = k.to_json, .from_json = k.from_json, .describe = k.describe, .reach = k.reach};
};
template <class C> concept without_to_json = requires(const Codec<C>& k) {
  Codec<C>{.put = k.put, .size_hint = k.size_hint, .expected = k.expected, .check = k.check, .read = k.read,
           .from_json = k.from_json, .describe = k.describe, .reach = k.reach};
};
template <class C> concept without_from_json = requires(const Codec<C>& k) {
  Codec<C>{.put = k.put, .size_hint = k.size_hint, .expected = k.expected, .check = k.check, .read = k.read,
           .to_json = k.to_json, .describe = k.describe, .reach = k.reach};
};
template <class C> concept without_describe = requires(const Codec<C>& k) {
  Codec<C>{.put = k.put, .size_hint = k.size_hint, .expected = k.expected, .check = k.check, .read = k.read,
           .to_json = k.to_json, .from_json = k.from_json, .reach = k.reach};
};
template <class C> concept without_reach = requires(const Codec<C>& k) {
  Codec<C>{.put = k.put, .size_hint = k.size_hint, .expected = k.expected, .check = k.check, .read = k.read,
           .to_json = k.to_json, .from_json = k.from_json, .describe = k.describe};
};
// Every part, but describe given as nullptr.
template <class C> concept with_null_describe = requires(const Codec<C>& k) {
  Codec<C>{.put = k.put, .size_hint = k.size_hint, .expected = k.expected, .check = k.check, .read = k.read,
           .to_json = k.to_json, .from_json = k.from_json, .describe = nullptr, .reach = k.reach};
};
// Every part, and the two a codec may leave out left out.
template <class C> concept with_every_part = requires(const Codec<C>& k) {
  Codec<C>{.put = k.put, .size_hint = k.size_hint, .expected = k.expected, .check = k.check, .read = k.read,
           .to_json = k.to_json, .from_json = k.from_json, .describe = k.describe, .reach = k.reach};
};

template <class C>
constexpr bool only_complete_codecs_build() {
  static_assert(with_every_part<C>, "a codec with its nine parts builds");
  static_assert(!without_put<C> && !without_size_hint<C> && !without_expected<C> && !without_check<C> &&
                    !without_read<C> && !without_to_json<C> && !without_from_json<C> && !without_describe<C> &&
                    !without_reach<C>,
                "a codec missing a part does not build");
  static_assert(!with_null_describe<C>, "a part given as nullptr does not build");
  static_assert(CallWithCodec<C>);
  return true;
}
template <class... Cs>
constexpr bool for_every_call(std::type_identity<std::variant<Cs...>>) {
  return (only_complete_codecs_build<Cs>() && ...);
}
static_assert(for_every_call(std::type_identity<Call>{}));

// A type with a codec of another call's type is not a CallWithCodec.
struct Impostor {
  static constexpr std::string_view kName = "impostor";
  static constexpr Op kOp = Op::encode;
  static const Codec<EncodeCall>& codec() { return EncodeCall::codec(); }
};
static_assert(!CallWithCodec<Impostor>);
static_assert(!CallWithCodec<int>);

template <class C>
bool parts_set(const Codec<C>& k) {
  return k.put.fn && k.size_hint.fn && k.expected.fn && k.check.fn && k.read.fn && k.to_json.fn && k.from_json.fn &&
         k.describe.fn && k.reach.fn;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_codec_in_the_tree_has_its_parts_and_they_answer) {
  // The compiler has checked the kinds; here the codecs the tree builds, at run time: every part set,
  // and a call's codec answering through its parts (a rotate call in words and back from its report form).
  std::size_t codecs = 0;
  auto one = [&]<class C>(std::type_identity<C>) {
    BOOST_TEST(parts_set(C::codec()), C::kName);
    ++codecs;
  };
  [&]<class... Cs>(std::type_identity<std::variant<Cs...>>) {
    (one(std::type_identity<Cs>{}), ...);
  }(std::type_identity<Call>{});
  BOOST_TEST(codecs == std::variant_size_v<Call>);
  RotateCall rotate;
  rotate.positions = {0, 1, 2};
  rotate.x = Matrix::Ones(3, 4);
  const json form = RotateCall::codec().to_json(rotate);
  const Call back = RotateCall::codec().from_json(form);
  BOOST_REQUIRE(std::holds_alternative<RotateCall>(back));
  BOOST_TEST(std::get<RotateCall>(back).positions == rotate.positions);
  BOOST_TEST(!RotateCall::codec().describe(rotate).empty());
}

BOOST_AUTO_TEST_SUITE_END()
