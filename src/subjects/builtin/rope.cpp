#include "pecheck/subjects/builtin/rope.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "pecheck/reference/sinusoidal.h"

namespace pecheck {

SubjectInfo rope_info(std::string name, std::string spec, Layout layout, Dtype dtype, std::string scheme) {
  SubjectInfo info;
  info.name = std::move(name);
  info.spec = std::move(spec);
  info.ops = static_cast<unsigned>(Op::rotate);
  info.dtype = dtype;
  info.layout = layout;
  info.scheme = std::move(scheme);
  return info;
}

double RopeSubject::frequency(int pair, int dim) const { return reference::frequency(pair, dim); }

double RopeSubject::angle(Position t, int pair, int dim) const {
  return rounded(rounded(position_used(t)) * rounded(frequency(pair, dim)));
}

int RopeSubject::first_column(int pair) const {
  return info_.layout == Layout::halves ? pair : 2 * pair;
}

int RopeSubject::second_column(int pair, int dim) const {
  return info_.layout == Layout::halves ? dim / 2 + pair : 2 * pair + 1;
}

int RopeSubject::table_pair(int column, int dim) const {
  return info_.layout == Layout::halves ? column % (dim / 2) : column / 2;
}

Matrix RopeSubject::rotate(const Positions& positions, const Matrix& x, std::optional<Position>) {
  const int dim = static_cast<int>(x.cols());
  if (dim < 2 || dim % 2 != 0) {
    throw Refusal(fmt::format("{} rotates pairs and needs an even dim, got {}", info_.name, dim));
  }
  if (static_cast<Eigen::Index>(positions.size()) != x.rows()) {
    throw std::invalid_argument(fmt::format("rotate: {} positions for {} rows", positions.size(), x.rows()));
  }
  const int pairs = dim / 2;
  std::vector<double> cos_of(pairs), sin_of(pairs);
  Matrix out(x.rows(), dim);
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    for (int i = 0; i < pairs; ++i) {
      const double theta = angle(positions[static_cast<size_t>(r)], i, dim);
      cos_of[i] = rounded(std::cos(theta));
      sin_of[i] = rounded(std::sin(theta));
    }
    for (int i = 0; i < pairs; ++i) {
      const int a = first_column(i), b = second_column(i, dim);
      const double xa = rounded(x(r, a)), xb = rounded(x(r, b));
      const int ta = table_pair(a, dim), tb = table_pair(b, dim);
      out(r, a) = rounded(rounded(xa * cos_of[ta]) + rounded(rotate_half_sign() * xb * sin_of[ta]));
      out(r, b) = rounded(rounded(xb * cos_of[tb]) + rounded(xa * sin_of[tb]));
    }
  }
  return out;
}

namespace {

SubjectEntry rope_entry(std::string name, std::string description, Layout layout, Dtype dtype,
                        std::string scheme, bool in_default_matrix) {
  return {name, std::move(description),
          [=] { return std::make_unique<RopeSubject>(rope_info(name, "builtin:" + name, layout, dtype, scheme)); },
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
