#pragma once
// The op table: one row per op a subject can offer — its name, the profile it
// implies, whether the subject protocol carries it, whose declared shapes size
// it, which of its axes is a sequence, and the shape ladder's rungs on each
// axis, and the facts the runner and the shape ladder ask of an op (stateful,
// positional, keyed, in-process). Everything else that speaks of ops in
// general reads this table; an op's request itself is its call
// (pecheck/protocol/calls.h) and codec.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pecheck/core/axis.h"
#include "pecheck/core/shapes.h"
#include "pecheck/core/vocabulary.h"

namespace pecheck {

// The sizes real models use on one axis of an op (property/sizes.h reads them).
struct OpRungs {
  Axis axis;
  std::vector<std::int64_t> sizes;
};

struct OpRow {
  Op op;
  std::string_view name;
  std::string_view profile;  // the profile (config/profiles.cpp) it implies; empty: none
  int profile_order = 0;     // implied profiles join in this order ("sinusoidal+rotary+attention")
  bool scheme = false;       // names a process subject's scheme (the encoder, rotary and attention profiles)
  bool on_wire = false;      // an op of the subject protocol (hello's ops)
  Op shapes_of;              // whose params.<op>.shapes size its requests
  std::optional<Op> shapes_else;  // ... and whose, when the subject declares none for shapes_of
  std::optional<Axis> sequence;   // its axis that is a sequence (capped by --max-position)
  std::vector<OpRungs> ladder;
  bool stateful = false;  // its answers depend on the requests before it (never batched nor looked ahead for)
  // Its requests name positions, one a row (encode, rotate): sized by params.<op>.shapes.n, spanning
  // the coverage gate's positions, and judged on angles that a 16-bit dtype cannot tell apart.
  bool positional = false;
  // Its requests carry keys beside queries, as many as queries unless the subject declares m.
  bool keyed = false;
  // Asked of in-process subjects only (C++, built-ins): no protocol op, so a process subject refuses
  // it unasked and the look-ahead never sends it ahead.
  bool in_process() const { return !on_wire; }
};

// Every op, in the order ops are listed (reports, hello, the console).
std::span<const OpRow> op_table();
const OpRow& op_row(Op op);
// The ops alone, in the table's order.
std::span<const Op> all_ops();

// The op whose declared shapes apply to requests of `op` for a subject that
// declared `shapes` (decode follows forward's unless it declares its own;
// logits follow attention's).
Op declaring_op(const DeclaredShapes& shapes, Op op);
// The same without a subject: where a declaration for `op` is written.
Op declared_under(Op op);

// The profiles the ops in `ops` (a bitwise or of Op) imply, each once, in
// profile order; and the same joined with '+' ("" for none).
std::vector<std::string_view> profiles_of_ops(unsigned ops);
std::string joined_profiles_of_ops(unsigned ops);
// The bitwise or of the ops that name a scheme.
unsigned scheme_ops();

}  // namespace pecheck
