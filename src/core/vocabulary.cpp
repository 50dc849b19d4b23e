#include "pecheck/core/vocabulary.h"

namespace pecheck {

std::string_view name(Op op) {
  switch (op) {
    case Op::encode: return "encode";
    case Op::attention: return "attention";
    case Op::rotate: return "rotate";
    case Op::logits: return "logits";
    case Op::combine: return "combine";
    case Op::bias: return "bias";
    case Op::forward: return "forward";
    case Op::decode: return "decode";
  }
  return "?";
}

std::optional<Op> parse_op(std::string_view text) {
  for (Op op : kAllOps) {
    if (name(op) == text) return op;
  }
  return std::nullopt;
}

}  // namespace pecheck
