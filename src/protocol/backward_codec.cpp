// backward: the vector–Jacobian products of another op (SUBJECT-PROTOCOL.md,
// "Gradients"): {"op":"backward","of":OP, ...OP's request fields..., "grad":G},
// G of the shape of OP's answer; answered as an object of the VJPs w.r.t.
// OP's array inputs (rotate → {"x"}, attention → {"q","k","v"}), each of the
// shape its input had in the request (heads × rows × width tensors for a
// subject that declares attention heads). The hello declares which ops it
// differentiates in params.backward.of.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <type_traits>

#include "protocol/codec.h"
#include "protocol/declarations.h"

namespace pecheck {

Op BackwardCall::of_op() const {
  return std::visit([](const auto& c) { return std::decay_t<decltype(c)>::kOp; }, of);
}

std::vector<std::string_view> backward_inputs(Op of) {
  if (of == Op::rotate) return {"x"};
  if (of == Op::attention) return {"q", "k", "v"};
  if (of == Op::forward) return {"x"};
  return {};
}

namespace backward_codec {

using process::Arrays;
using process::Buffer;

// The ops a backward may be asked of, in the order the hello lists them.
constexpr Op kDifferentiable[] = {Op::rotate, Op::attention, Op::forward};

// The inner request's fields after its own "op":"NAME" (its codec's put
// always starts so), to follow "op":"backward","of":"NAME".
template <class C>
void put_fields_of(Buffer& out, const C& c, const WireOptions& wire) {
  Buffer inner;
  C::codec().put(inner, c, wire);
  const std::string prefix = fmt::format("\"op\":\"{}\"", C::kName);
  const std::string_view text(inner.data(), inner.size());
  if (text.substr(0, prefix.size()) != prefix) throw std::logic_error("an op's request does not start with its op");
  process::put(out, text.substr(prefix.size()));
}

// The kv heads of an attention request (k's width over the head width).
int groups_of(const AttentionCall& a) {
  const int heads = std::max(1, a.heads);
  const Eigen::Index d_head = a.q.cols() / heads;
  return d_head > 0 && a.k.cols() % d_head == 0 ? std::max(1, static_cast<int>(a.k.cols() / d_head)) : 1;
}

// The sequences of a forward request (at least 1: columns_to_heads' count).
int sequences_of(const ForwardCall& f) { return std::max(1, static_cast<int>(f.x.size())); }

void put(Buffer& out, const BackwardCall& c, const WireOptions& wire) {
  std::visit(
      [&](const auto& of) {
        fmt::format_to(std::back_inserter(out), "\"op\":\"backward\",\"of\":\"{}\"", std::decay_t<decltype(of)>::kName);
        put_fields_of(out, of, wire);
      },
      c.of);
  process::put(out, ",\"grad\":");
  const auto* a = std::get_if<AttentionCall>(&c.of);
  if (const auto* f = std::get_if<ForwardCall>(&c.of)) {
    process::put_tensor(out, columns_to_heads(c.grad, sequences_of(*f)), wire.arrays);  // B × N × d_out
  } else if (a && wire.head_tensors) {
    process::put_tensor(out, columns_to_heads(c.grad, std::max(1, a->heads)), wire.arrays);
  } else {
    process::put_matrix(out, c.grad, wire.arrays);
  }
}

std::size_t size_hint(const BackwardCall& c, Arrays arrays) {
  const std::size_t inner = std::visit([&](const auto& of) { return of.codec().size_hint(of, arrays); }, c.of);
  return inner + codec::chars_per_number(arrays) * static_cast<std::size_t>(c.grad.size()) + 64;
}

ExpectedAnswer expected(const BackwardCall& c, bool head_tensors) {
  ExpectedAnswer e{BackwardCall::kName, ExpectedAnswer::Kind::gradients};
  if (const auto* r = std::get_if<RotateCall>(&c.of)) {
    e.named.push_back({"x", r->x.rows(), r->x.cols()});
    return e;
  }
  if (const auto* f = std::get_if<ForwardCall>(&c.of)) {  // dx: B × N × d, read back packed N × B·d
    const Eigen::Index n = f->x.empty() ? 0 : f->x.front().rows(), d = f->x.empty() ? 0 : f->x.front().cols();
    e.named.push_back({"x", n, sequences_of(*f) * d, sequences_of(*f), true});
    return e;
  }
  const auto& a = std::get<AttentionCall>(c.of);
  const int heads = head_tensors ? std::max(1, a.heads) : 1, groups = head_tensors ? groups_of(a) : 1;
  e.named.push_back({"q", a.q.rows(), a.q.cols(), heads});
  e.named.push_back({"k", a.k.rows(), a.k.cols(), groups});
  e.named.push_back({"v", a.v.rows(), a.v.cols(), groups});
  return e;
}

// The subject must declare the op it is asked the gradient of; the inner
// request is checked as that op's own, and grad must have its answer's shape.
void check(const BackwardCall& c, const SubjectInfo& subject, bool head_tensors) {
  const Op of = c.of_op();
  if ((subject.backward_of & static_cast<unsigned>(of)) == 0) {
    throw Refusal(fmt::format("{} does not declare the backward of {} (params.backward.of)", subject.name, name(of)));
  }
  std::visit([&](const auto& inner) { inner.codec().check(inner, subject, head_tensors); }, c.of);
  // The answer grad stands for: rotate's n×d; attention's n × H·d_v (d_v: v's width over the kv heads).
  Eigen::Index rows = 0, cols = 0;
  if (const auto* r = std::get_if<RotateCall>(&c.of)) {
    rows = r->x.rows();
    cols = r->x.cols();
  } else if (const auto* f = std::get_if<ForwardCall>(&c.of)) {
    // B × N × d_out, packed N × B·d_out: d_out is the module's, any width, the same for every sequence.
    rows = f->x.empty() ? 0 : f->x.front().rows();
    cols = c.grad.cols() % sequences_of(*f) == 0 && c.grad.cols() > 0 ? c.grad.cols() : -1;
  } else {
    const auto& a = std::get<AttentionCall>(c.of);
    rows = a.q.rows();
    cols = std::max(1, a.heads) * (a.v.cols() / groups_of(a));
  }
  if (c.grad.rows() != rows || c.grad.cols() != cols) {
    throw std::invalid_argument(fmt::format("backward of {}: grad is {}×{}, the answer it stands for {}×{}", name(of),
                                            c.grad.rows(), c.grad.cols(), rows, cols));
  }
}

Call read(const json& r) {
  const json& of = r.at("of");
  if (!of.is_string()) {
    throw Malformed("\"of\" names the op whose gradient is asked (\"rotate\", \"attention\" or \"forward\")");
  }
  const std::string op = of.get<std::string>();
  BackwardCall c;
  if (op == RotateCall::kName) c.of = std::get<RotateCall>(RotateCall::codec().read(r));
  else if (op == AttentionCall::kName) c.of = std::get<AttentionCall>(AttentionCall::codec().read(r));
  else if (op == ForwardCall::kName) c.of = std::get<ForwardCall>(ForwardCall::codec().read(r));
  else throw Refusal(fmt::format("no backward of '{}': this subject differentiates rotate, attention and forward", op));
  const json& grad = r.at("grad");
  c.grad = codec::head_tensors(grad) ? heads_to_columns(process::tensor_value(grad, Arrays::b64le))
                                     : process::matrix_value(grad, Arrays::b64le);
  return c;
}

// serve writes the VJPs as the object the protocol names, each in the form its
// input came in (a heads × rows × width tensor for a head-tensor request).
void put_answer(Buffer& out, const BackwardCall& c, const Answer& answer, const json& r, Arrays arrays) {
  const auto* values = std::get_if<Batch>(&answer);
  const auto names = backward_inputs(c.of_op());
  if (!values || values->size() != names.size()) {
    throw std::logic_error(fmt::format("a backward of {} answered {} arrays, not {}", name(c.of_op()),
                                       values ? values->size() : 0, names.size()));
  }
  const auto* a = std::get_if<AttentionCall>(&c.of);
  const auto* f = std::get_if<ForwardCall>(&c.of);
  const bool heads = a && r.contains("q") && codec::head_tensors(r.at("q"));
  out.push_back('{');
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) out.push_back(',');
    fmt::format_to(std::back_inserter(out), "\"{}\":", names[i]);
    if (f) process::put_tensor(out, columns_to_heads((*values)[i], sequences_of(*f)), arrays);  // B × N × d
    else if (heads) process::put_tensor(out, columns_to_heads((*values)[i], i == 0 ? std::max(1, a->heads) : groups_of(*a)), arrays);
    else process::put_matrix(out, (*values)[i], arrays);
  }
  out.push_back('}');
}

