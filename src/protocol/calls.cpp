#include "pecheck/protocol/calls.h"

#include <fmt/format.h>

#include <type_traits>
#include <utility>

#include "protocol/codec.h"

namespace pecheck {

Batch columns_to_heads(const Matrix& packed, int heads) {
  Batch out;
  if (heads < 1 || packed.cols() % heads != 0) return out;
  const Eigen::Index width = packed.cols() / heads;
  out.reserve(static_cast<std::size_t>(heads));
  for (int h = 0; h < heads; ++h) out.push_back(packed.middleCols(h * width, width));
  return out;
}

Matrix heads_to_columns(const Batch& heads) {
  if (heads.empty()) return {};
  const Eigen::Index rows = heads.front().rows(), width = heads.front().cols();
  Matrix out(rows, width * static_cast<Eigen::Index>(heads.size()));
  for (std::size_t h = 0; h < heads.size(); ++h) out.middleCols(static_cast<Eigen::Index>(h) * width, width) = heads[h];
  return out;
}

std::string_view op_name(const Call& call) {
  return std::visit([](const auto& c) { return std::decay_t<decltype(c)>::kName; }, call);
}

Op op_of(const Call& call) {
  return std::visit([](const auto& c) { return std::decay_t<decltype(c)>::kOp; }, call);
}

// What follows asks each call's codec (src/protocol/): nothing here names a call.

namespace {
// Every alternative of Call is a CallWithCodec (codec.h), each checked on its
// own so that the compiler names the call without one.
template <class C>
constexpr bool has_its_codec() {
  static_assert(CallWithCodec<C>, "a call needs kName, kOp and a codec() of its own type (src/protocol/codec.h)");
  return true;
}
template <class... Cs>
constexpr bool every_call_has_its_codec(std::type_identity<std::variant<Cs...>>) {
  return (has_its_codec<Cs>() && ...);
}
static_assert(every_call_has_its_codec(std::type_identity<Call>{}));
}  // namespace

CallReach reach_of(const Call& call, std::int64_t decoded) {
  return std::visit([&](const auto& c) { return c.codec().reach(c, decoded); }, call);
}

json call_to_json(const Call& call) {
  return std::visit([](const auto& c) { return c.codec().to_json(c); }, call);
}

std::string describe_call(const Call& call) {
  return std::visit([](const auto& c) { return c.codec().describe(c); }, call);
}

namespace {
template <std::size_t... I>
std::optional<Readers> readers_named(std::string_view op, std::index_sequence<I...>) {
  std::optional<Readers> found;
  // The first alternative of Call whose op on the wire is `op`.
  (void)((std::variant_alternative_t<I, Call>::kName == op
              ? (found = Readers{std::variant_alternative_t<I, Call>::codec().read,
                                 std::variant_alternative_t<I, Call>::codec().from_json},
                 true)
              : false) ||
         ...);
  return found;
}

template <std::size_t... I>
const ParamsCodec* params_codec(Op op, std::index_sequence<I...>) {
  const ParamsCodec* found = nullptr;
  (void)((std::variant_alternative_t<I, Call>::kOp == op &&
                  std::variant_alternative_t<I, Call>::codec().params.read != nullptr
              ? (found = &std::variant_alternative_t<I, Call>::codec().params, true)
              : false) ||
         ...);
  return found;
}
}  // namespace

std::optional<Readers> readers_named(std::string_view op) {
  return readers_named(op, std::make_index_sequence<std::variant_size_v<Call>>{});
}

const ParamsCodec* params_codec(Op op) {
  return params_codec(op, std::make_index_sequence<std::variant_size_v<Call>>{});
}

Call call_from_json(const json& request) {
  if (!request.is_object() || !request.contains("op") || !request["op"].is_string()) {
    throw std::invalid_argument("a request is an object with an \"op\"");
  }
  const std::string op = request["op"].get<std::string>();
  const auto readers = readers_named(op);
  if (!readers) throw std::invalid_argument(fmt::format("\"{}\" is not an op a history script can hold", op));
  return readers->from_json(request);
}

}  // namespace pecheck
