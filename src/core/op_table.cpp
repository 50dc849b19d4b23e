#include "pecheck/core/op_table.h"

#include <algorithm>
#include <stdexcept>

namespace pecheck {

namespace {

// The shape ladder's rungs (property/sizes.h): head dims of current models
// (Llama and Mistral 128, Phi 80 and 96, Gemma 256); d_model of published
// sinusoidal tables (512); a prefill of up to 4096 rows; the tile edges of
// attention kernels (32, 64, 128) and a long context on the keys (a decode
// step over a 4096-token cache); modules over hundreds of tokens and batches
// of several sequences.
std::vector<OpRow> rows() {
  using A = Axis;
  return {
      {Op::encode, "encode", "sinusoidal", 0, true, true, Op::encode, std::nullopt, A::rows,
       {{A::width, {64, 128, 256, 512}}, {A::rows, {256, 1024, 4096}}}, /*stateful=*/false, /*positional=*/true},
      {Op::attention, "attention", "attention", 2, true, true, Op::attention, std::nullopt, std::nullopt,
       {{A::width, {64, 80, 96, 128, 256}},
        {A::queries, {32, 64, 128, 1024}},
        {A::keys, {32, 64, 128, 1024, 4096}},
        {A::heads, {8, 16}}}, /*stateful=*/false, /*positional=*/false, /*keyed=*/true},
      {Op::rotate, "rotate", "rotary", 1, true, true, Op::rotate, std::nullopt, A::rows,
       {{A::width, {64, 80, 96, 128, 256}}, {A::rows, {256, 1024, 4096}}}, /*stateful=*/false, /*positional=*/true},
      {Op::logits, "logits", "", 0, false, false, Op::attention, std::nullopt, std::nullopt,
       {{A::width, {64, 80, 96, 128, 256}}, {A::queries, {32, 64, 128, 1024}}, {A::keys, {32, 64, 128, 1024, 4096}}},
       /*stateful=*/false, /*positional=*/false, /*keyed=*/true},
      {Op::combine, "combine", "", 0, false, false, Op::combine, std::nullopt, std::nullopt,
       {{A::width, {64, 256}}, {A::rows, {256}}}},
      {Op::bias, "bias", "bias", 3, false, true, Op::bias, std::nullopt, std::nullopt,
       {{A::queries, {64, 256, 1024}}, {A::keys, {64, 256, 1024, 4096}}}, /*stateful=*/false, /*positional=*/false,
       /*keyed=*/true},
      {Op::forward, "forward", "module", 4, false, true, Op::forward, std::nullopt, A::tokens,
       {{A::tokens, {16, 32, 64, 256}}, {A::batch, {4, 8}}}},
      {Op::decode, "decode", "module", 4, false, true, Op::decode, Op::forward, A::tokens,
       {{A::tokens, {16, 32, 64, 256}}}, /*stateful=*/true},
      // The gradients of rotate and attention (params.backward.of): the
      // gradients profile; sized as the ops it is asked of.
      {Op::backward, "backward", "gradients", 5, false, true, Op::backward, std::nullopt, std::nullopt,
       {{A::width, {64, 128}}, {A::rows, {256, 1024}}, {A::queries, {64, 128}}, {A::keys, {64, 128, 1024}}}},
  };
}

}  // namespace

// Function-local statics: a registry built during static initialisation
// (PECHECK_BOOST_TEST_SUBJECT) reads the table safely.
std::span<const OpRow> op_table() {
  static const std::vector<OpRow> table = rows();
  return table;
}

const OpRow& op_row(Op op) {
  for (const OpRow& row : op_table()) {
    if (row.op == op) return row;
  }
  throw std::logic_error("an op without a row in the op table");
}

std::span<const Op> all_ops() {
  static const std::vector<Op> ops = [] {
    std::vector<Op> out;
    for (const OpRow& row : op_table()) out.push_back(row.op);
    return out;
  }();
  return ops;
}

Op declaring_op(const DeclaredShapes& shapes, Op op) {
  const OpRow& row = op_row(op);
  if (row.shapes_else && !shapes.declares(row.shapes_of)) return *row.shapes_else;
  return row.shapes_of;
}

Op declared_under(Op op) {
  const OpRow& row = op_row(op);
  return row.shapes_else.value_or(row.shapes_of);
}

std::string_view name(Op op) { return op_row(op).name; }

std::optional<Op> parse_op(std::string_view text) {
  for (const OpRow& row : op_table()) {
    if (row.name == text) return row.op;
  }
  return std::nullopt;
}

std::vector<std::string_view> profiles_of_ops(unsigned ops) {
  std::vector<const OpRow*> offered;
  for (const OpRow& row : op_table()) {
    if ((ops & static_cast<unsigned>(row.op)) != 0 && !row.profile.empty()) offered.push_back(&row);
  }
  std::stable_sort(offered.begin(), offered.end(),
                   [](const OpRow* a, const OpRow* b) { return a->profile_order < b->profile_order; });
  std::vector<std::string_view> out;
  for (const OpRow* row : offered) {
    if (std::find(out.begin(), out.end(), row->profile) == out.end()) out.push_back(row->profile);
  }
  return out;
}

std::string joined_profiles_of_ops(unsigned ops) {
  std::string out;
  for (std::string_view profile : profiles_of_ops(ops)) {
    if (!out.empty()) out += '+';
    out += profile;
  }
  return out;
}

unsigned scheme_ops() {
  unsigned out = 0;
  for (const OpRow& row : op_table()) {
    if (row.scheme) out |= static_cast<unsigned>(row.op);
  }
  return out;
}

}  // namespace pecheck
