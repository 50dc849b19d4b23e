#include "pecheck/subjects/typed_subject.h"

#include <fmt/format.h>

#include "pecheck/core/overloaded.h"

namespace pecheck {

// (calls.h) What TypedSubject::forward receives.
ForwardCall with_defaults(ForwardCall call) {
  const auto batch = static_cast<Eigen::Index>(call.x.size());
  const Eigen::Index tokens = call.x.empty() ? 0 : call.x.front().rows();
  if (call.positions.empty()) {
    Positions row(static_cast<std::size_t>(tokens));
    for (Eigen::Index t = 0; t < tokens; ++t) row[static_cast<std::size_t>(t)] = t;
    call.positions.assign(call.x.size(), row);
  }
  if (call.padding.size() == 0) call.padding = BoolMatrix::Constant(batch, tokens, true);
  return call;
}

namespace {
[[noreturn]] void unsupported(const TypedSubject& s, Op op) {
  throw Refusal(fmt::format("{} does not implement {}", s.info().name, name(op)));
}
}  // namespace

Matrix TypedSubject::encode(int, const Positions&, Position) { unsupported(*this, Op::encode); }
Matrix TypedSubject::attention(const Matrix&, const Matrix&, const Matrix&, const AttentionMask&, int) {
  unsupported(*this, Op::attention);
}
Matrix TypedSubject::rotate(const Positions&, const Matrix&, std::optional<Position>) { unsupported(*this, Op::rotate); }
Matrix TypedSubject::rotate_axes(const std::vector<Positions>&, const Matrix&, std::optional<Position>) {
  throw Refusal(fmt::format("{} does not rotate multi-axis positions", info().name));
}
Matrix TypedSubject::rotate_layer(int layer, const Positions&, const Matrix&, std::optional<Position>) {
  throw Refusal(fmt::format("{} does not rotate as layer {}", info().name, layer));
}
Matrix TypedSubject::rotate_shift(std::optional<int>, const Positions&, const Matrix&, Position,
                                  std::optional<Position>) {
  throw Refusal(fmt::format("{} does not shift rotated keys (context_shift)", info().name));
}
Batch TypedSubject::forward_layer(int layer, const Batch&, const std::vector<Positions>&, const BoolMatrix&) {
  throw Refusal(fmt::format("{} does not run layer {} alone", info().name, layer));
}
Matrix TypedSubject::logits(const Matrix&, const Matrix&, const AttentionMask&) {
  unsupported(*this, Op::logits);
}
Matrix TypedSubject::add(const Matrix&, const Matrix&) { unsupported(*this, Op::combine); }
Matrix TypedSubject::concat(const Matrix&, const Matrix&) { unsupported(*this, Op::combine); }
Matrix TypedSubject::project(const Matrix&, const Matrix&) { unsupported(*this, Op::combine); }
Matrix TypedSubject::bias(int, int, int) { unsupported(*this, Op::bias); }
Batch TypedSubject::forward(const Batch&, const std::vector<Positions>&, const BoolMatrix&) { unsupported(*this, Op::forward); }
Vector TypedSubject::decode(const std::string&, const Vector&, Position) { unsupported(*this, Op::decode); }
void TypedSubject::reset(const std::string&) { unsupported(*this, Op::decode); }
Batch TypedSubject::forward_packed(const Batch&, const std::vector<Positions>&, const BoolMatrix&,
                              const std::vector<Positions>&) {
  throw Refusal(fmt::format("{} does not take packed documents (forward with segments)", info().name));
}
Matrix TypedSubject::decode_tokens(const std::string&, const Matrix&, const Positions&) {
  throw Refusal(fmt::format("{} decodes one token per call", info().name));
}
void TypedSubject::reset_with_capacity(const std::string&, Position) {
  throw Refusal(fmt::format("{} takes no cache capacity on reset", info().name));
}

Batch TypedSubject::rotate_backward(const RotateCall&, const Matrix&) {
  throw Refusal(fmt::format("{} does not answer the backward of rotate", info().name));
}
Batch TypedSubject::forward_backward(const ForwardCall&, const Batch&) {
  throw Refusal(fmt::format("{} does not answer the backward of forward", info().name));
}
Batch TypedSubject::attention_backward(const AttentionCall&, const Matrix&) {
  throw Refusal(fmt::format("{} does not answer the backward of attention", info().name));
}

Answer TypedSubject::perform(const Call& call) {
  TypedSubject& subject = *this;
  try {
    return std::visit(
        Overloaded{
            [&](const EncodeCall& c) -> Answer { return subject.encode(c.dim, c.positions, c.seq_len); },
            [&](const AttentionCall& c) -> Answer { return subject.attention(c.q, c.k, c.v, c.mask, c.heads); },
            [&](const RotateCall& c) -> Answer {
              if (c.shift) return subject.rotate_shift(c.layer, c.positions, c.x, *c.shift, c.seq_len);
              if (c.layer) return subject.rotate_layer(*c.layer, c.positions, c.x, c.seq_len);
              if (!c.axes.empty()) return subject.rotate_axes(c.axes, c.x, c.seq_len);
              return subject.rotate(c.positions, c.x, c.seq_len);
            },
            [&](const BiasCall& c) -> Answer { return subject.bias(c.n, c.m, c.head); },
            [&](const ForwardCall& given) -> Answer {
              // The defaults written out, copying the call only where it left one empty.
              ForwardCall filled;
              const bool defaults = given.positions.empty() || given.padding.size() == 0;
              if (defaults) filled = with_defaults(given);
              const ForwardCall& c = defaults ? filled : given;
              if (c.layer) {
                if (!c.segments.empty()) throw Refusal("one layer's forward takes no segments");
                return subject.forward_layer(*c.layer, c.x, c.positions, c.padding);
              }
              if (!c.segments.empty()) return subject.forward_packed(c.x, c.positions, c.padding, c.segments);
              return subject.forward(c.x, c.positions, c.padding);
            },
            [&](const DecodeCall& c) -> Answer { return subject.decode(c.session, c.x, c.position); },
            [&](const ResetCall& c) -> Answer {
              if (c.capacity) subject.reset_with_capacity(c.session, *c.capacity);
              else subject.reset(c.session);
              return Done{};
            },
            [&](const DecodeTokensCall& c) -> Answer { return subject.decode_tokens(c.session, c.x, c.positions); },
            [&](const LogitsCall& c) -> Answer { return subject.logits(c.q, c.k, c.mask); },
            [&](const BackwardCall& c) -> Answer {
              if (const auto* r = std::get_if<RotateCall>(&c.of)) return subject.rotate_backward(*r, c.grad);
              if (const auto* f = std::get_if<ForwardCall>(&c.of)) {
                // The grad and the answer travel packed side by side (calls.h BackwardCall).
                const int sequences = std::max(1, static_cast<int>(f->x.size()));
                const Batch dx = subject.forward_backward(*f, columns_to_heads(c.grad, sequences));
                if (dx.size() != f->x.size()) {
                  throw SubjectFailure(fmt::format("a backward of forward answered {} sequences, not {}", dx.size(),
                                                   f->x.size()));
                }
                return Batch{heads_to_columns(dx)};
              }
              return subject.attention_backward(std::get<AttentionCall>(c.of), c.grad);
            },
            [&](const CombineCall& c) -> Answer {
              switch (c.how) {
                case CombineCall::How::concat: return subject.concat(c.a, c.b);
                case CombineCall::How::project: return subject.project(c.a, c.b);
                case CombineCall::How::add: break;
              }
              return subject.add(c.a, c.b);
            }},
        call);
  } catch (const Refusal& r) {
    return Refused{r.what()};
  }
}


namespace ask {

Matrix encode(Subject& subject, int dim, Positions positions, Position seq_len) {
  return value<Matrix>(subject.perform(EncodeCall{dim, std::move(positions), seq_len}));
}
Matrix attention(Subject& subject, Matrix q, Matrix k, Matrix v, AttentionMask mask, int heads) {
  return value<Matrix>(subject.perform(AttentionCall{std::move(q), std::move(k), std::move(v), std::move(mask), heads}));
}
Matrix rotate(Subject& subject, Positions positions, Matrix x, std::optional<Position> seq_len) {
  return value<Matrix>(subject.perform(RotateCall{std::move(positions), std::move(x), seq_len}));
}
Matrix rotate_axes(Subject& subject, std::vector<Positions> positions, Matrix x, std::optional<Position> seq_len) {
  return value<Matrix>(subject.perform(RotateCall{{}, std::move(x), seq_len, std::move(positions)}));
}
Matrix rotate_layer(Subject& subject, int layer, Positions positions, Matrix x, std::optional<Position> seq_len) {
  return value<Matrix>(subject.perform(RotateCall{std::move(positions), std::move(x), seq_len, {}, layer}));
}
Matrix rotate_shift(Subject& subject, std::optional<int> layer, Positions positions, Matrix x, Position shift,
                    std::optional<Position> seq_len) {
  return value<Matrix>(subject.perform(RotateCall{std::move(positions), std::move(x), seq_len, {}, layer, shift}));
}
Matrix logits(Subject& subject, Matrix q, Matrix k, AttentionMask mask) {
  return value<Matrix>(subject.perform(LogitsCall{std::move(q), std::move(k), std::move(mask)}));
}
Matrix add(Subject& subject, Matrix x, Matrix p) {
  return value<Matrix>(subject.perform(CombineCall{CombineCall::How::add, std::move(x), std::move(p)}));
}
Matrix concat(Subject& subject, Matrix x, Matrix p) {
  return value<Matrix>(subject.perform(CombineCall{CombineCall::How::concat, std::move(x), std::move(p)}));
}
Matrix project(Subject& subject, Matrix w, Matrix z) {
  return value<Matrix>(subject.perform(CombineCall{CombineCall::How::project, std::move(w), std::move(z)}));
}
Matrix bias(Subject& subject, int n, int m, int head) { return value<Matrix>(subject.perform(BiasCall{n, m, head})); }
Batch forward(Subject& subject, Batch x, std::vector<Positions> positions, BoolMatrix padding) {
  return value<Batch>(subject.perform(ForwardCall{std::move(x), std::move(positions), std::move(padding)}));
}
Batch forward_layer(Subject& subject, int layer, Batch x, std::vector<Positions> positions, BoolMatrix padding) {
  return value<Batch>(subject.perform(ForwardCall{std::move(x), std::move(positions), std::move(padding), layer}));
}
Batch forward_packed(Subject& subject, Batch x, std::vector<Positions> positions, BoolMatrix padding,
                     std::vector<Positions> segments) {
  return value<Batch>(subject.perform(
      ForwardCall{std::move(x), std::move(positions), std::move(padding), std::nullopt, std::move(segments)}));
}
Vector decode(Subject& subject, std::string session, Vector x, Position position) {
  return value<Vector>(subject.perform(DecodeCall{std::move(session), std::move(x), position}));
}
Matrix decode_tokens(Subject& subject, std::string session, Matrix x, Positions positions) {
  return value<Matrix>(subject.perform(DecodeTokensCall{std::move(session), std::move(x), std::move(positions)}));
}
void reset(Subject& subject, std::string session) { value<Done>(subject.perform(ResetCall{std::move(session)})); }
void reset_with_capacity(Subject& subject, std::string session, Position capacity) {
  value<Done>(subject.perform(ResetCall{std::move(session), capacity}));
}

Batch rotate_backward(Subject& subject, RotateCall call, Matrix grad) {
  return value<Batch>(subject.perform(BackwardCall{std::move(call), std::move(grad)}));
}
Batch attention_backward(Subject& subject, AttentionCall call, Matrix grad) {
  return value<Batch>(subject.perform(BackwardCall{std::move(call), std::move(grad)}));
}
Batch forward_backward(Subject& subject, ForwardCall call, const Batch& grad) {
  const auto sequences = call.x.size();
  if (grad.size() != sequences) {
    throw std::invalid_argument(fmt::format("backward of forward: {} upstream gradients for {} sequences", grad.size(),
                                            sequences));
  }
  const Eigen::Index n = call.x.empty() ? 0 : call.x.front().rows(), d = call.x.empty() ? 0 : call.x.front().cols();
  Batch answer = value<Batch>(subject.perform(BackwardCall{std::move(call), heads_to_columns(grad)}));
  if (answer.size() != 1 || answer[0].rows() != n || answer[0].cols() != static_cast<Eigen::Index>(sequences) * d) {
    throw SubjectFailure(fmt::format("a backward of forward answered {} arrays{}, not one B × N × d tensor (B {}, N "
                                     "{}, d {})",
                                     answer.size(), answer.size() == 1 ? fmt::format(" of {}×{} packed", answer[0].rows(), answer[0].cols()) : "",
                                     sequences, n, d));
  }
  return columns_to_heads(answer[0], std::max<int>(1, static_cast<int>(sequences)));
}

}  // namespace ask

}  // namespace pecheck
