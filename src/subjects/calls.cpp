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
                               [](const DecodeTokensCall&) { return "decode"; },
                               [](const LogitsCall&) { return "logits"; },
                               [](const CombineCall&) { return "combine"; }},
                    call);
}

Op op_of(const Call& call) {
  return std::visit(Overloaded{[](const EncodeCall&) { return Op::encode; },
                               [](const AttentionCall&) { return Op::attention; },
                               [](const RotateCall&) { return Op::rotate; }, [](const BiasCall&) { return Op::bias; },
                               [](const ForwardCall&) { return Op::forward; },
                               [](const DecodeCall&) { return Op::decode; },
                               [](const ResetCall&) { return Op::decode; },
                               [](const DecodeTokensCall&) { return Op::decode; },
                               [](const LogitsCall&) { return Op::logits; },
                               [](const CombineCall&) { return Op::combine; }},
                    call);
}

}  // namespace pecheck
