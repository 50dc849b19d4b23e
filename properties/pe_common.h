#pragma once
// What the pe family's files share: the generators of dims, positions and
// offsets, the size of the computation behind each tolerance, and one factory
// per property (pe.cpp lists them in catalog order).

#include "pecheck/property/compare.h"
#include "pecheck/property/property.h"

namespace pecheck::pe {

// The rounding work behind one component of p_t in a correct encoder: its
// angle t·ω_i carries an error of ~u·|t·ω_i| (the position, ω_i and their
// product are each rounded), plus ~1 rounding for the sine or cosine and the
// amplitude. At most 1 + |t|, since ω_0 = 1 is the fastest frequency.
inline double angle_work(Position t) { return 1.0 + static_cast<double>(t < 0 ? -t : t); }
// The same summed over the d components: W(t) = Σ_i 2·(1 + |t|·ω_i), the work
// behind a dot product of p_t (or a squared norm).
double summed_work(int dim, Position t);
// Over the d components in quadrature: √(Σ_i 2·(1 + |t|·ω_i)²), the work
// behind the norm of an encoding's error (distances, residuals).
double row_work(int dim, Position t);

// Even widths 2, 4, …, 2·max_half, shrinking toward 2 (the claims of §2 are
// about [sin, cos] pairs; an odd width ends with a lone sine).
rc::Gen<int> even_dim(int max_half);
// A position in [0, max_position], small in the first cases (RapidCheck's
// size), shrinking toward 0.
rc::Gen<Position> position(Position max_position);
// An offset k in [1, max_position], shrinking toward 1.
rc::Gen<Position> offset(Position max_position);
// How far a sequence runs beyond the last position encoded, shrinking toward 0.
rc::Gen<Position> extra_length(Position max_position);
// `count` distinct positions in [0, span] (span ≥ count − 1), sorted, drawn
// from `seed`: reproducible from the case that names them.
Positions sample_distinct(std::uint64_t seed, int count, Position span);

// encode() with the shape checked (a wrong shape is a subject failure).
Matrix encode(Subject& subject, int dim, const Positions& positions, Position seq_len);
inline double dot_rows(const Matrix& p, Eigen::Index a, Eigen::Index b) { return p.row(a).dot(p.row(b)); }

// The layout a subject's encodings are compared in: what it declares, and
// interleaved (the reference of CLAIMS.md §2) when it declares none.
Layout declared_or_interleaved(const SubjectInfo& subject);

// One factory per property, in the files named for them.
PropertyImpl bounded();               // pe.cpp
PropertyImpl constant_norm();         // pe.cpp
PropertyImpl length_independence();   // pe.cpp
PropertyImpl offset_only_dot();       // pe_dot.cpp
PropertyImpl dot_symmetry();          // pe_dot.cpp
PropertyImpl linear_shift();          // pe_linear_shift.cpp
PropertyImpl distinct_positions();    // pe_distinct.cpp
PropertyImpl step_size();             // pe_step_size.cpp
PropertyImpl reference_values();      // pe_reference.cpp

}  // namespace pecheck::pe
