#include "pecheck/subjects/builtin/rope.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "pecheck/core/subject_spec.h"
#include "pecheck/reference/rotary.h"

namespace pecheck {

SubjectInfo rope_info(std::string name, SubjectSpec spec, Layout layout, Dtype dtype, std::string scheme) {
  SubjectInfo info;
  info.name = std::move(name);
  info.spec = std::move(spec);
  info.ops = static_cast<unsigned>(Op::rotate);
  info.dtype = dtype;
  info.layout = layout;
  info.scheme = std::move(scheme);
  return info;
}

SubjectInfo rope_info(std::string name, SubjectSpec spec, const RotateConvention& convention, Dtype dtype,
                      std::optional<Dtype> angles, std::vector<std::string> declared, std::string scheme) {
  SubjectInfo info = rope_info(std::move(name), std::move(spec), Layout::unspecified, dtype, std::move(scheme));
  info.rotate = convention;
  info.compute.angles = angles;
  info.declared = std::move(declared);
  return info;
}

int RopeSubject::rotated_width(int dim) const { return reference::rotary_block(dim, info_.rotate); }

std::vector<double> RopeSubject::inverse_frequencies(int rotary_width, Position length) const {
  return reference::rotary_inv_freq(rotary_width, info_.rotate, length);
}

double RopeSubject::angle(Position t, double inv_freq, Position /*length*/) const {
  return rounded_angle(rounded_angle(position_used(t)) * rounded_angle(inv_freq));
}

double RopeSubject::table_magnitude() const { return reference::rotary_magnitude(info_.rotate); }

int RopeSubject::first_column(int pair, int rotary_width) const {
  return reference::rotary_first_column(pair, rotary_width, info_.rotate_layout());
}

int RopeSubject::second_column(int pair, int rotary_width) const {
  return reference::rotary_second_column(pair, rotary_width, info_.rotate_layout());
}

int RopeSubject::table_pair(int column, int rotary_width) const {
  return info_.rotate_layout() == Layout::halves ? column % (rotary_width / 2) : column / 2;
}

int RopeSubject::frequency_of(int pair, int rotary_width) const {
  return reference::rotary_frequency_index(pair, rotary_width, info_.rotate);
}

int RopeSubject::axis_of(int pair, int rotary_width) const {
  return reference::rotary_axis(pair, rotary_width, info_.rotate);
}

Matrix RopeSubject::rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) {
  // Text tokens of a multi-axis model sit at the same position on every axis
  // (Qwen2-VL's rotary expands 2-D position ids to its three axes).
  const size_t axes = static_cast<size_t>(info_.rotate.position_axes());
  return rotate_axes(std::vector<Positions>(axes, positions), x, seq_len);
}

Matrix RopeSubject::rotate_axes(const std::vector<Positions>& positions, const Matrix& x,
                                std::optional<Position> seq_len) {
  const int dim = static_cast<int>(x.cols());
  const size_t axes = static_cast<size_t>(info_.rotate.position_axes());
  if (positions.size() != axes) {
    throw Refusal(fmt::format("{} rotates {} position stream(s), got {}", info_.name, axes, positions.size()));
  }
  for (const auto& axis : positions) {
    if (static_cast<Eigen::Index>(axis.size()) != x.rows()) {
      throw std::invalid_argument(fmt::format("rotate: {} positions for {} rows", axis.size(), x.rows()));
    }
  }
  try {
    reference::rotary_block(dim, info_.rotate);  // a width the declared convention leaves undefined
  } catch (const Refusal& refusal) {
    throw Refusal(fmt::format("{} rotates pairs: {}", info_.name, refusal.what()));
  }
  const int r = rotated_width(dim);
  const Position length = request_length(positions, seq_len);
  const int pairs = r / 2;
  std::vector<double> inv_freq;
  try {
    if (pairs > 0) inv_freq = inverse_frequencies(r, length);
  } catch (const Refusal& refusal) {
    throw Refusal(fmt::format("{} rotates pairs: {}", info_.name, refusal.what()));
  }
  const double magnitude = rounded_angle(table_magnitude());
  const bool regroup = info_.rotate_layout() == Layout::interleave_then_halves;
  std::vector<double> cos_of(static_cast<size_t>(pairs)), sin_of(static_cast<size_t>(pairs));
  Matrix out(x.rows(), dim);
  for (Eigen::Index row = 0; row < x.rows(); ++row) {
    for (int i = 0; i < pairs; ++i) {
      const Position t = positions[static_cast<size_t>(axis_of(i, r))][static_cast<size_t>(row)];
      const double theta = angle(t, inv_freq[static_cast<size_t>(frequency_of(i, r))], length);
      // The table is built in the angle precision, then cast to the values'.
      cos_of[static_cast<size_t>(i)] = rounded(rounded_angle(rounded_angle(std::cos(theta)) * magnitude));
      sin_of[static_cast<size_t>(i)] = rounded(rounded_angle(rounded_angle(std::sin(theta)) * magnitude));
    }
    for (int i = 0; i < pairs; ++i) {
      const int a = first_column(i, r), b = second_column(i, r);
      const double xa = rounded(x(row, a)), xb = rounded(x(row, b));
      const auto ta = static_cast<size_t>(table_pair(a, r)), tb = static_cast<size_t>(table_pair(b, r));
      // interleave_then_halves writes pair i to (i, i + r/2): the regrouped order.
      const int out_a = regroup ? i : a, out_b = regroup ? r / 2 + i : b;
      out(row, out_a) = rounded(rounded(xa * cos_of[ta]) + rounded(rotate_half_sign() * xb * sin_of[ta]));
      out(row, out_b) = rounded(rounded(xb * cos_of[tb]) + rounded(rotate_half_second_sign() * xa * sin_of[tb]));
    }
    for (int j = r; j < dim; ++j) out(row, j) = rounded(x(row, j));
  }
  return out;
}

