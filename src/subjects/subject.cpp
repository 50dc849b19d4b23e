#include "pecheck/subjects/subject.h"

#include <fmt/format.h>

namespace pecheck {

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
