// pecheck identify for a rotary (identify/search.h): layouts × widths ×
// bases × scalings read off the answers at two widths and a second length,
// each judged over the answers (identify/rotary.h), the best named.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "angle_error.h"
#include "identify/rotary.h"
#include "identify/search.h"
#include "pecheck/property/compare.h"
#include "pecheck/reference/rotary.h"
#include "pecheck/subjects/typed_subject.h"

namespace pecheck::identify {

namespace rotary {

namespace {

// LongRoPE read off the answers: a rotation that changes with the length by
// a different divisor per pair. The factor lists are ω_i(10000)/ω read at a
// length on each side of the switch, the switch found by bisecting the length
// (the first length that turns like the longer probe is L + 1), the magnitude
// the measured one. For a decoupled head the probes are its rope slice, and
// the bisection asks heads of `nope` + r features and reads their last r.
std::optional<RopeScaling> read_longrope(Subject& subject, const Probe& short_probe, const Probe& long_probe,
                                         Layout layout, const Precision& precision, double magnitude, int nope) {
  const int r = short_probe.dim;
  const auto w_short = read_frequencies(short_probe, layout, r), w_long = read_frequencies(long_probe, layout, r);
  if (w_short.empty() || w_long.size() != w_short.size()) return std::nullopt;
  RotateConvention plain;
  plain.base = 10000;
  const auto schedule = reference::rotary_inv_freq(r, plain, std::nullopt);
  RopeScaling s;
  s.type = ScalingType::longrope;
  for (size_t i = 0; i < schedule.size(); ++i) {
    if (!(w_short[i] > 0) || !(w_long[i] > 0)) return std::nullopt;
    s.short_factor.push_back(schedule[i] / w_short[i]);
    s.long_factor.push_back(schedule[i] / w_long[i]);
  }
  // The switch: bisect the length between the two probes on a small probe.
  const Positions at = {1, 2};
  const Matrix x = detail::probe_vectors(2, nope + r, 0x5717);
  auto turns_long = [&](Position length) -> std::optional<bool> {
    try {
      const Matrix shorter = ask::rotate(subject, at, x, short_probe.seq_len).rightCols(r);
      const Matrix here = ask::rotate(subject, at, x, length).rightCols(r);
      const double tol = precision.bound(10, 10, 2 * max_abs(x));
      return (here - shorter).cwiseAbs().maxCoeff() > tol;
    } catch (const Refusal&) {
      return std::nullopt;
    }
  };
  Position lo = short_probe.seq_len, hi = long_probe.seq_len;
  while (hi - lo > 1) {
    const Position mid = lo + (hi - lo) / 2;
    const auto longer = turns_long(mid);
    if (!longer) return std::nullopt;
    (*longer ? hi : lo) = mid;
  }
  s.original_max_position = lo;
  if (std::fabs(magnitude - 1) > 1e-6) s.attention_factor = magnitude;
  return s;
}

// Probes that move one axis at a time (position 1 on it, 0 on the others),
// at the width of `like`.
std::vector<Probe> axis_probes(Subject& subject, const Probe& like) {
  std::vector<Probe> out;
  const size_t count = subject.info().rotate.mrope_section.size();
  for (size_t a = 0; a < count; ++a) {
    std::vector<Positions> axes(count, Positions{0, 0});
    axes[a] = {1, 3};
    if (auto p = ask(subject, like.dim, {1, 3}, 4, 0xa7e5 + a, axes)) out.push_back(std::move(*p));
  }
  return out;
}

// Which axis each pair of `convention`'s rotated block turns by, as sections
// (and whether interleaved); none when the pattern is neither. `seen` gets
// the pattern, one letter per pair.
std::optional<std::pair<std::vector<int>, bool>> read_axes(Subject& subject, const Probe& like,
                                                           const RotateConvention& convention,
                                                           const Precision& precision, std::string& seen) {
  const auto probes = axis_probes(subject, like);
  if (probes.size() != 3) return std::nullopt;
  int r = 0;
  try {
    r = reference::rotary_block(like.dim, convention);
  } catch (const Refusal&) {
    return std::nullopt;
  }
  std::vector<int> axis_of(static_cast<size_t>(r / 2), -1);
  for (size_t a = 0; a < probes.size(); ++a) {
    const Probe& p = probes[a];
    for (int i = 0; i < r / 2; ++i) {
      const int oa = reference::rotary_output_first_column(i, r, convention.layout);
      const int ob = reference::rotary_output_second_column(i, r, convention.layout);
      const int ia = reference::rotary_first_column(i, r, convention.layout);
      const int ib = reference::rotary_second_column(i, r, convention.layout);
      const double moved = std::fabs(p.answer(0, oa) - p.x(0, ia)) + std::fabs(p.answer(0, ob) - p.x(0, ib));
      const double tol = precision.bound(10, 10, std::fabs(p.x(0, ia)) + std::fabs(p.x(0, ib)));
      if (moved > tol) axis_of[static_cast<size_t>(i)] = static_cast<int>(a);
    }
  }
  seen.clear();
  for (int a : axis_of) seen += a < 0 ? '.' : "thw"[a];
  std::vector<int> counts(3, 0);
  for (int a : axis_of) {
    if (a < 0) return std::nullopt;
    ++counts[static_cast<size_t>(a)];
  }
  for (const bool interleaved : {false, true}) {
    RotateConvention c = convention;
    c.mrope_section = counts;
    c.mrope_interleaved = interleaved;
    bool same = true;
    for (int i = 0; i < r / 2 && same; ++i) same = reference::rotary_axis(i, r, c) == axis_of[static_cast<size_t>(i)];
    if (same) return std::make_pair(counts, interleaved);
  }
  return std::nullopt;
}


// A second length at the widest width: the probe asked again at
// `long_length` when the rotation changes with the length (only such a
// rotation is a dynamic scaling), else none.
std::optional<Probe> ask_longer(Subject& subject, const Probe& wide, Position long_length,
                                const Precision& precision) {
  try {
    Probe p = wide;
    p.seq_len = long_length;
    p.answer = p.axes.empty() ? ask::rotate(subject, p.positions, p.x, long_length)
                              : ask::rotate_axes(subject, p.axes, p.x, long_length);
    const double tol = precision.bound(5, max_angle_work(static_cast<double>(p.positions.back()), {1.0}, 3),
                                       2 * max_abs(p.x));
    if (p.answer.rows() == wide.answer.rows() && p.answer.cols() == wide.answer.cols() &&
        (p.answer - wide.answer).cwiseAbs().maxCoeff() > tol) {
      return p;
    }
  } catch (const Refusal&) {
  }
  return std::nullopt;
}

// The full width, and the width the answers change over (it may read short
// where slow pairs hide under a 16-bit precision: scored, not trusted).
std::vector<RotateConvention> rotary_widths(Layout layout, const Reading& reading, int dim) {
  RotateConvention base_convention;
  base_convention.layout = layout;
  std::vector<RotateConvention> widths = {base_convention};
  if (reading.rotated > 0 && reading.rotated < dim) {
    RotateConvention fixed = base_convention, fraction = base_convention;
    fixed.rotary_dim = reading.rotated;
    fraction.rotary_fraction = static_cast<double>(reading.rotated) / dim;
    widths.push_back(fixed);
    widths.push_back(fraction);
  }
  return widths;
}

// The common bases and the one fitted to the pairs' angles.
std::vector<double> rotary_bases(const Reading& reading) {
  std::vector<double> bases(std::begin(detail::kCommonBases), std::end(detail::kCommonBases));
  if (!reading.omegas.empty() && reading.omegas[0] > 0) {
    if (auto b = fit_base(reading.omegas, reading.omegas[0])) bases.push_back(detail::round_significant(*b, 4));
  }
  return bases;
}

// The scalings the answers at one length suggest: none, linear by the first
// pair's slowdown, Llama 3's published ones, YaRN by the measured magnitude,
// YaRN as DeepSeek declares it.
std::vector<RopeScaling> read_scalings(const Reading& reading) {
  std::vector<RopeScaling> scalings = {RopeScaling{}};
  if (!reading.omegas.empty() && reading.omegas[0] > 0 && reading.omegas[0] < 0.999) {
    RopeScaling linear;
    linear.type = ScalingType::linear;
    linear.factor = detail::round_significant(1 / reading.omegas[0], 4);
    scalings.push_back(linear);
  }
  for (double factor : {8.0, 32.0}) {  // Llama 3.1's and 3.2's published configurations
    RopeScaling llama3;
    llama3.type = ScalingType::llama3;
    llama3.factor = factor;
    llama3.original_max_position = 8192;
    scalings.push_back(llama3);
  }
  if (reading.magnitude > 1.0001) {  // YaRN: m = 0.1·ln F + 1
    const double factor = detail::round_significant(std::exp((reading.magnitude - 1) / 0.1), 3);
    for (Position original : {2048, 4096, 8192, 32768}) {
      RopeScaling yarn;
      yarn.type = ScalingType::yarn;
      yarn.factor = factor;
      yarn.original_max_position = original;
      scalings.push_back(yarn);
    }
  }
  if (std::fabs(reading.magnitude - 1) <= 1e-3) {
    // YaRN as DeepSeek declares it: mscale = mscale_all_dim, magnitude 1 (DeepSeek-V2/V3, Kimi K2).
    for (double factor : {4.0, 16.0, 32.0, 40.0}) {
      for (Position original : {4096, 8192}) {
        RopeScaling yarn;
        yarn.type = ScalingType::yarn;
        yarn.factor = factor;
        yarn.original_max_position = original;
        yarn.mscale = yarn.mscale_all_dim = 1.0;
        scalings.push_back(yarn);
      }
    }
  }
  return scalings;
}

// The scalings of a rotation that changes with the length: LongRoPE read off
// the answers at both lengths, and dynamic NTK at the usual configurations.
void add_length_scalings(std::vector<RopeScaling>& scalings, Subject& subject, const Probe& wide, const Probe& longer,
                         Layout layout, const Precision& precision, double magnitude, int nope = 0) {
  if (auto longrope = read_longrope(subject, wide, longer, layout, precision, magnitude, nope)) {
    scalings.push_back(*longrope);
  }
  for (Position original : {512, 1024, 2048, 4096, 8192}) {
    for (double factor : {2.0, 4.0, 8.0}) {
      RopeScaling dynamic;
      dynamic.type = ScalingType::dynamic_ntk;
      dynamic.factor = factor;
      dynamic.original_max_position = original;
      scalings.push_back(dynamic);
    }
  }
}

// widths × bases × scalings, and beside the plain conventions the defects
// that read as one: positions ignored (at any base), the inverse rotation and
// the identity (at base 10000).
void add_conventions(std::vector<Hypothesis>& hypotheses, const std::vector<RotateConvention>& widths,
                     const std::vector<double>& bases, const std::vector<RopeScaling>& scalings) {
  for (const auto& w : widths) {
    for (double b : bases) {
      for (const auto& s : scalings) {
        Hypothesis h;
        h.convention = w;
        h.convention.base = b;
        h.convention.scaling = s;
        h.words = describe(h.convention);
        hypotheses.push_back(h);
        if (s.type == ScalingType::none && &w == &widths.front()) {
          // Positions ignored (arange(n) in their place), at any base: a defect that reads as a slow base.
          Hypothesis ignored = h;
          ignored.row_index = true;
          ignored.declarable = false;
          ignored.words = "positions ignored: row r rotated as position r (arange(n)) under " + h.words +
                          " (a defect, not a convention)";
          hypotheses.push_back(ignored);
        }
        if (s.type == ScalingType::none && b == 10000 && &w == &widths.front()) {
          Hypothesis inverse = h, identity = h;
          inverse.sign = -1;
          inverse.declarable = false;
          inverse.words = "the inverse rotation R_{−t} of " + h.words + " (a defect, not a convention)";
          identity.identity = true;
          identity.declarable = false;
          identity.words = "the identity map: x returned unchanged (a defect, not a convention)";
          hypotheses.push_back(inverse);
          hypotheses.push_back(identity);
        }
      }
    }
  }
}

// DeepSeek MLA's decoupled head read off the answers: the leading features
// that never change are its nope part (they pass through), the rest its rope
// slice, whose layouts, bases and scalings are read as a rotary's of that
// width. Only answers whose first features never change ask for these, and
// a subject that declares a decoupled head (at its declared split, with the
// defect of its nope features returned as zeros beside each plain one).
// Where the answers change with the length (`longer`, the same probe at a
// longer one), the slice's length-dependent scalings too (dynamic NTK,
// LongRoPE), as a rotary's.
void add_decoupled(std::vector<Hypothesis>& hypotheses, Subject& subject, const Probe& wide, const Probe* longer,
                   int nope, const RotateConvention& declared, const Precision& precision) {
  const bool read_off = nope > 0;
  if (!read_off && declared.decoupled() && wide.dim == *declared.qk_rope_head_dim + declared.qk_nope_head_dim.value_or(0)) {
    nope = declared.qk_nope_head_dim.value_or(0);
  }
  if (nope <= 0 || nope >= wide.dim) return;
  const int rope = wide.dim - nope;
  auto slice_of = [rope](const Probe& p) {
    Probe slice = p;
    slice.dim = rope;
    slice.x = p.x.rightCols(rope);
    slice.answer = p.answer.rightCols(rope);
    return slice;
  };
  const Probe slice = slice_of(wide);
  for (Layout layout : {Layout::interleaved, Layout::halves, Layout::interleave_then_halves}) {
    const Reading reading = read(slice, layout, precision);
    RotateConvention head;
    head.layout = layout;
    head.qk_rope_head_dim = rope;
    head.qk_nope_head_dim = nope;
    std::vector<RopeScaling> scalings = read_scalings(reading);
    if (longer != nullptr && longer->dim == wide.dim) {
      add_length_scalings(scalings, subject, slice, slice_of(*longer), layout, precision, reading.magnitude, nope);
    }
    const size_t from = hypotheses.size();
    add_conventions(hypotheses, {head}, rotary_bases(reading), scalings);
    if (read_off) continue;
    for (size_t k = from, end = hypotheses.size(); k < end; ++k) {
      const Hypothesis& h = hypotheses[k];
      if (!h.declarable || is_scaled(h.convention)) continue;
      Hypothesis zeroed = h;
      zeroed.nope_zeroed = true;
      zeroed.declarable = false;
      zeroed.words = fmt::format("the nope features returned as zeros (an output buffer written only where the rope "
                                 "slice goes) under {} (a defect, not a convention)", h.words);
      hypotheses.push_back(std::move(zeroed));
    }
  }
}

// A subject that declares a decoupled head and turns a block at the head's
// start instead: named for the slip it is (the rotary applied to the nope
// slice, as a port of GPT-J's partial rotary would).
void name_slice_slip(Hypothesis& best, const RotateConvention& declared, int dim) {
  if (!declared.decoupled() || best.convention.decoupled() || best.identity) return;
  const int rope = *declared.qk_rope_head_dim, nope = declared.qk_nope_head_dim.value_or(0);
  const int r = best.convention.rotary_width(dim);
  if (dim != rope + nope || r >= dim) return;
  best.words += fmt::format(" — the first {} of the head's {} features turn, where the declared decoupled head "
                            "(qk_nope_head_dim {} + qk_rope_head_dim {}) turns its last {}{}",
                            r, dim, nope, rope, rope,
                            r <= nope ? ": the rotary applied to the nope slice" : "");
}

// A vision 2-D rotary (Pixtral, Qwen2-VL's vision tower; a subject that
// declares rope_2d takes two position streams): each layout's reading, the
// common bases and the one fitted to the row's pairs (the first quarter of the
// block turns at base^(−4i/r) under both splits), each frequency split, and
// beside each the defect of a (row, column) table of 64 patches a side
// (Pixtral's max_patches_per_side) indexed past its end. The streams are equal
// here; which one is the row is read by judge_2d_axes.
void add_2d(std::vector<Hypothesis>& hypotheses, const Probe& wide, const Precision& precision) {
  for (Layout layout : {Layout::interleaved, Layout::halves}) {
    const Reading reading = read(wide, layout, precision);
    std::vector<double> bases(std::begin(detail::kCommonBases), std::end(detail::kCommonBases));
    if (reading.omegas.size() >= 4 && reading.omegas[0] > 0) {
      const std::vector<double> rows(reading.omegas.begin(), reading.omegas.begin() + reading.omegas.size() / 2);
      if (auto b = fit_base(rows, rows[0])) {
        const double fitted = detail::round_significant(*b, 4);
        bool known = false;
        for (double c : detail::kCommonBases) known = known || detail::near(fitted, c, 2e-3);
        if (!known) bases.push_back(fitted);
      }
    }
    for (Frequencies2d split : {Frequencies2d::even_odd, Frequencies2d::halves}) {
      RotateConvention c;
      c.layout = layout;
      c.rope_2d = Rope2d{split, false};
      for (double b : bases) {
        Hypothesis h;
        h.convention = c;
        h.convention.base = b;
        h.words = describe(h.convention);
        hypotheses.push_back(h);
        for (const bool wraps : {true, false}) {
          Hypothesis table = h;
          table.cache_rows = 64;
          table.cache_wraps = wraps;
          table.declarable = false;
          table.words = fmt::format("a (row, column) table of 64 patches a side {} under {} (a defect, not a "
                                    "convention)",
                                    wraps ? "indexed modulo 64 (rows and columns past 63 turn as near ones)"
                                          : "whose rows and columns past 63 are clamped to its last",
                                    h.words);
          hypotheses.push_back(std::move(table));
        }
      }
    }
  }
}

// A 2-D rotary's streams told apart: a probe whose row and column differ
// (the rows as probed, the columns reversed), every hypothesis and its twin
// with the streams exchanged judged again with it, ranked anew.
void judge_2d_axes(Subject& subject, std::vector<detail::Ranked<Hypothesis>>& ranked, const Probe& wide,
                   const std::vector<Probe>& probes, const Precision& precision) {
  Positions cols(wide.positions.rbegin(), wide.positions.rend());
  auto apart = ask(subject, wide.dim, wide.positions, wide.seq_len, 0x2d2d, {wide.positions, cols});
  if (!apart) return;
  std::vector<Probe> with_apart = probes;
  with_apart.push_back(std::move(*apart));
  std::vector<Hypothesis> again;
  for (const auto& r : ranked) {
    again.push_back(r.hypothesis);
    if (!r.hypothesis.convention.rope_2d) continue;
    Hypothesis exchanged = r.hypothesis;
    exchanged.convention.rope_2d->columns_first = !exchanged.convention.rope_2d->columns_first;
    const std::string was = describe(r.hypothesis.convention);
    if (const auto at = exchanged.words.find(was); at != std::string::npos) {
      exchanged.words.replace(at, was.size(), describe(exchanged.convention));
    }
    again.push_back(std::move(exchanged));
  }
  const Dtype dtype = subject.info().dtype;
  ranked = rank(again, [&](const Hypothesis& h) { return score(h, with_apart, precision, dtype); });
}

// A 2-D rotary that turns otherwise than it declares, named for the slip
// (rows and columns swapped, the other frequency split).
void name_2d_slip(Hypothesis& h, const RotateConvention& declared_convention) {
  const auto& declared = declared_convention.rope_2d;
  const auto& found = h.convention.rope_2d;
  if (!declared || !found || h.cache_rows > 0) return;
  if (found->columns_first != declared->columns_first) {
    h.words += fmt::format(" — the pairs declared for the row turn by the column and the other way round, where "
                           "axes [{}] are declared: rows and columns swapped (the position ids' (h, w) read as (w, h))",
                           declared->columns_first ? "w, h" : "h, w");
  }
  if (found->frequencies != declared->frequencies) {
    h.words += fmt::format(" — the column's pairs turn at the {} frequencies where {} is declared{}",
                           name(found->frequencies), name(declared->frequencies),
                           found->frequencies == Frequencies2d::halves
                               ? " (Qwen2-VL's split, freqs[::2] for both axes, where Pixtral takes freqs[1::2] for "
                                 "the columns)"
                               : " (Pixtral's freqs[1::2] for the columns where Qwen2-VL's vision tower uses one set "
                                 "for both)");
  }
}

// Multi-axis positions (a subject that declares mrope_section takes them):
// which axis each pair of the best turns by, read from probes that move one
// axis at a time, and the best re-judged with them; a pattern neither
// sections nor interleaving make is no convention.
void judge_axes(Subject& subject, detail::Ranked<Hypothesis>& best, const Probe& wide, const std::vector<Probe>& probes,
                const Precision& precision) {
  std::string seen;
  Hypothesis& h = best.hypothesis;
  if (auto axes = read_axes(subject, wide, h.convention, precision, seen)) {
    h.convention.mrope_section = axes->first;
    h.convention.mrope_interleaved = axes->second;
    h.words = describe(h.convention);
    std::vector<Probe> with_axes = probes;
    for (auto& p : axis_probes(subject, wide)) with_axes.push_back(std::move(p));
    best.score = score(h, with_axes, precision, subject.info().dtype);
  } else {
    h.words += fmt::format(" — its pairs turn by the axes {}, neither sections nor Qwen3-VL's interleaving", seen);
    h.declarable = false;
    best.score.ratio = INFINITY;
  }
}

// pecheck identify for a rotary (identify/search.h): layouts × widths × bases
// × scalings read off the answers at two widths (and a second length when
// the rotation depends on it), ranked.
struct RotaryIdentification {
  using Probe = rotary::Probe;
  using Hypothesis = rotary::Hypothesis;
  Subject& subject;
  const Precision& precision;
  Positions positions;
  Position length = 1;       // the probes' sequence length
  Position long_length = 1;  // the second length
  std::uint64_t seed = 0x1de4;
  std::optional<Probe> longer;  // the widest probe at long_length, when the rotation depends on the length

