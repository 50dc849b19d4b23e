#include "pecheck/core/vocabulary.h"

namespace pecheck {

std::string_view name(Op op) {
  switch (op) {
    case Op::encode: return "encode";
    case Op::attention: return "attention";
    case Op::rotate: return "rotate";
    case Op::logits: return "logits";
    case Op::combine: return "combine";
  }
  return "?";
}

std::optional<Op> parse_op(std::string_view text) {
  for (Op op : {Op::encode, Op::attention, Op::rotate, Op::logits, Op::combine}) {
    if (name(op) == text) return op;
  }
  return std::nullopt;
}

std::string_view name(Layout layout) {
  switch (layout) {
    case Layout::unspecified: return "unspecified";
    case Layout::interleaved: return "interleaved";
    case Layout::halves: return "halves";
  }
  return "?";
}

std::optional<Layout> parse_layout(std::string_view text) {
  if (text == "interleaved") return Layout::interleaved;
  if (text == "halves") return Layout::halves;
  if (text == "unspecified") return Layout::unspecified;
  return std::nullopt;
}

}  // namespace pecheck
