#pragma once
// What the module properties share (CLAIMS.md §7): token sequences and
// positions as they are generated, forward/decode answers checked for shape,
// and the error model by which two evaluations of a module that are equal
// in exact arithmetic (reordered, padded, shifted, batched, decoded) are
// compared.
//
// Error model. The depth of a black-box module is not declared (the
// protocol has no field for it, and an undeclared field is a usage error),
// so the bound is built from what is known, plus what is measured:
//   factor · [ u(accumulate) · S·(4·width + N) + u(values) · S
//              + u(angles) · 4·(5 + 3·t_max) (positional modules) ] · scale
//   + factor · spread
// S = 12 stages of one transformer layer (norms, projections, logits,
// softmax, value mix, output projection, residuals, the MLP), each summing
// at most 4·width (the usual MLP expansion) or N (the keys) terms; an angle
// t·ω rounded in its precision moves a rotated query or key by u·(5 + 3|t|)
// of its length (as in rope/structure.cpp), and a logit has two of them per side;
// scale = max(1, |x|, |y|) over the compared answers. `spread` is the
// subject's own noise, measured in every case by sending the baseline
// request twice: a deterministic subject answers identically (spread 0); a
// nondeterministic one (GPU reductions with atomics) widens the bound by its
// own spread. The bound is a worst case over one layer; rounding through a
// deep stack adds up more like √depth than depth, so the factor's margin
// covers a few layers, and a deeper model takes a per-property factor
// (pecheck.toml [tolerance]). A bound at or past 2·max|y| (bfloat16 modules)
// cannot tell a bug from rounding: those cases are not checkable.
#include <rapidcheck.h>

#include <string>
#include <vector>

#include "pecheck/core/json.h"
#include "pecheck/property/property.h"

namespace pecheck::module {

// The op the family's claims ask a module (a whole forward pass; decode
// where a claim decodes too): named here once, read by every claim.
inline constexpr Op kOp = Op::forward;

constexpr int kMaxTokens = 8;        // tokens per sequence (shrinking toward 1 or 2)
constexpr int kMaxCompanions = 3;    // other sequences in a batch (shrinking toward 1)
constexpr double kRange = 2.0;       // token entries uniform in [−2, 2]

// The declared width (params.forward.width), or 0.
int declared_width(const SubjectInfo& subject);
// The width to send: the declared one, else one of 8, 16, 32, 64 (a module
// that takes another refuses, and the case is discarded).
rc::Gen<int> width(const GenContext& ctx);
// n tokens of width d.
rc::Gen<Matrix> tokens(Eigen::Index n, int width);
// How many tokens a sequence has: [lo, 8] in the search (16 to 256 in the
// ladder, property/sizes.h), inside params.forward.shapes.n and within
// --max-position + 1; `op` is forward or decode.
rc::Gen<int> token_count(const GenContext& ctx, int lo, Op op = kOp);
// Between lo and hi sequences drawn from `item` (shrinking toward lo): the
// batch of a forward (4 and 8 in the ladder), inside params.forward.shapes.batch.
template <class T>
rc::Gen<std::vector<T>> sequences(const GenContext& ctx, int lo, int hi, rc::Gen<T> item) {
  return rc::gen::mapcat(size_on(ctx, kOp, Axis::batch, lo, hi), [item](int count) {
    return rc::gen::container<std::vector<T>>(static_cast<size_t>(count), item);
  });
}
// A first position leaving `room` positions after it within max_position:
// mostly small (where windows like dynamic NTK's original length L lie),
// sometimes anywhere; shrinking toward 0.
rc::Gen<Position> start(const GenContext& ctx, Position room);

// from, from + 1, …, from + n − 1.
Positions counting(Position from, Eigen::Index n);

// forward and decode answers with their shapes checked (B sequences of N
// rows, one output width throughout): a wrong shape is a SubjectFailure.
Batch forward_checked(Subject& subject, const Batch& x, const std::vector<Positions>& positions,
                      const BoolMatrix& padding = {});
Vector decode_checked(Subject& subject, const std::string& session, const Vector& x, Position position);

// between lo and hi items drawn from `item` (shrinking toward lo items).
template <class T>
rc::Gen<std::vector<T>> some(int lo, int hi, rc::Gen<T> item) {
  return rc::gen::mapcat(rc::gen::inRange(lo, hi + 1),
                         [item](int count) { return rc::gen::container<std::vector<T>>(static_cast<size_t>(count), item); });
}

// max |a − b| over every entry of two answers of one shape (NaN: infinite).
double spread(const Batch& a, const Batch& b);
// The sizes a layer's roundings are relative to, each at least 1 (a
// normalised row's): the largest entry of the input or any answer (the worst
// case's scale), and the largest root-mean-square row among them (the tight
// bounds': a row's sums and norms round relative to that row, and attention
// averages rows, so no rounding is relative to an entry of another row).
struct Magnitude {
  double largest = 1;
  double row_rms = 1;
  // A bare scale is both (a caller with no rows to measure).
  Magnitude(double both) : largest(both), row_rms(both) {}  // NOLINT(google-explicit-constructor)
  Magnitude(double largest_entry, double largest_row_rms) : largest(largest_entry), row_rms(largest_row_rms) {}
};
Magnitude scale_of(const Batch& x, const std::vector<const Batch*>& answers);
// 2·max |y| over the answers: the largest difference two of them can have.
double ceiling_of(const std::vector<const Batch*>& answers);

// The bound of a comparison (see above): `tokens` N of the longest sequence
// compared, `largest` the largest position in either request, `spread` the
// subject's measured noise, `ceiling` 2·max|y| (0: none).
Bound comparison_bound(const SubjectInfo& subject, int width, Eigen::Index tokens, Position largest, Magnitude scale,
                       double spread, double factor, double ceiling);

// The worst row difference between `observed` rows and `expected` rows:
// row pairs (observed_row, expected_row) of sequence `batch`. Updates
// `check` where this is worse than what it holds (error, location, values).
void worst_row(Check& check, const Matrix& observed, const Matrix& expected,
               const std::vector<std::pair<Eigen::Index, Eigen::Index>>& rows, Eigen::Index batch);

// Recorded cases: every sequence N×width, the same width, N ≤ 4096.
void validate_batch(const Batch& x, const char* what);

}  // namespace pecheck::module