json to_json(const BackwardCall& c) {
  json j = std::visit([](const auto& of) { return of.codec().to_json(of); }, c.of);
  j["of"] = j["op"];
  j["op"] = BackwardCall::kName;
  j["grad"] = c.grad;
  return j;
}

Call from_json(const json& r) {
  const json& of = codec::field(r, "of");
  BackwardCall c;
  if (of == RotateCall::kName) c.of = std::get<RotateCall>(RotateCall::codec().from_json(r));
  else if (of == AttentionCall::kName) c.of = std::get<AttentionCall>(AttentionCall::codec().from_json(r));
  else if (of == ForwardCall::kName) c.of = std::get<ForwardCall>(ForwardCall::codec().from_json(r));
  else throw std::invalid_argument("\"of\" is \"rotate\", \"attention\" or \"forward\"");
  c.grad = codec::matrix(r, "grad");
  return c;
}

std::string describe(const BackwardCall& c) {
  return "backward of " + std::visit([](const auto& of) { return of.codec().describe(of); }, c.of);
}

CallReach reach(const BackwardCall& c, std::int64_t decoded) {
  CallReach out = std::visit([&](const auto& of) { return of.codec().reach(of, decoded); }, c.of);
  out.op = BackwardCall::kOp;
  return out;
}

// params.backward: {"of": ["rotate", "attention"]}, each an op the subject also declares.
void read_params(const json& object, SubjectInfo& info) {
  if (!object.is_object()) process::bad("params.backward", "params.backward must be an object with \"of\"");
  for (const auto& [key, value] : object.items()) {
    if (key != "of") process::bad("params.backward." + key, "params.backward has one field, \"of\"");
  }
  if (!object.contains("of") || !object["of"].is_array() || object["of"].empty()) {
    process::bad("params.backward.of",
                 "params.backward.of must be a non-empty list of ops (\"rotate\", \"attention\", \"forward\")");
  }
  info.backward_of = 0;
  for (const json& op : object["of"]) {
    std::optional<Op> parsed = op.is_string() ? parse_op(op.get<std::string>()) : std::nullopt;
    if (!parsed || (*parsed != Op::rotate && *parsed != Op::attention && *parsed != Op::forward)) {
      process::bad("params.backward.of", fmt::format("params.backward.of lists \"rotate\", \"attention\" and "
                                                     "\"forward\", got {}",
                                                     op.dump()));
    }
    if (!info.supports(*parsed)) {
      process::bad("params.backward.of",
                   fmt::format("params.backward.of names {}, an op the subject does not declare", name(*parsed)));
    }
    info.backward_of |= static_cast<unsigned>(*parsed);
  }
  info.declared.push_back("params.backward.of");
}

json write_params(const SubjectInfo& info) {
  json of = json::array();
  for (Op op : kDifferentiable) {
    if ((info.backward_of & static_cast<unsigned>(op)) != 0) of.push_back(std::string(name(op)));
  }
  if (of.empty()) return json();
  return {{"of", of}};
}

}  // namespace backward_codec

const Codec<BackwardCall>& BackwardCall::codec() {
  static const Codec<BackwardCall> codec{
      .put = &backward_codec::put,
      .size_hint = &backward_codec::size_hint,
      .expected = &backward_codec::expected,
      .check = &backward_codec::check,
      .read = &backward_codec::read,
      .to_json = &backward_codec::to_json,
      .from_json = &backward_codec::from_json,
      .describe = &backward_codec::describe,
      .reach = &backward_codec::reach,
      .params = {.read = &backward_codec::read_params, .write = &backward_codec::write_params},
      .put_answer = &backward_codec::put_answer};
  return codec;
}

}  // namespace pecheck
