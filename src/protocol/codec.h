#pragma once
// One call's codec: everything the request boundary does with a call, in one
// file per op (src/protocol/<op>_codec.cpp, defining <Call>::codec()). The
// generic code — the protocol's requests (requests.cpp), the process
// subject's local checks and answer shapes (src/subjects/process/process_subject.cpp),
// serve's reader (serve.cpp), the report's form of a request and its words,
// and what a request reaches (calls.h) — visits a Call and asks its codec;
// none of it names a call.
#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "pecheck/core/json.h"
#include "pecheck/protocol/calls.h"
#include "protocol/responses.h"
#include "protocol/wire.h"

namespace pecheck {

// The shape an answer to a call must have, read from the call: kept for a
// batch in flight instead of its calls (each holds kilobytes of arrays).
struct ExpectedAnswer {
  // heads: a heads × rows × width tensor (multi-head attention) read back as
  // rows × cols; rows: `rows` rows of any width (decode of several tokens).
  // gradients: an object of named arrays (a backward's VJPs), read back as a
  // Batch in `named`'s order.
  enum class Kind { matrix, batch, vector, null, heads, rows, gradients };
  std::string_view op;  // the call's kName
  Kind kind = Kind::matrix;
  Eigen::Index rows = 0, cols = 0;  // matrix, heads: rows × cols; batch: sequences × tokens; rows: rows
  int heads = 1;                    // heads: the tensor's first axis
  // gradients: each array's key and shape (rows × cols; heads > 1: a heads ×
  // rows × cols/heads tensor read back as rows × cols).
  struct Named {
    std::string_view name;
    Eigen::Index rows = 0, cols = 0;
    int heads = 1;
    bool tensor = false;  // a heads × rows × cols/heads tensor even where heads is 1 (a forward's dx)
  };
  std::vector<Named> named;
};

// How a request goes out to one subject.
struct WireOptions {
  process::Arrays arrays = process::Arrays::json;
  // The subject declared params.attention.heads: attention's q, k and v go
  // out as heads × rows × width tensors (calls.h columns_to_heads).
  bool head_tensors = false;
};

// A request serve cannot read: refused, never a crash (the harness never sends one).
struct Malformed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What a hello declares for an op under params.<op> (SUBJECT-PROTOCOL.md,
// "Declared conventions" and "Declared shapes"), kept by the op's first call:
// read into SubjectInfo (BadDeclaration naming the field; each field read is
// recorded in info.declared) and written back as a hello writes it (an empty
// object or null when there is nothing to write). process/declarations.cpp
// reads and writes params.<op> for each op that has them, in op-table order.
struct ParamsCodec {
  void (*read)(const json& object, SubjectInfo& info) = nullptr;
  json (*write)(const SubjectInfo& info) = nullptr;
};

// A part every codec must have: made only from a function, never by default
// nor from nullptr, so a codec that leaves one out (or gives nullptr) does not
// compile ("use of deleted function Part<...>::Part()"; tests/test_codec_parts.cpp).
// Called as the function it holds.
template <class F>
struct Part {
  F* fn;
  constexpr Part(F* f) : fn(f) {}  // implicit: `.put = &rotate_codec::put`
  Part() = delete;
  Part(std::nullptr_t) = delete;
  template <class... A>
  decltype(auto) operator()(A&&... args) const {
    return fn(std::forward<A>(args)...);
  }
  constexpr operator F*() const { return fn; }
};

template <class C>
struct Codec {
  // The protocol. The request's fields after {"id":N, ("op":"…",…); an
  // in-process op (no protocol op) throws std::logic_error.
  Part<void(process::Buffer& out, const C& call, const WireOptions& wire)> put;
  // About how many characters put writes (a batch line is reserved once).
  Part<std::size_t(const C& call, process::Arrays arrays)> size_hint;
  Part<ExpectedAnswer(const C& call, bool head_tensors)> expected;
  // Refuses (Refusal) a call `subject` cannot answer, or throws
  // std::invalid_argument for a malformed one (the caller's mistake).
  Part<void(const C& call, const SubjectInfo& subject, bool head_tensors)> check;
  // serve: a request (arrays as JSON numbers or b64le) read into its call;
  // throws Malformed or json::exception.
  Part<Call(const json& request)> read;
  // Reports: the request as a history script holds it (the protocol's form,
  // no id, JSON numbers), read back (std::invalid_argument), and in words.
  Part<json(const C& call)> to_json;
  Part<Call(const json& request)> from_json;
  Part<std::string(const C& call)> describe;
  // Coverage: what it reaches; `decoded`: tokens its session held before it.
  Part<CallReach(const C& call, std::int64_t decoded)> reach;
  // The two parts a codec may leave out:
  // The hello's params.<op>, for the op's first call (the others leave it out).
  ParamsCodec params = {};
  // serve: an answer whose wire form is not its value's plain array (a
  // backward's object of named arrays), for the request `r` it answers;
  // null: put as an array.
  void (*put_answer)(process::Buffer& out, const C& call, const Answer& answer, const json& r,
                     process::Arrays arrays) = nullptr;
};

// A call as the request boundary needs it: its name on the wire, the op it
// needs and its codec, of its own type. Every alternative of Call is checked
// against it (src/protocol/calls.cpp), so an op without a codec, or with the
// codec of another call, does not compile.
template <class C>
concept CallWithCodec = requires {
  { C::kName } -> std::convertible_to<std::string_view>;
  { C::kOp } -> std::convertible_to<Op>;
  { C::codec() } -> std::same_as<const Codec<C>&>;
};

// The readers of the first call whose op on the wire is `op` (decode's read
// both of decode's forms); nullopt for an op no call has.
struct Readers {
  Call (*read)(const json& request);
  Call (*from_json)(const json& request);
};
std::optional<Readers> readers_named(std::string_view op);

// params.<op>'s codec: that of the first call of `op` that has one; null
// for an op a hello declares nothing for.
const ParamsCodec* params_codec(Op op);

namespace codec {
// Field readers for the report's form, each throwing std::invalid_argument
// that names the field (src/protocol/codec_fields.cpp).
const json& field(const json& r, const char* key);
int integer(const json& r, const char* key);
Position position(const json& r, const char* key);
Matrix matrix(const json& r, const char* key);
Positions positions(const json& v, const char* key);
std::string session(const json& r);
// "0, 1, 2, 3, 4, 5, …": at most six positions, for descriptions.
std::string brief_list(const Positions& p);
// Refuses (Refusal) a layer the subject does not declare (params.forward.layers).
void check_layer(const SubjectInfo& subject, int layer);
// serve's readers of the protocol's form.
AttentionMask mask_from_wire(const json& mask);
bool head_tensors(const json& q);  // an attention array sent as heads × rows × width
// About how many characters put writes per number of an array.
inline std::size_t chars_per_number(process::Arrays arrays) { return arrays == process::Arrays::b64le ? 11 : 24; }
// A reach's sizes: the axes named, 0 elsewhere.
inline AxisSizes sizes(std::initializer_list<std::pair<Axis, std::int64_t>> given) {
  AxisSizes out{};
  for (const auto& [axis, size] : given) out[static_cast<std::size_t>(axis)] = size;
  return out;
}
inline std::optional<Position> largest(const Positions& positions) {
  if (positions.empty()) return std::nullopt;
  return *std::max_element(positions.begin(), positions.end());
}
}  // namespace codec

}  // namespace pecheck
