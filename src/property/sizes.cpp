#include "pecheck/property/sizes.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "pecheck/core/interrupt.h"
#include "pecheck/core/op_table.h"
#include "pecheck/core/size_limits.h"
#include "pecheck/property/property.h"

namespace pecheck {

namespace {

// The shape ladder: the sizes real models use, per op and axis (the op
// table's rungs, pecheck/core/op_table.h), and long histories on any op:
// long enough to pass a cache's capacity. Each ladder case raises one axis
// and keeps the others small, so its cost is that of one axis's size.
std::vector<std::int64_t> default_rungs(Op op, Axis axis) {
  if (axis == Axis::history) return {16, 64, 256};
  for (const OpRungs& rungs : op_row(op).ladder) {
    if (rungs.axis == axis) return rungs.sizes;
  }
  return {};
}

constexpr const char* kDefault = "the shape ladder's default";
constexpr std::int64_t kLongestHistory = 4096;  // requests in one ladder script, at most

// The smallest size ≥ `from` that `ok` accepts, scanning at most `span` sizes.
std::optional<std::int64_t> first_from(std::int64_t from, std::int64_t span,
                                       const std::function<bool(std::int64_t)>& ok) {
  for (std::int64_t v = from; v < from + span; ++v) {
    if (ok(v)) return v;
  }
  return std::nullopt;
}

// The allowed sizes of an axis (its declared list or range within the
// flag's cap, at least lo, accepted by `valid`) are walked, never listed: a
// list by its values, a range by at most kScan sizes from a point (what
// `valid` asks is periodic: even widths, multiples of the heads, the widths
// of a rotary convention).
constexpr std::int64_t kScan = 1 << 12;

std::optional<std::int64_t> allowed_at_most(const AxisLimits& limits, std::int64_t lo, const ValidSize& valid,
                                            std::int64_t v) {
  if (limits.cap) v = std::min(v, *limits.cap);
  auto fits = [&](std::int64_t x) { return !valid || valid(x); };
  if (limits.declared && !limits.declared->values.empty()) {
    const auto& values = limits.declared->values;
    for (auto it = std::upper_bound(values.begin(), values.end(), v); it != values.begin();) {
      const std::int64_t x = *--it;
      if (x < lo) break;
      if (fits(x)) return x;
    }
    return std::nullopt;
  }
  const std::int64_t floor = std::max(lo, limits.declared ? limits.declared->min : lo);
  if (limits.declared && limits.declared->max) v = std::min(v, *limits.declared->max);
  for (std::int64_t x = v; x >= floor && x > v - kScan; --x) {
    if (fits(x)) return x;
  }
  return std::nullopt;
}

std::optional<std::int64_t> allowed_at_least(const AxisLimits& limits, std::int64_t lo, const ValidSize& valid,
                                             std::int64_t v) {
  v = std::max(v, lo);
  auto fits = [&](std::int64_t x) { return (!valid || valid(x)) && (!limits.cap || x <= *limits.cap); };
  if (limits.declared && !limits.declared->values.empty()) {
    const auto& values = limits.declared->values;
    for (auto it = std::lower_bound(values.begin(), values.end(), v); it != values.end(); ++it) {
      if (fits(*it)) return *it;
    }
    return std::nullopt;
  }
  if (limits.declared) v = std::max(v, limits.declared->min);
  std::int64_t ceiling = v + kScan;
  if (limits.declared && limits.declared->max) ceiling = std::min(ceiling, *limits.declared->max + 1);
  for (std::int64_t x = v; x < ceiling; ++x) {
    if (fits(x)) return x;
  }
  return std::nullopt;
}

// The largest size on `dim` of a request of `op` that fits the per-request
// budget with the op's other declared dimensions at their smallest.
std::int64_t most_within_budget(const SubjectInfo& subject, Op op, ShapeDim dim) {
  std::map<ShapeDim, std::int64_t> sizes;
  const Op by = declaring_op(subject.shapes, op);
  if (const auto it = subject.shapes.ops.find(by); it != subject.shapes.ops.end()) {
    for (const auto& [other, extent] : it->second) sizes[other] = extent.smallest();
  }
  // Self-attention sends as many keys as queries (as size_problem counts them).
  const bool keyed = op_row(op).keyed;
  if (keyed && dim != ShapeDim::m && !sizes.count(ShapeDim::m) && sizes.count(ShapeDim::n)) {
    sizes[ShapeDim::m] = sizes[ShapeDim::n];
  }
  std::int64_t lo = 1, hi = std::int64_t{1} << 40;  // the largest that fits lies in [lo, hi)
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    sizes[dim] = mid;
    (request_numbers(sizes) <= kMostNumbersPerRequest ? lo : hi) = mid;
  }
  return lo;
}

// The axes that are a sequence's length (a declared n or m above the
// ladder's top raises them; a declared width does not: issue 39 searches
// widths from the smallest declared one).
bool is_length(Axis axis) {
  return axis == Axis::rows || axis == Axis::queries || axis == Axis::keys || axis == Axis::tokens;
}

}  // namespace

