#pragma once
// What the pe family's files share: the generators of dims, positions and
// offsets, the size of the computation behind each tolerance, and one factory
// per property (pe/structure.cpp lists them in catalog order).

#include <optional>

#include "pecheck/property/compare.h"
#include "pecheck/property/property.h"

namespace pecheck::pe {

// The convention a subject is judged against: params.encode, its layout
// resolved (params.encode.layout, else the v1 top-level layout, else the
// reference's interleaved one). Its amplitude is the declared params.encode
// amplitude (pe.reference_values); the structural claims scale by
// SubjectInfo::amplitude, which a v2 declaration sets too.
EncodeConvention declared(const SubjectInfo& subject);
// ω_i of the declared convention.
double omega(const SubjectInfo& subject, int pair, int dim);

// The rounding work behind a correct encoder's components, per precision
// stage (error model: factor · Σ u(stage) · work · scale): each component
// rounds once in the values (the amplitude's product, the cast) and carries
// its angle's work in the angles (angle_error.h, at t + position_offset and
// the declared ω_i).
struct Work {
  double values = 0, angles = 0;
  Work operator+(const Work& o) const { return {values + o.values, angles + o.angles}; }
  Work operator*(double k) const { return {values * k, angles * k}; }
};
// The largest single component of p_t.
Work component_work(const SubjectInfo& subject, int dim, Position t);
// Summed over the d components: the work behind a dot product or squared norm.
Work summed_work(const SubjectInfo& subject, int dim, Position t);
// Over the d components in quadrature: the work behind the norm of an error.
Work row_work(const SubjectInfo& subject, int dim, Position t);
// factor · (u(values)·values + u(angles)·angles) · scale, as a Bound.
Bound bound_of(const Work& work, double scale, const std::string& what);
// bound_of the summed work of `copies` encodings at positions up to t, whose
// tight bounds add the pairs' angle errors in quadrature (each pair's angle is
// rounded apart, as are the encodings'): √(copies · Σ_i (2·w_i)²) where the
// worst case takes copies · Σ_i 2·w_i.
Bound summed_bound(const SubjectInfo& subject, int dim, Position t, int copies, double scale, const std::string& what);
// What ‖p_t‖² can owe its angles, for the tight bound: nothing where a pair's
// sine and cosine take one angle (sin² + cos² of any angle is 1); where a
// subject forms the cosine's angle from the sine's (θ + π/2, a phase), one
// rounding of that angle apart, weighted by |sin 2θ| (½ in the mean square):
// √(Σ_i (|t·ω_i| + 2)² / 2) in the pairs' quadrature.
double split_angle_work(const SubjectInfo& subject, int dim, Position t);

// Even widths from the smallest the declared schedule defines (2, or 4 for
// i/(h−1)) to 2·max_half, shrinking toward it (the claims of §2 are about
// [sin, cos] pairs; an odd width ends with a lone sine).
rc::Gen<int> even_dim(const SubjectInfo& subject, int max_half);
// The same, within the gate's --max-width when it is smaller and inside
// params.encode.shapes.d; in a ladder case focused on the width, its rung.
rc::Gen<int> even_dim(const GenContext& ctx, int max_half);
// The largest position an encode request may carry: --max-position, below a
// declared sequence length (property/sizes.h).
Position largest_position(const GenContext& ctx);
// The sequence length of an encode request whose last position is `last`,
// with `extra` tokens after it: within --max-position + 1 and the declared
// lengths (property/sizes.h: sequence_length).
Position length_of(const GenContext& ctx, Position last, Position extra);
// A position in [0, max_position] with its edges mixed in (gen/positions.h:
// 0, 1, 2, powers of two, 256/257, 2048/2049, the angle precision's integer
// limit), shrinking toward 0.
rc::Gen<Position> position(const SubjectInfo& subject, Position max_position);
// An offset k in [1, max_position], shrinking toward 1.
rc::Gen<Position> offset(Position max_position);
// How far a sequence runs beyond the last position encoded, shrinking toward 0.
rc::Gen<Position> extra_length(Position max_position);
// `count` distinct positions in [0, span] (span ≥ count − 1), sorted, drawn
// from `seed`: reproducible from the case that names them.
Positions sample_distinct(std::uint64_t seed, int count, Position span);

// encode() with the shape checked (a wrong shape is a subject failure).
Matrix encode(Subject& subject, int dim, const Positions& positions, Position seq_len);

// pecheck's encoding of `positions` under the declared convention (its
// amplitude SubjectInfo::amplitude, as the structural claims scale), in the
// subject's dtypes as real code rounds it and exactly: the same-dtype
// reference of a claim (issue 36, result/tight_bound.h). nullopt where the
// reference refuses the width.
struct SameDtypeEncoding {
  Matrix rounded, exact;
};
std::optional<SameDtypeEncoding> same_dtype_encoding(const SubjectInfo& subject, int dim, const Positions& positions);
inline double dot_rows(const Matrix& p, Eigen::Index a, Eigen::Index b) { return p.row(a).dot(p.row(b)); }

}  // namespace pecheck::pe
