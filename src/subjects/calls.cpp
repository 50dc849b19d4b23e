#include "pecheck/subjects/calls.h"

#include "pecheck/core/overloaded.h"

namespace pecheck {

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
  return std::visit(Overloaded{[](const EncodeCall&) { return "encode"; },
                               [](const AttentionCall&) { return "attention"; },
                               [](const RotateCall&) { return "rotate"; }, [](const BiasCall&) { return "bias"; },
                               [](const ForwardCall&) { return "forward"; },
                               [](const DecodeCall&) { return "decode"; }, [](const ResetCall&) { return "reset"; },
                               [](const DecodeTokensCall&) { return "decode"; }},
                    call);
}

Op op_of(const Call& call) {
  return std::visit(Overloaded{[](const EncodeCall&) { return Op::encode; },
                               [](const AttentionCall&) { return Op::attention; },
                               [](const RotateCall&) { return Op::rotate; }, [](const BiasCall&) { return Op::bias; },
                               [](const ForwardCall&) { return Op::forward; },
                               [](const DecodeCall&) { return Op::decode; },
                               [](const ResetCall&) { return Op::decode; },
                               [](const DecodeTokensCall&) { return Op::decode; }},
                    call);
}

Answer perform(Subject& subject, const Call& call) {
  try {
    return std::visit(
        Overloaded{
            [&](const EncodeCall& c) -> Answer { return subject.encode(c.dim, c.positions, c.seq_len); },
            [&](const AttentionCall& c) -> Answer { return subject.attention(c.q, c.k, c.v, c.mask, c.heads); },
            [&](const RotateCall& c) -> Answer {
              if (c.layer) return subject.rotate_layer(*c.layer, c.positions, c.x, c.seq_len);
              if (!c.axes.empty()) return subject.rotate_axes(c.axes, c.x, c.seq_len);
              return subject.rotate(c.positions, c.x, c.seq_len);
            },
            [&](const BiasCall& c) -> Answer { return subject.bias(c.n, c.m, c.head); },
            [&](const ForwardCall& c) -> Answer {
              const ForwardCall explicit_call = with_defaults(c);
              if (c.layer) {
                if (!c.segments.empty()) throw Refusal("one layer's forward takes no segments");
                return subject.forward_layer(*c.layer, explicit_call.x, explicit_call.positions, explicit_call.padding);
              }
              if (!c.segments.empty()) {
                return subject.forward_packed(explicit_call.x, explicit_call.positions, explicit_call.padding,
                                              c.segments);
              }
              return subject.forward(explicit_call.x, explicit_call.positions, explicit_call.padding);
            },
            [&](const DecodeCall& c) -> Answer { return subject.decode(c.session, c.x, c.position); },
            [&](const ResetCall& c) -> Answer {
              if (c.capacity) subject.reset_with_capacity(c.session, *c.capacity);
              else subject.reset(c.session);
              return Done{};
            },
            [&](const DecodeTokensCall& c) -> Answer { return subject.decode_tokens(c.session, c.x, c.positions); }},
        call);
  } catch (const Refusal& r) {
    return Refused{r.what()};
  }
}

std::vector<Answer> perform_all(Subject& subject, std::span<const Call> calls) {
  if (auto* batching = dynamic_cast<BatchingSubject*>(&subject); batching && subject.info().batch) {
    return batching->perform_batch(calls);
  }
  std::vector<Answer> answers;
  answers.reserve(calls.size());
  for (const Call& call : calls) answers.push_back(perform(subject, call));
  return answers;
}

}  // namespace pecheck