  std::string op() const { return "rotate"; }
  std::vector<int> widths() const {
    // Per-pair lists a subject declares (LongRoPE's, freq_factors, mrope sections) fix its width.
    std::vector<int> out = {128, 64, 256, 96, 32, 16, 8, 4, 2};
    if (const int pairs = subject.info().rotate.fixed_pairs(); pairs > 0) out.insert(out.begin(), 2 * pairs);
    // A decoupled head (DeepSeek MLA) is one width: its nope and rope features together.
    if (const int head = decoupled_head(); head > 0) out.insert(out.begin(), head);
    return out;
  }
  int decoupled_head() const {
    const RotateConvention& c = subject.info().rotate;
    return c.decoupled() ? *c.qk_rope_head_dim + c.qk_nope_head_dim.value_or(0) : 0;
  }
  std::string refused() const {
    const int head = decoupled_head();
    return fmt::format("nothing: the subject refused every probe width (2 to 256{})",
                       head > 0 ? fmt::format(", and its declared head of {} features", head) : "");
  }
  // A 2-D rotary's requests carry a row and a column per row of x: here the same position on both.
  bool two_d() const { return subject.info().rotate.rope_2d.has_value(); }
  std::optional<Probe> ask(int d) {
    if (two_d()) return rotary::ask(subject, d, positions, length, seed++, {positions, positions});
    return rotary::ask(subject, d, positions, length, seed++);
  }
  std::vector<Probe> judged(const std::vector<Probe>& probes) {
    longer = ask_longer(subject, widest(probes), long_length, precision);
    std::vector<Probe> all = probes;
    if (longer) all.push_back(*longer);
    return all;
  }
  // The widest probe comes first among equals, so widest(probes) is the
  // widest of the first two widths, not `longer`.
  std::vector<Hypothesis> hypotheses(const std::vector<Probe>& probes) {
    const Probe& wide = widest(probes);
    std::vector<Hypothesis> out;
    int nope = 0;
    for (Layout layout : {Layout::interleaved, Layout::halves, Layout::interleave_then_halves}) {
      const Reading reading = read(wide, layout, precision);
      nope = reading.unchanged_before;
      std::vector<RopeScaling> scalings = read_scalings(reading);
      if (longer) add_length_scalings(scalings, subject, wide, *longer, layout, precision, reading.magnitude);
      add_conventions(out, rotary_widths(layout, reading, wide.dim), rotary_bases(reading), scalings);
    }
    add_decoupled(out, subject, wide, longer ? &*longer : nullptr, nope, subject.info().rotate, precision);
    if (two_d()) add_2d(out, wide, precision);
    return out;
  }
  Score score(const Hypothesis& h, const std::vector<Probe>& probes) const {
    return rotary::score(h, probes, precision, subject.info().dtype);
  }
  void refine(std::vector<detail::Ranked<Hypothesis>>& ranked, const std::vector<Probe>& probes) {
    if (subject.info().rotate.multi_axis()) judge_axes(subject, ranked.front(), widest(probes), probes, precision);
    if (two_d()) judge_2d_axes(subject, ranked, widest(probes), probes, precision);
    // Every hypothesis, so that one named alike is not the runner-up of itself.
    const RotateConvention& declared = subject.info().rotate;
    if (declared.decoupled() || declared.rope_2d) {
      for (auto& r : ranked) {
        name_slice_slip(r.hypothesis, declared, widest(probes).dim);
        name_2d_slip(r.hypothesis, declared);
      }
    }
  }
  json params(const Hypothesis& h) const { return rotate_params(h.convention); }
  std::string probed(const std::vector<Probe>& probes) const {
    return fmt::format("{} (lengths {} and {}){}", span_of(probes), length, long_length,
                       two_d() ? "; the row and the column equal, and apart in one more" : "");
  }
};
static_assert(detail::IdentifySearch<RotaryIdentification>);
}  // namespace

}  // namespace rotary

namespace detail {

Identification identify_rotary(Subject& subject, const Precision& precision, Position max_position) {
  Positions positions = positions_up_to({0, 1, 2, 3, 7, 31, 100, 257, 1000, 2049}, max_position);
  const Position length = positions.back() + 1;
  rotary::RotaryIdentification search{subject, precision, std::move(positions), length,
                                      std::max<Position>(4 * length, 16384)};
  return identify_with(search);
}

}  // namespace detail

}  // namespace pecheck::identify
