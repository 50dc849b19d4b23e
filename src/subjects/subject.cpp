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
Matrix Subject::rotate(const Positions&, const Matrix&, std::optional<Position>) { unsupported(*this, Op::rotate); }
Matrix Subject::rotate_axes(const std::vector<Positions>&, const Matrix&, std::optional<Position>) {
  throw Refusal(fmt::format("{} does not rotate multi-axis positions", info().name));
}
Matrix Subject::rotate_layer(int layer, const Positions&, const Matrix&, std::optional<Position>) {
  throw Refusal(fmt::format("{} does not rotate as layer {}", info().name, layer));
}
Batch Subject::forward_layer(int layer, const Batch&, const std::vector<Positions>&, const BoolMatrix&) {
  throw Refusal(fmt::format("{} does not run layer {} alone", info().name, layer));
}
Matrix Subject::logits(const Matrix&, const Matrix&, const AttentionMask&) {
  unsupported(*this, Op::logits);
}
Matrix Subject::add(const Matrix&, const Matrix&) { unsupported(*this, Op::combine); }
Matrix Subject::concat(const Matrix&, const Matrix&) { unsupported(*this, Op::combine); }
Matrix Subject::project(const Matrix&, const Matrix&) { unsupported(*this, Op::combine); }
Matrix Subject::bias(int, int, int) { unsupported(*this, Op::bias); }
Batch Subject::forward(const Batch&, const std::vector<Positions>&, const BoolMatrix&) { unsupported(*this, Op::forward); }
Vector Subject::decode(const std::string&, const Vector&, Position) { unsupported(*this, Op::decode); }
void Subject::reset(const std::string&) { unsupported(*this, Op::decode); }
Batch Subject::forward_packed(const Batch&, const std::vector<Positions>&, const BoolMatrix&,
                              const std::vector<Positions>&) {
  throw Refusal(fmt::format("{} does not take packed documents (forward with segments)", info().name));
}
Matrix Subject::decode_tokens(const std::string&, const Matrix&, const Positions&) {
  throw Refusal(fmt::format("{} decodes one token per call", info().name));
}
void Subject::reset_with_capacity(const std::string&, Position) {
  throw Refusal(fmt::format("{} takes no cache capacity on reset", info().name));
}

}  // namespace pecheck
