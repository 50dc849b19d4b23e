// The usual suspects of a rotary diagnosis (identify/rotary.h): each one
// change to the declared convention, the plainest listed first.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "angle_error.h"
#include "identify/rotary.h"
#include "identify/search.h"
#include "pecheck/reference/rotary.h"

namespace pecheck::identify::rotary {

namespace {

using With = detail::Suspects<Hypothesis>;

// LongRoPE's factor sets swapped, switched by the wrong length, its attention factor left off.
void longrope_suspects(const RopeScaling& s, With& with) {
  if (s.type == ScalingType::longrope) {
    with("uses the short factors where the long ones belong (past the original length too)",
         [](Hypothesis& h) { h.convention.scaling.long_factor = h.convention.scaling.short_factor; });
    with("uses the long factors where the short ones belong (below the original length too: a factor set chosen "
         "by the allocated context, llama.cpp #24823)",
         [](Hypothesis& h) { h.convention.scaling.short_factor = h.convention.scaling.long_factor; });
    with("picks the factor set by the request's positions, not the sequence's length (vLLM #27414)",
         [](Hypothesis& h) { h.convention.scaling.factor_switch = FactorSwitch::position; });
    with("leaves LongRoPE's attention factor off the cos/sin tables",
         [](Hypothesis& h) { h.convention.scaling.attention_factor = 1.0; });
  }
}

// YaRN's mscale ignored or misplaced, its attention factor left off, its range rounded or not.
void yarn_suspects(const RopeScaling& s, With& with) {
  if (s.type == ScalingType::yarn && (s.mscale || s.mscale_all_dim || s.attention_factor)) {
    with(fmt::format("ignores mscale/mscale_all_dim: the tables carry 0.1·ln F + 1 = {:.4g} (vLLM #48621)",
                     0.1 * std::log(s.factor) + 1),
         [](Hypothesis& h) {
           h.convention.scaling.mscale.reset();
           h.convention.scaling.mscale_all_dim.reset();
           h.convention.scaling.attention_factor.reset();
         });
    if (s.mscale_all_dim) {
      with("carries g(F, mscale_all_dim) on the rotary instead of the ratio g(F, mscale)/g(F, mscale_all_dim) "
           "(kekzl/imp PR #880)",
           [](Hypothesis& h) {
             h.convention.scaling.attention_factor = 0.1 * *h.convention.scaling.mscale_all_dim *
                                                         std::log(h.convention.scaling.factor) + 1;
           });
    }
  }
  if (s.type == ScalingType::yarn && !s.mscale && !s.mscale_all_dim && !s.attention_factor && s.factor > 1) {
    with(fmt::format("leaves YaRN's attention factor off the cos/sin tables (0.1·ln F + 1 = {:.4g}: the rotated "
                     "vectors' norms are 1× the input's, not {:.4g}×)",
                     0.1 * std::log(s.factor) + 1, 0.1 * std::log(s.factor) + 1),
         [](Hypothesis& h) { h.convention.scaling.attention_factor = 1.0; });
  }
  if (s.type == ScalingType::yarn) {
    with(s.truncate ? "leaves YaRN's correction range unrounded (truncate: false, as GPT-OSS declares) where the "
                      "floor/ceil of truncate: true is declared"
                    : "rounds YaRN's correction range (floor/ceil, truncate: true) where truncate: false is declared "
                      "(GPT-OSS)",
         [](Hypothesis& h) { h.convention.scaling.truncate = !h.convention.scaling.truncate; });
  }
}

// Llama 3's slips (identify/llama3.h): another L is declarable, the others are defects.
void llama3_suspects(const RopeScaling& s, With& with) {
  if (s.type == ScalingType::llama3 && s.original_max_position > 1) {
    for (const auto& [words, slip] : llama3_slips(s)) {
      with(words, [slip](Hypothesis& h) {
        const bool whole = slip.boundary == std::floor(slip.boundary);
        if (!slip.bands_swapped && !slip.smooth_reversed && whole) {  // another declarable L
          h.convention.scaling.original_max_position = static_cast<Position>(slip.boundary);
        } else {
          h.llama3 = slip;
          h.declarable = false;
        }
      });
    }
  }
}

// freq_factors ignored or multiplied; multi-axis positions fed to the wrong pairs.
void factor_and_axis_suspects(const RotateConvention& declared, With& with) {
  if (!declared.freq_factors.empty()) {
    with("ignores freq_factors", [](Hypothesis& h) { h.convention.freq_factors.clear(); });
    with("multiplies ω by freq_factors instead of dividing it", [](Hypothesis& h) {
      for (double& f : h.convention.freq_factors) f = 1 / f;
    });
  }
  if (declared.multi_axis()) {
    with("turns every pair by the t position (the h and w streams ignored)",
         [](Hypothesis& h) { h.axis_feed = {0, 0, 0}; h.declarable = false; });
    with("has the h and w sections swapped", [](Hypothesis& h) { h.axis_feed = {0, 2, 1}; h.declarable = false; });
    // The section sizes in another order (mrope_section [24, 16, 24] for [16, 24, 24]), each axis its own stream.
    std::vector<int> sizes(declared.mrope_section.begin(), declared.mrope_section.end());
    std::sort(sizes.begin(), sizes.end());
    do {
      if (std::equal(sizes.begin(), sizes.end(), declared.mrope_section.begin(), declared.mrope_section.end())) continue;
      with(fmt::format("has the section sizes [{}] where mrope_section [{}] is declared (the sizes in another order, "
                       "each still turning by its own axis)",
                       fmt::join(sizes, ", "), fmt::join(declared.mrope_section, ", ")),
           [sizes](Hypothesis& h) { h.convention.mrope_section.assign(sizes.begin(), sizes.end()); });
    } while (std::next_permutation(sizes.begin(), sizes.end()));
    with(declared.mrope_interleaved ? "assigns the axes in sections, declared interleaved (Qwen2-VL's mrope on a "
                                      "Qwen3-VL model)"
                                    : "assigns the axes interleaved, declared in sections",
         [](Hypothesis& h) { h.convention.mrope_interleaved = !h.convention.mrope_interleaved; });
  }
}

// The usual mistakes of DeepSeek MLA's decoupled head and of the vision 2-D
// rotary (CLAIMS.md §10): the rotary on the nope slice, the nope features
// zeroed; rows and columns swapped, the other frequency split, a (row,
// column) table of 64 patches a side indexed past its end.
void new_scheme_suspects(const RotateConvention& declared, With& with) {
  if (declared.decoupled()) {
    const int rope = *declared.qk_rope_head_dim;
    with(fmt::format("turns the first {} features (the nope slice) instead of the last {}: the rotary applied to "
                     "the head's start, as GPT-J's partial rotary does",
                     rope, rope),
         [rope](Hypothesis& h) {
           h.convention = reference::rope_slice(h.convention);
           h.convention.rotary_dim = rope;
           h.declarable = false;
         });
    with("returns the nope features as zeros (an output buffer written only where the rope slice goes)",
         [](Hypothesis& h) { h.nope_zeroed = true; h.declarable = false; });
  }
  if (declared.rope_2d) {
    with("rows and columns swapped: the pairs declared for the row turn by the column and the other way round (the "
         "position ids' (h, w) read as (w, h))",
         [](Hypothesis& h) { h.convention.rope_2d->columns_first = !h.convention.rope_2d->columns_first; });
    const Frequencies2d other =
        declared.rope_2d->frequencies == Frequencies2d::even_odd ? Frequencies2d::halves : Frequencies2d::even_odd;
    with(fmt::format("the column's pairs turn at the {} frequencies where {} is declared ({})", name(other),
                     name(declared.rope_2d->frequencies),
                     other == Frequencies2d::halves
                         ? "Qwen2-VL's split, freqs[::2] for both axes, where Pixtral takes freqs[1::2] for the columns"
                         : "Pixtral's freqs[1::2] for the columns where Qwen2-VL's vision tower uses one set for both"),
         [other](Hypothesis& h) { h.convention.rope_2d->frequencies = other; });
    for (const bool wraps : {true, false}) {
      with(fmt::format("reads a (row, column) table of fixed size, 64 patches a side (Pixtral's max_patches_per_side), {}",
                       wraps ? "modulo its side: rows and columns past 63 turn as near ones"
                             : "and clamps rows and columns past 63 to its last"),
           [wraps](Hypothesis& h) { h.cache_rows = 64; h.cache_wraps = wraps; h.declarable = false; });
    }
  }
}

// The usual mistakes of the 2024–2026 schemes (CLAIMS.md §9), each one change
// to a declared LongRoPE, YaRN with mscale, freq_factors or multi-axis convention.
void scheme_suspects(const RotateConvention& declared, With& with) {
  longrope_suspects(declared.scaling, with);
  yarn_suspects(declared.scaling, with);
  llama3_suspects(declared.scaling, with);
  factor_and_axis_suspects(declared, with);
  new_scheme_suspects(declared, with);
}

// The identity, the inverse rotation and the other layouts.
void direction_suspects(const RotateConvention& declared, With& with) {
  with("returns x unchanged (the identity map)", [](Hypothesis& h) { h.identity = true; h.declarable = false; });
  with("rotates by −t·ω_i: the inverse rotation R_{−t} (rotate_half as cat(x2, −x1), or conjugated freqs_cis)",
       [](Hypothesis& h) { h.sign = -1; h.declarable = false; });
  for (Layout other : {Layout::interleaved, Layout::halves, Layout::interleave_then_halves}) {
    const Layout own = declared.layout == Layout::unspecified ? Layout::interleaved : declared.layout;
    if (other == own) continue;
    if (other == Layout::interleave_then_halves && own != Layout::halves) continue;  // only its own twin's mistake
    with(fmt::format("matches the {} layout, declared {}", name(other), name(own)),
         [other](Hypothesis& h) { h.convention.layout = other; });
  }
}

// The common bases, the exponent i/d, sine and cosine exchanged, positions offset by ±1 or ±2.
void base_and_offset_suspects(const RotateConvention& declared, With& with) {
  const std::string base = fmt::format("{:g}", declared.base);
  for (double b : detail::kCommonBases) {
    if (detail::near(b, declared.base, 1e-9)) continue;
    with(fmt::format("matches base {:g}, not {}", b, base), [b](Hypothesis& h) { h.convention.base = b; });
  }
  with(fmt::format("matches the exponent i/d (ω_i = {}^(−i/d), i.e. base {:g} with 2i/d), not 2i/d", base,
                   std::sqrt(declared.base)),
       [&](Hypothesis& h) { h.convention.base = std::sqrt(declared.base); });
  with("sine and cosine exchanged", [](Hypothesis& h) { h.swapped = true; h.declarable = false; });
  for (Position k : {1, -1, 2, -2}) {
    with(fmt::format("matches positions offset by {:+d} (rotates as position t {} {})", k, k > 0 ? "+" : "−",
                     std::abs(k)),
         [k](Hypothesis& h) { h.offset = k; h.declarable = false; });
  }
}

// A cos/sin cache built for fewer positions than asked, indexed past its end
// (the table never grown), at each usual size the probes reach.
void cache_suspects(const std::vector<Probe>& probes, With& with) {
  Position top = 0;
  for (const auto& p : probes) {
    for (Position t : p.positions) top = std::max(top, t);
  }
  for (Position rows : {Position{2048}, Position{4096}, Position{8192}}) {
    if (top < rows) continue;
    with(fmt::format("reads a cos/sin cache of {} rows and clamps every later position to its last row (a table "
                     "built for max_position_embeddings {} and never grown)", rows, rows),
         [rows](Hypothesis& h) { h.cache_rows = rows; h.declarable = false; });
    with(fmt::format("reads a cos/sin cache of {} rows modulo its length (position t as t mod {}: a table built for "
                     "{} positions and never grown)", rows, rows, rows),
         [rows](Hypothesis& h) { h.cache_rows = rows; h.cache_wraps = true; h.declarable = false; });
  }
}

// Frequencies or angles computed in a narrower precision than declared.
void precision_suspects(const SubjectInfo& info, With& with) {
  for (Dtype lower : {Dtype::bfloat16, Dtype::float16}) {
    if (unit_roundoff(lower) < unit_roundoff(info.angles_dtype())) continue;
    // The frequencies alone rounded (an inv_freq buffer cast by module.to(dtype)), the product exact:
    // a defect of its own, apart from angles computed in that precision throughout.
    with(fmt::format("its frequencies are rounded to {} before the product t·ω_i (an inv_freq buffer cast to {}, as "
                     "module.to({}) does), declared {} angles: keep inv_freq in float32",
                     name(lower), name(lower), name(lower), name(info.angles_dtype())),
         [lower](Hypothesis& h) { h.frequencies = lower; h.declarable = false; });
    if (unit_roundoff(lower) == unit_roundoff(info.angles_dtype())) continue;
    with(fmt::format("matches angles computed in {}, declared {}", name(lower), name(info.angles_dtype())),
         [lower](Hypothesis& h) { h.angles = lower; h.declarable = false; });
  }
}

// Scaling: none where one is declared; a dynamic base frozen at a length.
void scaling_suspects(const RotateConvention& declared, With& with) {
  if (is_scaled(declared)) {
    with(fmt::format("matches no scaling (plain RoPE), declared {} scaling", name(declared.scaling.type)),
         [](Hypothesis& h) { h.convention.scaling = {}; });
  }
  if (declared.scaling.type == ScalingType::dynamic_ntk) {
    const auto frozen = static_cast<Position>(static_cast<double>(declared.scaling.original_max_position) *
                                              declared.scaling.factor);
    with(fmt::format("the base does not follow the sequence length: matches dynamic NTK's base at length {} for "
                     "every request",
                     frozen),
         [frozen](Hypothesis& h) { h.fixed_length = frozen; h.declarable = false; });
  }
}

// Fits read from the widest probe: the rotated width, a fitted base, linear scaling.
void read_suspects(const RotateConvention& declared, const std::vector<Probe>& probes, const Precision& precision,
                   With& with) {
  const std::string base = fmt::format("{:g}", declared.base);
  const Probe& wide = widest(probes);
  const Reading reading = read(wide, declared.layout, precision);
  int declared_r = 0;
  try {
    declared_r = reference::rotary_block(wide.dim, declared);
  } catch (const Refusal&) {
  }
  // A decoupled head's width is its declaration's (new_scheme_suspects names its slips).
  if (reading.rotated < declared_r && reading.rotated > 0 && !declared.decoupled()) {
    const int r = reading.rotated;
    with(fmt::format("rotates only the first {} of {} features (rotary_fraction {:g}), declared {}", r, wide.dim,
                     static_cast<double>(r) / wide.dim, declared_r == wide.dim ? "all of them" : fmt::format("{}", declared_r)),
         [&](Hypothesis& h) { h.convention.rotary_dim.reset(); h.convention.rotary_fraction = static_cast<double>(r) / wide.dim; });
    with(fmt::format("rotates only the first {} of {} features (rotary_dim {}), declared {}", r, wide.dim, r,
                     declared_r == wide.dim ? "all of them" : fmt::format("{}", declared_r)),
         [&](Hypothesis& h) { h.convention.rotary_fraction.reset(); h.convention.rotary_dim = r; });
  }
  if (declared.rotary_dim || declared.rotary_fraction) {
    with(fmt::format("rotates all the features, declared {}", declared.rotary_dim ? fmt::format("rotary_dim {}", *declared.rotary_dim)
                                                                           : fmt::format("rotary_fraction {:g}", *declared.rotary_fraction)),
         [](Hypothesis& h) { h.convention.rotary_dim.reset(); h.convention.rotary_fraction.reset(); });
  }
  if (!reading.omegas.empty() && reading.omegas[0] > 0) {
    if (auto b = fit_base(reading.omegas, reading.omegas[0])) {
      const double fitted = detail::round_significant(*b, 4);
      bool known = detail::near(fitted, declared.base, 2e-3) || detail::near(fitted, std::sqrt(declared.base), 2e-3);
      for (double c : detail::kCommonBases) known = known || detail::near(fitted, c, 2e-3);
      if (!known) {
        with(fmt::format("matches base {:g} (fitted to the answers), not {}", fitted, base),
             [fitted](Hypothesis& h) { h.convention.base = fitted; });
      }
    }
    if (!is_scaled(declared) && reading.omegas[0] < 0.999) {
      const double factor = detail::round_significant(1 / reading.omegas[0], 4);
      with(fmt::format("matches linear scaling by {:g} (positions t/{:g}), declared none", factor, factor),
           [factor](Hypothesis& h) { h.convention.scaling.type = ScalingType::linear; h.convention.scaling.factor = factor; });
    }
  }
}

}  // namespace

std::vector<Hypothesis> suspects(const RotateConvention& declared, const SubjectInfo& info,
                                 const std::vector<Probe>& probes, const Precision& precision) {
  With with(declared);
  with(std::string(detail::kDeclared), [](Hypothesis&) {});
  direction_suspects(declared, with);
  scheme_suspects(declared, with);
  base_and_offset_suspects(declared, with);
  cache_suspects(probes, with);
  with("ignores the positions it is given: rotates row r as position r (its angles come from arange(n), as when a "
       "module drops the position_ids it is passed)",
       [](Hypothesis& h) { h.row_index = true; h.declarable = false; });
  precision_suspects(info, with);
  scaling_suspects(declared, with);
  read_suspects(declared, probes, precision, with);
  return std::move(with).take();
}

}  // namespace pecheck::identify::rotary
