#include "subjects/subject.h"

#include <fmt/format.h>

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

namespace {
[[noreturn]] void unsupported(const Subject& s, Op op) {
  throw Refusal(fmt::format("{} does not implement {}", s.info().name, name(op)));
}
}  // namespace

Matrix Subject::encode(int, const Positions&, Position) { unsupported(*this, Op::encode); }
Matrix Subject::attention(const Matrix&, const Matrix&, const Matrix&, const AttentionMask&, int) {
  unsupported(*this, Op::attention);
}
Matrix Subject::rotate(const Positions&, const Matrix&) { unsupported(*this, Op::rotate); }
Matrix Subject::logits(const Matrix&, const Matrix&, const AttentionMask&) {
  unsupported(*this, Op::logits);
}
Matrix Subject::add(const Matrix&, const Matrix&) { unsupported(*this, Op::combine); }
Matrix Subject::concat(const Matrix&, const Matrix&) { unsupported(*this, Op::combine); }
Matrix Subject::project(const Matrix&, const Matrix&) { unsupported(*this, Op::combine); }

}  // namespace pecheck