std::optional<Reach> declared_reach(const SubjectInfo& subject, Op op, Axis axis) {
  // Modules only: a module's tokens. (The attention op's window probes need
  // W + 1 queries and keys, a square above the request budget at W = 4,096:
  // not yet sized to fit, issue 36.)
  // (The ops whose sequence is a module's tokens: forward and decode.)
  if (axis != Axis::tokens || op_row(op).sequence != Axis::tokens || !subject.forward) return std::nullopt;
  const ForwardConvention& f = *subject.forward;
  std::optional<Reach> out;
  auto take = [&](const std::optional<Position>& extent, const std::string& field) {
    if (!extent || *extent < 1) return;
    if (const std::int64_t size = std::min<std::int64_t>(*extent, largest_sendable(ShapeDim::n) - 1) + 1;
        !out || size > out->size) {
      out = Reach{size, fmt::format("the declared {} {} ({} tokens, one past it)", field, *extent, size)};
    }
  };
  take(f.attention.window, "params.forward.window");
  take(f.attention.chunk, "params.forward.chunk");
  for (std::size_t k = 0; k < f.layers.size(); ++k) {
    take(f.layers[k].window, fmt::format("params.forward.layers[{}].window", k));
    take(f.layers[k].chunk, fmt::format("params.forward.layers[{}].chunk", k));
  }
  return out;
}

std::optional<ShapeDim> declared_dim(Op op, Axis axis) {
  // Positions are sized by n where a request's positions are its rows (encode, rotate).
  if (axis == Axis::positions) return op_row(op).positional ? std::optional(ShapeDim::n) : std::nullopt;
  return request_dim(axis);
}

bool AxisLimits::allows(std::int64_t size) const {
  return (!declared || declared->contains(size)) && (!cap || size <= *cap);
}

AxisLimits axis_limits(const SubjectInfo& subject, Position max_position, int max_width, Op op, Axis axis) {
  AxisLimits out;
  if (const auto dim = declared_dim(op, axis)) {
    const Op by = declaring_op(subject.shapes, op);
    if (const Extent* e = subject.shapes.find(by, *dim)) {
      out.declared = *e;
      out.declared_as = fmt::format("params.{}.shapes.{}", name(by), name(*dim));
    }
  }
  if (axis == Axis::width && max_width > 0) {
    out.cap = max_width;
    out.capped_by = fmt::format("--max-width {}", max_width);
  }
  if (op_row(op).sequence == axis) {
    // A sequence has at most max_position + 1 positions.
    out.cap = max_position + 1;
    out.capped_by = fmt::format("--max-position {}", max_position);
  }
  return out;
}

