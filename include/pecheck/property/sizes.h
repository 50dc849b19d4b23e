#pragma once
// Sizes along each axis (core/axis.h): where generators may draw them, and
// the shape ladder.
//
// A cell's search draws small sizes: they shrink best and cost least. Its
// ladder then draws one case per rung of each axis the property scales
// (PropertyImpl::axes) at the sizes real models use — head dims 64 to 256,
// thousands of rows in one request, attention over a thousand keys, modules
// over hundreds of tokens, histories of hundreds of requests — with every
// other axis small, so that each large case stays cheap. Declared shapes
// (params.<op>.shapes, core/shapes.h) and the flags (--max-width,
// --max-position) bound both: generators draw only inside them. The largest
// size the ladder aims at on an axis is that axis's gate, and a cell whose
// judged cases fall short of a gate is uncovered (runner/coverage_probe.h).
#include <rapidcheck.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pecheck/core/axis.h"
#include "pecheck/core/vocabulary.h"

namespace pecheck {

struct GenContext;  // property/property.h

// One ladder case: `axis` at its rung-th rung, every other axis drawn small.
struct Focus {
  Axis axis = Axis::width;
  std::size_t rung = 0;
};

// The declared dimension behind an axis of an op's requests (width → d,
// rows/queries/tokens → n, keys → m, heads, batch), if any.
std::optional<ShapeDim> declared_dim(Op op, Axis axis);

// What bounds an axis of one op: the subject's declared extent and a flag's cap.
struct AxisLimits {
  std::optional<Extent> declared;       // params.<op>.shapes.<dim>
  std::string declared_as;              // "params.rotate.shapes.d"
  std::optional<std::int64_t> cap;      // from a flag: --max-width, --max-position + 1
  std::string capped_by;                // "--max-width 128"
  bool allows(std::int64_t size) const;
};
AxisLimits axis_limits(const SubjectInfo& subject, Position max_position, int max_width, Op op, Axis axis);

// How a user sets the gate of an axis of an op, for messages: "declare
// params.rotate.shapes.d or gate with --max-width", "declare
// params.attention.shapes.m"; empty where nothing does (history).
std::string gate_setters(Op op, Axis axis);

// The ladder's rungs on an axis of one op within its limits, ascending, and
// what sets the largest (the gate): the declaration, the flag, or the
// ladder's default (core/axis.h names the axes; sizes.cpp holds the table).
// A declared list gives its own values; a declared range or a flag caps the
// default rungs and adds its own top; a declared range's max above the
// default top on a length axis (rows, queries, keys, tokens: a session
// length) raises the ladder to it, and a declared window or chunk raises a
// module's tokens to W + 1 (C + 1), within the request budget.
struct Rungs {
  std::vector<std::int64_t> sizes;
  std::string set_by;  // "params.rotate.shapes.d", "--max-width 512", "the shape ladder's default"
  // The least the gate may be whatever the limits allow (issue 36): a
  // declared window W (chunk C) asks W + 1 (C + 1) tokens, so a cell that
  // cannot send them is uncovered rather than green below the window.
  std::int64_t gate_floor = 0;
  std::string gate_floor_by;  // "the declared window params.forward.window 4096 (W + 1 tokens)"
};

// The sequence a declared window or chunk needs on `axis` of `op`: W + 1
// (C + 1) tokens for a module declaring params.forward.window / .chunk (or a
// layer's), the largest over its layers; nullopt where none is declared.
struct Reach {
  std::int64_t size = 0;
  std::string why;
};
std::optional<Reach> declared_reach(const SubjectInfo& subject, Op op, Axis axis);
Rungs ladder_rungs(const SubjectInfo& subject, Position max_position, int max_width, Op op, Axis axis);
Rungs ladder_rungs(const GenContext& ctx, Op op, Axis axis);

// The gates a ladder's cases aimed at, noted as they are drawn: per axis the
// largest size, and what set it. One per cell, shared by its generators.
class LadderGates {
 public:
  struct Gate {
    std::int64_t size = 0;
    std::string set_by;
  };
  void aim(Axis axis, std::int64_t size, const std::string& set_by);
  const std::map<Axis, Gate>& gates() const { return gates_; }

 private:
  std::map<Axis, Gate> gates_;
};

// Sizes a property can use (all when empty): even widths, the widths a rotary
// convention defines, multiples of the heads.
using ValidSize = std::function<bool(std::int64_t)>;

// A size on `axis` of `op`, at least `lo`, that `valid` accepts and the
// limits allow. In the search: drawn from [lo, small_hi] as rc::gen::inRange
// draws (growing with RapidCheck's size, shrinking toward lo); when the
// limits leave nothing there, from the smallest sizes they allow. In a ladder
// case focused on this axis: the rung's size (the nearest allowed one at or
// below it), noted as the axis's gate when it is the top rung, shrinking
// toward lo through the allowed sizes below it (bisection: a failure at 4096
// rows shrinks to the smallest count that fails in a dozen steps).
rc::Gen<int> size_on(const GenContext& ctx, Op op, Axis axis, int lo, int small_hi, ValidSize valid = {});

// The sizes size_on draws from in the search (ascending; at least one).
std::vector<int> small_sizes(const GenContext& ctx, Op op, Axis axis, int lo, int small_hi,
                             const ValidSize& valid = {});

// Whether the case being drawn is a ladder case focused on `axis`.
bool focused(const GenContext& ctx, Axis axis);

// The largest position a request of `op` may carry: --max-position, and
// below a declared sequence length n (encode, rotate: positions < n).
Position position_limit(const GenContext& ctx, Op op);
// The sequence length a request of `op` carries, for positions up to `last`
// and `extra` tokens after: last + 1 + extra, at most the largest position
// + 1 (--max-position bounds every position of the sequence), and one of the
// declared lengths n when the op declares them.
Position sequence_length(const GenContext& ctx, Op op, Position last, Position extra);

}  // namespace pecheck