Batch RopeSubject::rotate_backward(const RotateCall& call, const Matrix& g) {
  if ((info_.backward_of & static_cast<unsigned>(Op::rotate)) == 0) {
    throw Refusal(fmt::format("{} does not answer the backward of rotate", info_.name));
  }
  if (call.layer) throw Refusal(fmt::format("{} does not rotate as a layer", info_.name));
  const size_t axes = static_cast<size_t>(info_.rotate.position_axes());
  const std::vector<Positions> positions =
      call.axes.empty() ? std::vector<Positions>(axes, call.positions) : call.axes;
  if (positions.size() != axes) {
    throw Refusal(fmt::format("{} rotates {} position stream(s), got {}", info_.name, axes, positions.size()));
  }
  for (const auto& axis : positions) {
    if (static_cast<Eigen::Index>(axis.size()) != g.rows() || g.rows() != call.x.rows() || g.cols() != call.x.cols()) {
      throw std::invalid_argument("backward of rotate: one position per row of x and grad, both n×d");
    }
  }
  const int dim = static_cast<int>(g.cols());
  int r = 0;
  std::vector<double> inv_freq;
  const Position length = request_length(positions, call.seq_len);
  try {
    reference::rotary_block(dim, info_.rotate);
    r = rotated_width(dim);
    if (r / 2 > 0) inv_freq = inverse_frequencies(r, length);
  } catch (const Refusal& refusal) {
    throw Refusal(fmt::format("{} rotates pairs: {}", info_.name, refusal.what()));
  }
  const int pairs = r / 2;
  const double magnitude = rounded_angle(table_magnitude());
  const Layout layout = backward_layout();
  const bool transposed = backward_transposes();
  // The forward's pair matrix [[cos_a, s₁ sin_a], [s₂ sin_b, cos_b]] (rotate_axes), transposed.
  const double s1 = transposed ? rotate_half_second_sign() : rotate_half_sign();
  const double s2 = transposed ? rotate_half_sign() : rotate_half_second_sign();
  std::vector<double> cos_of(static_cast<size_t>(pairs)), sin_of(static_cast<size_t>(pairs));
  Matrix dx(g.rows(), dim);
  for (Eigen::Index row = 0; row < g.rows(); ++row) {
    for (int i = 0; i < pairs; ++i) {
      const Position t = positions[static_cast<size_t>(axis_of(i, r))][static_cast<size_t>(row)];
      const double theta = angle(t, inv_freq[static_cast<size_t>(frequency_of(i, r))], length);
      cos_of[static_cast<size_t>(i)] = rounded(rounded_angle(rounded_angle(std::cos(theta)) * magnitude));
      sin_of[static_cast<size_t>(i)] = rounded(rounded_angle(rounded_angle(std::sin(theta)) * magnitude));
    }
    for (int i = 0; i < pairs; ++i) {
      const int a = reference::rotary_first_column(i, r, layout), b = reference::rotary_second_column(i, r, layout);
      const int out_a = reference::rotary_output_first_column(i, r, layout);
      const int out_b = reference::rotary_output_second_column(i, r, layout);
      const double ga = rounded(g(row, out_a)), gb = rounded(g(row, out_b));
      const auto ta = static_cast<size_t>(table_pair(a, r)), tb = static_cast<size_t>(table_pair(b, r));
      dx(row, a) = rounded(rounded(ga * cos_of[ta]) + rounded(s1 * gb * sin_of[tb]));
      dx(row, b) = rounded(rounded(gb * cos_of[tb]) + rounded(s2 * ga * sin_of[ta]));
    }
    for (int j = r; j < dim; ++j) dx(row, j) = rounded(g(row, j));
  }
  return {dx};
}

Position RopeSubject::request_length(const std::vector<Positions>& positions, std::optional<Position> seq_len) const {
  return reference::rotary_length(positions, seq_len, info_.rotate);
}

namespace {

// The rotary built-ins answer their own backward (params.backward.of = ["rotate"]).
SubjectEntry rope_entry(std::string name, std::string description, Layout layout, Dtype dtype,
                        std::string scheme, bool in_default_matrix) {
  return {name, std::move(description),
          [=] {
            SubjectInfo info = rope_info(name, builtin_spec(name), layout, dtype, scheme);
            info.ops |= static_cast<unsigned>(Op::backward);
            info.backward_of = static_cast<unsigned>(Op::rotate);
            return std::make_unique<RopeSubject>(std::move(info));
          },
          in_default_matrix};
}

}  // namespace

std::vector<SubjectEntry> rope_builtins() {
  return {
      rope_entry("rope", "rotary encoding, interleaved pairs (2i, 2i+1) rotated by t·ω_i", Layout::interleaved,
                 Dtype::float64, "rope", true),
      rope_entry("rope-halves", "rotary encoding, pairs (i, i + d/2) rotated by t·ω_i (rotate_half form)",
                 Layout::halves, Dtype::float64, "rope-halves", true),
      rope_entry("rope@float32", "rotary encoding computed in float32 (every operation rounded)",
                 Layout::interleaved, Dtype::float32, "rope", false),
      rope_entry("rope@float16", "rotary encoding computed in float16 (every operation rounded)",
                 Layout::interleaved, Dtype::float16, "rope", false),
      rope_entry("rope@bfloat16", "rotary encoding computed in bfloat16 (every operation rounded)",
                 Layout::interleaved, Dtype::bfloat16, "rope", false),
  };
}

}  // namespace pecheck