Rungs ladder_rungs(const SubjectInfo& subject, Position max_position, int max_width, Op op, Axis axis) {
  const std::vector<std::int64_t> base = default_rungs(op, axis);
  Rungs out;
  if (base.empty()) return out;
  const AxisLimits limits = axis_limits(subject, max_position, max_width, op, axis);
  std::vector<std::int64_t> sizes;
  std::string set_by = kDefault;
  if (axis == Axis::history) {
    // Long enough to fill a declared session length (a cache's capacity):
    // a decode session as long as the subject says it takes.
    sizes = base;
    const Op by = declaring_op(subject.shapes, Op::decode);
    if (const Extent* n = subject.shapes.find(by, ShapeDim::n); n && n->largest() && *n->largest() <= kLongestHistory) {
      sizes.push_back(*n->largest());
      if (*n->largest() > base.back()) set_by = fmt::format("params.{}.shapes.n", name(by));
    }
  } else if (limits.declared && !limits.declared->values.empty()) {
    // A declared list: exactly its values (within a flag's cap).
    sizes = limits.declared->values;
    set_by = limits.declared_as;
  } else {
    const std::int64_t top = base.back();
    for (std::int64_t r : base) {
      if (limits.allows(r)) sizes.push_back(r);
    }
    // A declared range or a cap below the ladder's top ends it there; the
    // width flag above it raises it (--max-width 512 sends d = 512).
    if (limits.declared && limits.declared->max && *limits.declared->max < top) {
      sizes.push_back(*limits.declared->max);
      set_by = limits.declared_as;
    }
    if (limits.cap && (*limits.cap < top || axis == Axis::width)) {
      sizes.push_back(*limits.cap);
      if (!limits.declared || !limits.declared->max || *limits.cap <= *limits.declared->max) set_by = limits.capped_by;
    }
    // A declared length above the ladder's top (a session of 4,100 tokens, a
    // prefill of 8,192 rows) raises it there: the subject said it takes that
    // length, so a cell is not covered below it (issue 36).
    if (is_length(axis) && limits.declared && limits.declared->max && *limits.declared->max > top) {
      const bool capped = limits.cap && *limits.cap < *limits.declared->max;
      const std::int64_t reach = capped ? *limits.cap : *limits.declared->max;
      if (reach > top) {
        sizes.push_back(reach);
        set_by = capped ? limits.capped_by : limits.declared_as;
      }
    }
  }
  // A declared window or chunk: W + 1 (C + 1) tokens, so a key leaves the
  // window in some case; the gate stays there even where the limits stop
  // short of it (the cell is then uncovered, never green below the window).
  std::int64_t floor = 0;
  std::string floor_by;
  if (const auto reach = declared_reach(subject, op, axis); reach && (sizes.empty() || reach->size > sizes.back())) {
    sizes.push_back(reach->size);
    floor = reach->size;
    floor_by = reach->why;
  }
  std::erase_if(sizes, [&](std::int64_t v) { return !limits.allows(v) || v < 1; });
  // Within the per-request budget (core/size_limits.h) at the smallest
  // declared sizes of the op's other dimensions: a rotary declaring d = 8192
  // gets rows up to the budget's, and the gate says it was capped there.
  if (const auto dim = declared_dim(op, axis); dim && axis != Axis::history) {
    const std::int64_t most = most_within_budget(subject, op, *dim);
    if (!sizes.empty() && sizes.back() > most) {
      std::erase_if(sizes, [&](std::int64_t v) { return v > most; });
      if (limits.allows(most)) sizes.push_back(most);
      set_by = fmt::format("the request budget ({} numbers, core/size_limits.h)", kMostNumbersPerRequest);
    }
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  if (sizes.empty() && floor == 0) return out;
  out.sizes = std::move(sizes);
  out.set_by = std::move(set_by);
  out.gate_floor = floor;
  out.gate_floor_by = std::move(floor_by);
  return out;
}

Rungs ladder_rungs(const GenContext& ctx, Op op, Axis axis) {
  Rungs out = ladder_rungs(ctx.subject, ctx.max_position, ctx.max_width, op, axis);
  // --history N: a script of N requests too (state that drifts only after
  // 300 requests needs one longer than the ladder's 256), and the gate there.
  if (axis == Axis::history && ctx.history > 0 && !out.sizes.empty() && ctx.history > out.sizes.back()) {
    out.sizes.push_back(ctx.history);
    out.set_by = fmt::format("--history {}", ctx.history);
  }
  return out;
}

std::string gate_setters(Op op, Axis axis) {
  std::string out;
  if (const auto dim = declared_dim(op, axis)) {
    out = fmt::format("declare params.{}.shapes.{}", name(declared_under(op)),
                      name(*dim));
  }
  std::string flag;
  if (axis == Axis::width) flag = "--max-width";
  if (axis == Axis::positions || op_row(op).sequence == axis) {
    flag = "--max-position";
  }
  if (!flag.empty()) out += (out.empty() ? "gate with " : " or gate with ") + flag;
  return out;
}

void LadderGates::aim(Axis axis, std::int64_t size, const std::string& set_by) {
  Gate& g = gates_[axis];
  if (size > g.size) g = {size, set_by};
}

bool focused(const GenContext& ctx, Axis axis) { return ctx.focus && ctx.focus->axis == axis; }

std::vector<int> small_sizes(const GenContext& ctx, Op op, Axis axis, int lo, int small_hi, const ValidSize& valid) {
  const AxisLimits limits = axis_limits(ctx.subject, ctx.max_position, ctx.max_width, op, axis);
  auto ok = [&](std::int64_t v) {
    return v >= lo && v <= std::numeric_limits<int>::max() && limits.allows(v) && (!valid || valid(v));
  };
  std::vector<int> out;
  for (int v = lo; v <= small_hi; ++v) {
    if (ok(v)) out.push_back(v);
  }
  if (out.empty()) {
    // Nothing small is allowed (a subject declared d = 128): its smallest
    // allowed sizes instead, as many as the small range holds.
    const std::size_t want = static_cast<std::size_t>(std::max(1, small_hi - lo + 1));
    if (limits.declared && !limits.declared->values.empty()) {
      for (std::int64_t v : limits.declared->values) {
        if (out.size() < want && ok(v)) out.push_back(static_cast<int>(v));
      }
    } else {
      std::int64_t from = std::max<std::int64_t>(lo, limits.declared ? limits.declared->smallest() : lo);
      while (out.size() < want) {
        const auto v = first_from(from, kScan, ok);
        if (!v) break;
        out.push_back(static_cast<int>(*v));
        from = *v + 1;
      }
    }
  }
  // Nothing allowed at all: the smallest size, and the subject's refusal
  // (or the cell's coverage) says why.
  if (out.empty()) out.push_back(lo);
  return out;
}

namespace {

rc::Gen<int> drawn_size_on(const GenContext& ctx, Op op, Axis axis, int lo, int small_hi, ValidSize valid) {
  if (focused(ctx, axis)) {
    const Rungs rungs = ladder_rungs(ctx, op, axis);
    const AxisLimits limits = axis_limits(ctx.subject, ctx.max_position, ctx.max_width, op, axis);
    // A declared window's W + 1 first: where the limits reach as far, the top
    // rung's gate below is the same size and the window stays named.
    if (ctx.gates && rungs.gate_floor > 0) ctx.gates->aim(axis, rungs.gate_floor, rungs.gate_floor_by);
    // The allowed size nearest a rung: at or below it, else above it.
    auto nearest = [&](std::int64_t rung) -> std::optional<std::int64_t> {
      if (auto v = allowed_at_most(limits, lo, valid, rung)) return v;
      return allowed_at_least(limits, lo, valid, rung + 1);
    };
    if (!rungs.sizes.empty()) {
      const std::size_t k = std::min(ctx.focus->rung, rungs.sizes.size() - 1);
      const auto target = nearest(rungs.sizes[k]);
      // No size the property can use near the rung: the gate stands at the
      // top rung all the same, so a cell that never reaches a declared width
      // is uncovered, never green (issue 39: a rotary declaring d = 8192
      // passed on d = 2).
      if (!target && ctx.gates) ctx.gates->aim(axis, rungs.sizes.back(), rungs.set_by);
      if (target && *target <= std::numeric_limits<int>::max()) {
        if (ctx.gates) {
          if (const auto top = nearest(rungs.sizes.back())) ctx.gates->aim(axis, *top, rungs.set_by);
        }
        // Shrinking bisects toward lo through the allowed sizes below the
        // target, found one at a time (never listed: a declared range may
        // span a million sizes).
        auto down = [limits, lo, valid](std::int64_t v) { return allowed_at_most(limits, lo, valid, v); };
        const std::int64_t from = *target;
        return rc::Gen<int>([from, lo, down](const rc::Random&, int) {
          return rc::shrinkable::map(
              rc::shrinkable::shrinkRecur(from,
                                          [lo, down](std::int64_t x) {
                                            return rc::seq::filter(
                                                rc::seq::map(rc::shrink::towards<std::int64_t>(x, lo),
                                                             [down, x](std::int64_t c) { return down(c).value_or(x); }),
                                                [x](std::int64_t c) { return c < x; });
                                          }),
              [](std::int64_t v) { return static_cast<int>(v); });
        });
      }
    }
  }
  const std::vector<int> sizes = small_sizes(ctx, op, axis, lo, small_hi, valid);
  if (sizes.size() == 1) return rc::gen::just(sizes.front());
  // rc::gen::inRange over the indices: the same draws and shrinks as
  // rc::gen::inRange(lo, small_hi + 1) where every size is allowed.
  return rc::gen::map(rc::gen::inRange<int>(0, static_cast<int>(sizes.size())),
                      [sizes](int i) { return sizes[static_cast<std::size_t>(i)]; });
}

}  // namespace

rc::Gen<int> size_on(const GenContext& ctx, Op op, Axis axis, int lo, int small_hi, ValidSize valid) {
  // Once a graceful stop is asked (SIGTERM, Ctrl-C), the cases RapidCheck
  // still draws pass vacuously (runner/cell.cpp): each is drawn at the
  // smallest size, so a cell of large cases ends within the 2 s a stop
  // allows instead of drawing megabytes it will not send (issue 39).
  const rc::Gen<int> drawn = drawn_size_on(ctx, op, axis, lo, small_hi, std::move(valid));
  return rc::Gen<int>([drawn, lo](const rc::Random& random, int size) {
    if (interrupt_signal() != 0) return rc::shrinkable::just(lo);
    return drawn(random, size);
  });
}

Position position_limit(const GenContext& ctx, Op op) {
  Position limit = ctx.max_position;
  if (op_row(op).positional) {
    if (const Extent* n = ctx.subject.shapes.find(op, ShapeDim::n); n && n->largest()) {
      limit = std::min<Position>(limit, *n->largest() - 1);
    }
  }
  return std::max<Position>(limit, 0);
}

Position sequence_length(const GenContext& ctx, Op op, Position last, Position extra) {
  const Position limit = position_limit(ctx, op) + 1;
  Position length = std::min(last + 1 + std::max<Position>(extra, 0), limit);
  length = std::max(length, last + 1);
  if (op_row(op).positional) {
    if (const Extent* n = ctx.subject.shapes.find(op, ShapeDim::n)) {
      // One of the declared lengths: the smallest that holds the positions and the extra tokens, else the
      // smallest that holds the positions.
      if (!n->values.empty()) {
        auto fits = std::lower_bound(n->values.begin(), n->values.end(), length);
        if (fits == n->values.end()) fits = std::lower_bound(n->values.begin(), n->values.end(), last + 1);
        if (fits != n->values.end()) length = *fits;
      } else {
        length = std::max<Position>(length, n->min);
        if (n->max) length = std::min<Position>(length, *n->max);
      }
    }
  }
  return length;
}

}  // namespace pecheck
