#include "runner/coverage_probe.h"

#include <fmt/format.h>

#include <algorithm>

#include "pecheck/core/interrupt.h"
#include "pecheck/core/op_table.h"
#include "pecheck/core/overloaded.h"

namespace pecheck {

namespace {

void raise(std::optional<Position>& to, std::optional<Position> value) {
  if (value && (!to || *value > *to)) to = value;
}

std::size_t at(Axis axis) { return static_cast<std::size_t>(axis); }

void raise_all(AxisSizes& to, const AxisSizes& from) {
  for (std::size_t i = 0; i < to.size(); ++i) to[i] = std::max(to[i], from[i]);
}

// Whether a request lies inside what the subject declared for its op
// (params.<op>.shapes): every declared dimension holds the request's size.
// For encode and rotate, n is the sequence length: the request's seq_len
// (else its largest position + 1) is one the declaration allows.
bool inside_declared(const SubjectInfo& subject, Op op, const AxisSizes& s, std::optional<Position> length) {
  const Op by = declaring_op(subject.shapes, op);
  const auto declared = subject.shapes.ops.find(by);
  if (declared == subject.shapes.ops.end()) return false;
  auto holds = [](const Extent& e, std::int64_t size) { return size <= 0 || e.contains(size); };
  for (const auto& [dim, extent] : declared->second) {
    switch (dim) {
      case ShapeDim::d:
        if (!holds(extent, s[at(Axis::width)])) return false;
        break;
      case ShapeDim::heads:
        if (op == Op::bias) {  // a bias request names one head below the count
          const auto top = extent.largest();
          if (top && s[at(Axis::heads)] > *top) return false;
        } else if (!holds(extent, s[at(Axis::heads)])) {
          return false;
        }
        break;
      case ShapeDim::kv_heads: break;  // no request carries kv heads yet
      case ShapeDim::n:
        if (op_row(op).positional) {
          if (length && !extent.contains(*length)) return false;
        } else if (op == Op::decode) {
          const auto top = extent.largest();
          if (top && s[at(Axis::tokens)] > *top) return false;
        } else if (!holds(extent, std::max({s[at(Axis::queries)], s[at(Axis::tokens)]}))) {
          return false;
        }
        break;
      case ShapeDim::m:
        if (!holds(extent, s[at(Axis::keys)])) return false;
        break;
      case ShapeDim::batch:
        if (!holds(extent, s[at(Axis::batch)])) return false;
        break;
    }
  }
  return true;
}

}  // namespace

CoverageProbe::CoverageProbe(Subject& inner) : inner_(&inner), state_(std::make_shared<State>()) {}

Subject& CoverageProbe::watch(Subject& other) {
  watch_.reset(new CoverageProbe(other, state_));
  return *watch_;
}

// Performs the call and records its sizes, as answered (pending until the
// case is committed) or refused.
Answer CoverageProbe::perform(const Call& call) {
  // After a graceful stop no call goes out: a process subject is killed by
  // the stop, but an in-process one (a built-in, a plugin, the C++ adapter)
  // would compute on, a call of seconds each, past the 2 s a stop allows
  // (issue 39). The cell records a failure after the signal as the stop.
  if (const int sig = interrupt_signal(); sig != 0) {
    throw SubjectFailure(fmt::format("not sent: the run was interrupted by {}", interrupt_name(sig)));
  }
  const std::string* session = nullptr;
  if (const auto* c = std::get_if<DecodeCall>(&call)) session = &c->session;
  if (const auto* c = std::get_if<DecodeTokensCall>(&call)) session = &c->session;
  if (const auto* c = std::get_if<ResetCall>(&call)) session = &c->session;
  const std::int64_t decoded = session != nullptr && !std::holds_alternative<ResetCall>(call)
                                   ? state_->decoded[*session]
                                   : 0;
  Reach r = reach_of(call, decoded);
  Answer answer = observe(r, call);
  if (session != nullptr && !std::holds_alternative<Refused>(answer)) {
    if (std::holds_alternative<ResetCall>(call)) state_->decoded.erase(*session);
    else state_->decoded[*session] = r.sizes[at(Axis::tokens)];
  }
  return answer;
}

Answer CoverageProbe::observe(Reach r, const Call& call) {
  State& st = *state_;
  AxisSizes& s = r.sizes;
  if (r.position) s[at(Axis::positions)] = *r.position;
  const int width = static_cast<int>(s[at(Axis::width)]);
  const std::optional<Position> sequence =
      r.length ? r.length : r.position ? std::optional<Position>(*r.position + 1) : std::nullopt;
  // The history is every request the case sent, the refused ones too: the
  // subject went through them all.
  ++st.case_requests;
  st.last_width = width;
  Answer answer;
  try {
    answer = inner_->perform(call);
  } catch (const Refusal& refusal) {
    answer = Refused{refusal.what()};
  }
  const auto* refused = std::get_if<Refused>(&answer);
  if (refused == nullptr) {
    if (sequence) st.answered_length = std::max(st.answered_length, *sequence);
    raise(st.case_position, r.position);
    st.case_width = std::max(st.case_width, width);
    raise_all(st.case_sizes, s);
    return answer;
  }
  st.refused.emplace_back(r.position, width);
  if (sequence) st.refused_lengths.emplace_back(*sequence, width);
  st.refused_width = std::max(st.refused_width, width);
  st.case_refused_width = std::max(st.case_refused_width, width);
  raise_all(st.refused_sizes, s);
  if (st.declared_fail) fail_if_declared(r, refused->reason);
  return answer;
}

// A refusal inside the shapes the subject declares is a subject failure.
void CoverageProbe::fail_if_declared(const Reach& r, const std::string& reason) const {
  const Op op = r.op;
  std::optional<Position> length = r.length;
  // A request with no sequence length names one by its largest position.
  if (!length && r.position && op_row(op).positional) length = *r.position + 1;
  const SubjectInfo& subject = inner_->info();
  if (!inside_declared(subject, op, r.sizes, length)) return;
  const Op by = declaring_op(subject.shapes, op);
  throw SubjectFailure(fmt::format("the subject refused a {} request inside the shapes it declares "
                                   "(params.{}.shapes: {}): {}",
                                   name(op), name(by), subject.shapes.describe(by), reason));
}

void CoverageProbe::begin_case() {
  State& st = *state_;
  st.case_position.reset();
  st.case_width = 0;
  st.case_sizes = {};
  st.case_requests = 0;
  st.case_refused_width = 0;
}

void CoverageProbe::commit_case() {
  State& st = *state_;
  raise(st.checked_position, st.case_position);
  // A judged case checked the widths it asked, answered or refused as it should be.
  st.checked_width = std::max({st.checked_width, st.case_width, st.case_refused_width});
  raise_all(st.checked_sizes, st.case_sizes);
  st.checked_sizes[at(Axis::history)] = std::max(st.checked_sizes[at(Axis::history)], st.case_requests);
}

void CoverageProbe::uncheckable_case() { raise(state_->uncheckable_position, state_->case_position); }

void CoverageProbe::fill(Coverage& c) const {
  const State& st = *state_;
  c.max_position = st.checked_position;
  c.max_width = st.checked_width;
  c.max_uncheckable_position = st.uncheckable_position;
  // A subject that refuses a pattern (odd d, d not divisible by its heads, a
  // rotary width its fraction rounds to 0) refuses as much below the largest
  // width or position it answered as above it; one that refuses a range
  // refuses mostly above it. Only a range is a shortfall of coverage.
  int within = 0, beyond = 0, positions_within = 0, positions_beyond = 0;
  std::optional<Position> refused_position;
  for (const auto& [position, width] : st.refused) {
    if (width <= st.checked_width) {
      ++within;
      if (!position) continue;
      raise(refused_position, position);
      const bool far =
          static_cast<double>(*position) > 1.1 * static_cast<double>(st.checked_position.value_or(-1) + 1);
      ++(far ? positions_beyond : positions_within);
    } else {
      ++beyond;
    }
  }
  if (positions_beyond > positions_within) c.max_refused_position = refused_position;
  // The shortest sequence refused at a width the subject handles, of those
  // longer than any it answered: where its table or cache ends.
  for (const auto& [length, width] : st.refused_lengths) {
    if (width > st.checked_width || length <= st.answered_length) continue;
    if (!c.shortest_refused_length || length < *c.shortest_refused_length) c.shortest_refused_length = length;
  }
  c.max_refused_width = beyond > within ? st.refused_width : 0;
  // Every axis a request reached or a refusal named; the gates come from the ladder (runner/cell.cpp).
  for (Axis axis : kAxes) {
    const std::int64_t reached = st.checked_sizes[at(axis)], refused = st.refused_sizes[at(axis)];
    if (reached == 0 && refused == 0 && c.axes.count(axis) == 0) continue;
    AxisCoverage& a = c.axes[axis];
    a.reached = reached;
    a.refused = refused;
  }
}

std::string coverage_shortfall(const Coverage& c, bool positional, Op op) {
  if (positional && c.position_gate > 0) {
    const Position checked = c.max_position.value_or(-1);
    auto beyond = [checked](const std::optional<Position>& p) {
      return p && static_cast<double>(*p) > 1.1 * static_cast<double>(checked + 1);
    };
    const bool refused_beyond = beyond(c.max_refused_position);
    if (refused_beyond || beyond(c.max_uncheckable_position)) {
      const std::string why =
          refused_beyond ? fmt::format("the subject refused positions up to {}", *c.max_refused_position)
                         : fmt::format("cases up to position {} were not checkable at the subject's precision ({})",
                                       *c.max_uncheckable_position, c.not_checkable_reason);
      // The advice: the longest sequence consistent with what was refused
      // (a table of L rows refuses L + 1 tokens: --max-position L − 1), else what was checked.
      const Position advice = refused_beyond && c.shortest_refused_length && *c.shortest_refused_length - 2 > checked
                                  ? *c.shortest_refused_length - 2
                                  : std::max<Position>(checked, 1);
      return fmt::format("checked positions only up to {} of the gate's {}: {}; gate what the subject handles with "
                         "--max-position {}{} (or fix the subject)",
                         checked < 0 ? std::string("none") : std::to_string(checked), c.position_gate, why, advice,
                         refused_beyond && c.shortest_refused_length
                             ? fmt::format(" (it refused sequences of {} tokens)", *c.shortest_refused_length)
                             : std::string());
    }
  }
  // The axes the shape ladder gates: a judged case must have reached each gate.
  for (const auto& [axis, a] : c.axes) {
    if (axis == Axis::positions || a.gate <= 0 || a.reached >= a.gate) continue;
    std::string why;
    if (a.refused >= a.gate) {
      why = fmt::format("the subject refused {} {}", name(axis), a.refused);
      for (const auto& [reason, count] : c.refusals) {
        why += fmt::format(" (\"{}\")", reason);
        break;
      }
    } else if (c.not_checkable > 0) {
      why = fmt::format("the larger cases were not checkable at the subject's precision ({})", c.not_checkable_reason);
    } else {
      why = "no judged case reached it";
    }
    const std::string setters = gate_setters(op, axis);
    if (setters.empty()) {
      return fmt::format("checked {} only up to {} of the gate's {} (set by {}): {}; fix the subject", name(axis),
                         a.reached, a.gate, a.set_by, why);
    }
    return fmt::format("checked {} only up to {} of the gate's {} (set by {}): {}; {} {} (or fix the subject)",
                       name(axis), a.reached, a.gate, a.set_by, why, setters,
                       a.reached > 0 ? fmt::format("at {}", a.reached) : std::string("to what it supports"));
  }
  if (c.max_refused_width > 0 && static_cast<double>(c.max_refused_width) > 1.1 * static_cast<double>(c.max_width)) {
    return fmt::format("checked widths only up to {}: the subject refused widths up to {}; gate what the subject "
                       "handles with --max-width {} (or fix the subject)",
                       c.max_width, c.max_refused_width, std::max(c.max_width, 1));
  }
  return {};
}

}  // namespace pecheck
