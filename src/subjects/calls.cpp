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

std::string_view op_name(const Call& call) {
  return std::visit(Overloaded{[](const EncodeCall&) { return "encode"; },
                               [](const AttentionCall&) { return "attention"; },
                               [](const RotateCall&) { return "rotate"; }, [](const BiasCall&) { return "bias"; },
                               [](const ForwardCall&) { return "forward"; },
                               [](const DecodeCall&) { return "decode"; }, [](const ResetCall&) { return "reset"; }},
                    call);
}

Op op_of(const Call& call) {
  return std::visit(Overloaded{[](const EncodeCall&) { return Op::encode; },
                               [](const AttentionCall&) { return Op::attention; },
                               [](const RotateCall&) { return Op::rotate; }, [](const BiasCall&) { return Op::bias; },
                               [](const ForwardCall&) { return Op::forward; },
                               [](const DecodeCall&) { return Op::decode; },
                               [](const ResetCall&) { return Op::decode; }},
                    call);
}

Answer perform(Subject& subject, const Call& call) {
  try {
    return std::visit(
        Overloaded{
            [&](const EncodeCall& c) -> Answer { return subject.encode(c.dim, c.positions, c.seq_len); },
            [&](const AttentionCall& c) -> Answer { return subject.attention(c.q, c.k, c.v, c.mask, 1); },
            [&](const RotateCall& c) -> Answer {
              if (c.layer) return subject.rotate_layer(*c.layer, c.positions, c.x, c.seq_len);
              if (!c.axes.empty()) return subject.rotate_axes(c.axes, c.x, c.seq_len);
              return subject.rotate(c.positions, c.x, c.seq_len);
            },
            [&](const BiasCall& c) -> Answer { return subject.bias(c.n, c.m, c.head); },
            [&](const ForwardCall& c) -> Answer {
              const ForwardCall explicit_call = with_defaults(c);
              if (c.layer) {
                return subject.forward_layer(*c.layer, explicit_call.x, explicit_call.positions, explicit_call.padding);
              }
              return subject.forward(explicit_call.x, explicit_call.positions, explicit_call.padding);
            },
            [&](const DecodeCall& c) -> Answer { return subject.decode(c.session, c.x, c.position); },
            [&](const ResetCall& c) -> Answer {
              subject.reset(c.session);
              return Done{};
            }},
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
