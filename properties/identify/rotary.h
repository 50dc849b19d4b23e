#pragma once
// What the rotary search (identify/rotary*.cpp) reasons with: a probe (the
// subject's answers to rotations of known vectors), a hypothesis (a
// convention with at most one defect), what a hypothesis predicts and how far
// the answers are from it, and what the answers themselves read as.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "identify/internal.h"
#include "identify/llama3.h"

namespace pecheck::identify::rotary {

using detail::Precision;
using detail::Score;
using detail::rank;
using detail::span_of;
using detail::widest;

struct Probe {
  int dim = 0;
  Positions positions;            // axis t's (every axis's, when `axes` is empty)
  std::vector<Positions> axes;    // multi-axis probes: one list per axis
  Matrix x, answer;
  Position seq_len = 1;
  int offset = 0;                 // a slice of a wider answer (a decoupled head's rope part): its first column there
  // Row k's position on axis a (its one position for a one-axis probe).
  Position at(size_t axis, Eigen::Index row) const {
    const Positions& p = axes.empty() ? positions : axes[std::min(axis, axes.size() - 1)];
    return p[static_cast<size_t>(row)];
  }
};

// What a rotary might compute: a convention, with at most one defect.
struct Hypothesis {
  std::string words;             // how the diagnosis names it
  RotateConvention convention;
  double sign = 1;               // −1: the inverse rotation R_{−t}
  Position offset = 0;           // rotates as position t + offset
  bool swapped = false;          // sine and cosine exchanged
  bool identity = false;         // returns x
  std::optional<Dtype> angles;   // angles computed in this precision
  std::optional<Dtype> frequencies;  // ω_i rounded to this precision before the product t·ω_i
  bool row_index = false;        // rotates row r as position r, whatever position it is given
  std::optional<Position> fixed_length;  // a dynamic scaling (or LongRoPE's switch) frozen at this length
  std::array<size_t, 3> axis_feed = {0, 1, 2};  // the given axis each declared axis turns by (sections swapped)
  std::optional<Llama3Slip> llama3;  // Llama 3 scaling computed with this slip (identify/llama3.h)
  Position cache_rows = 0;           // a cos/sin table of this many rows, indexed past its end (0: none)
  bool cache_wraps = false;          // ... modulo its length (else clamped to its last row)
  bool nope_zeroed = false;          // a decoupled head's nope features returned as zeros
  bool declarable = true;        // a convention a hello can declare (not a defect)
};

inline bool is_scaled(const RotateConvention& c) { return c.scaling.type != ScalingType::none; }

// The worst entry of the probes against the hypothesis, relative to the bound
// of one computed rotation at the subject's precision (rope/common.h); pairs
// whose bound reaches their largest possible error are not judged.
Score score(const Hypothesis& h, const std::vector<Probe>& probes, const Precision& precision, Dtype values);

// Asks the subject; a width it refuses is left out.
std::optional<Probe> ask(Subject& subject, int dim, Positions positions, Position seq_len, std::uint64_t seed,
                         std::vector<Positions> axes = {});

// What the answers themselves say, read under a layout: the width that
// rotates (the columns that change), each pair's angle at position 1, and the
// factor on the rotated block's norm.
struct Reading {
  int rotated = 0;                 // features that change (even), 0: none
  int unchanged_before = 0;        // the leading features that do not change (even): a decoupled head's nope part
  std::vector<double> omegas;      // |angle per position| of each pair of the changed block
  double magnitude = 1;
};

Reading read(const Probe& p, Layout layout, const Precision& precision);

// Each pair's frequency read at the probe's largest position, unwrapped with
// the reading at position 1 (a far position resolves a slow pair's angle).
std::vector<double> read_frequencies(const Probe& p, Layout layout, int r);

// The base whose schedule base^(−2i/r) best fits the pairs' angles (least
// squares on ln ω_i = −(2i/r)·ln base); none when too few pairs resolve.
std::optional<double> fit_base(const std::vector<double>& omegas, double omega_0);

// The usual suspects for a subject declaring `declared`, each one change
// (identify/rotary_suspects.cpp).
std::vector<Hypothesis> suspects(const RotateConvention& declared, const SubjectInfo& info,
                                 const std::vector<Probe>& probes, const Precision& precision);

}  // namespace pecheck::identify::rotary
