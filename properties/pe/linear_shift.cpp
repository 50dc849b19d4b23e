// CLAIMS.md §2 — pe.linear_shift: a shift by k is a fixed linear map,
// p_{t+k} = M_k p_t, orthogonal, with M_a M_b = M_{a+b}.
//
// M_a and M_b are fitted by least squares on twice as many positions as
// dimensions (with at most d positions, any table — a learned one too — fits
// exactly). Three measurements, the worst reported:
//   the fit's residual: ‖P M_aᵀ − P_a‖ is at most that of the exact M_a, so it
//     needs no conditioning in its bound;
//   orthogonality, as Gram preservation p_{t+a}·p_{s+a} = p_t·p_s over the fit
//     positions (no matrix inverted: an isometry between the spans exists
//     exactly when the Gram matrices agree);
//   composition on held-out positions h: M_a M_b p_h = p_{h+a+b}, which
//     amplifies the data's rounding by the fit's conditioning: a row's error
//     δ moves the fitted M by up to √n·|δ|/σ_min(P), and M·p_h by that times
//     ‖p_h‖ = A·√(d/2), so its bound carries κ = A·√(d/2)/σ_min(P).
//     Positions spread over [0, span] keep κ small.
#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>

#include "pe/common.h"
#include "input_checks.h"

namespace pecheck::pe::linear_shift {

namespace {

constexpr int kHeldOut = 4;

struct ShiftCase {
  int dim = 2;
  Position a = 1;
  Position b = 1;
  Positions fit;
  Positions held;
  Position seq_len = 1;
  void validate() const {
    input::width("dim", dim);
    input::length("seq_len", seq_len);
    input::position("a", a);
    input::position("b", b);
    input::positions("fit", fit, seq_len);
    input::positions("held", held, seq_len);
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ShiftCase, dim, a, b, fit, held, seq_len)

ShiftCase make_case(int dim, Position a, Position b, Position span, std::uint64_t seed) {
  const int count = 2 * dim + kHeldOut;
  ShiftCase c{dim, a, b, {}, {}, 0};
  const Positions all = sample_distinct(seed, count, std::max<Position>(span, count - 1));
  // Every stride-th position (spread over the range) is held out.
  const size_t stride = std::max<size_t>(all.size() / kHeldOut, 1);
  for (size_t j = 0; j < all.size(); ++j) {
    (j % stride == stride / 2 && c.held.size() < kHeldOut ? c.held : c.fit).push_back(all[j]);
  }
  c.seq_len = all.back() + a + b + 1;
  return c;
}

rc::Gen<ShiftCase> shift_gen(const GenContext& ctx) {
  const Position max = std::max<Position>(largest_position(ctx), 4);
  const SubjectInfo& subject = ctx.subject;
  return rc::gen::apply(
      [max](int dim, Position a, Position b, Position span, std::uint64_t seed) {
        return make_case(dim, a, b, std::min(span, max - a - b), seed);
      },
      // 2d + 4 distinct positions must fit below max_position − a − b.
      even_dim(ctx, static_cast<int>(std::clamp<Position>((max - 5) / 4, 1, 16))), offset(max / 4), offset(max / 4),
      position(subject, max),
      rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>()));
}

// σ_min(P), which only scales a bound: from the eigenvalues of the d×d Gram
// matrix PᵀP (a tridiagonal reduction, cheaper than the SVD's Jacobi
// sweeps over the 2d×d P) while they are well separated —
// PᵀP's rounding moves λ_min by about n·d·u·λ_max, a relative 1e-7 at most
// when λ_min ≥ 1e-6·λ_max — and from the SVD otherwise (an ill-conditioned
// fit, a subject's NaN).
double smallest_singular_value(const Matrix& P) {
  const Matrix gram = P.transpose() * P;
  if (gram.allFinite()) {
    const Eigen::SelfAdjointEigenSolver<Matrix> eigen(gram, Eigen::EigenvaluesOnly);
    if (eigen.info() == Eigen::Success) {
      const Vector& lambda = eigen.eigenvalues();  // ascending
      if (lambda(0) >= 1e-6 * lambda(lambda.size() - 1)) return std::sqrt(lambda(0));
    }
  }
  return Eigen::JacobiSVD<Matrix>(P).singularValues().minCoeff();
}

Positions shifted(const Positions& ts, Position k) {
  Positions out = ts;
  for (auto& t : out) t += k;
  return out;
}

// Orthogonality: the shifted positions have the same Gram matrix (P the fit
// positions' encodings, Pa theirs shifted by a; `all` every position sent).
Check gram_preservation(const SubjectInfo& info, const ShiftCase& c, const Positions& all, const Matrix& P,
                        const Matrix& Pa) {
  const auto n = P.rows();
  const double amplitude = info.amplitude;
  const Position largest = c.seq_len - 1;
  const Matrix gram_change = Pa * Pa.transpose() - P * P.transpose();
  Eigen::Index gi = 0, gj = 0;
  Check gram;
  gram.name = "Gram preservation";
  gram.error = gram_change.cwiseAbs().maxCoeff(&gi, &gj);
  if (!std::isfinite(gram_change.sum())) gram.error = INFINITY;
  // Relative to the entries' own size where it passes the declared amplitude's (rounding grows with the values; a
  // wrong magnitude is pe.bounded's and pe.constant_norm's to catch).
  const double size = std::max(amplitude, std::max(P.cwiseAbs().maxCoeff(), Pa.cwiseAbs().maxCoeff()));
  gram.bound = summed_bound(info, c.dim, largest, 2, size * size,
                            "2·W(largest t), W(t) the work of p_t's d components · max(A, max|p|)²");
  // The same change of pecheck's encodings in the subject's dtypes, against the exact one (issue 36).
  if (const auto ref = same_dtype_encoding(info, c.dim, all); ref && ref->rounded.allFinite()) {
    auto change = [n](const Matrix& e) {
      const Matrix base = e.topRows(n), moved = e.middleRows(n, n);
      return Matrix(moved * moved.transpose() - base * base.transpose());
    };
    gram.bound.same_dtype((change(ref->rounded) - change(ref->exact)).cwiseAbs().maxCoeff(),
                          fmt::format("the {} encoding's own largest Gram change", name(info.dtype)));
  }
  gram.where.label = fmt::format("p_{}·p_{} against p_{}·p_{}", c.fit[gi] + c.a, c.fit[gj] + c.a, c.fit[gi], c.fit[gj]);
  gram.where.position = c.fit[gi] + c.a;
  gram.where.other_position = c.fit[gj] + c.a;
  gram.observed = number_to_json((Pa.row(gi)).dot(Pa.row(gj)));
  gram.expected = number_to_json(P.row(gi).dot(P.row(gj)));
  gram.note = "orthogonality of M_k: the shifted positions' Gram matrix against the originals'";
  return gram;
}

Measurement shift_measure(Subject& subject, const ShiftCase& c, const BoundModel&) {
  const auto n = static_cast<Eigen::Index>(c.fit.size()), h = static_cast<Eigen::Index>(c.held.size());
  Positions all = c.fit;
  for (const auto& part : {shifted(c.fit, c.a), shifted(c.fit, c.b), c.held, shifted(c.held, c.a + c.b)}) {
    all.insert(all.end(), part.begin(), part.end());
  }
  const Matrix p = encode(subject, c.dim, all, c.seq_len);
  const Matrix P = p.topRows(n), Pa = p.middleRows(n, n), Pb = p.middleRows(2 * n, n);
  const Matrix H = p.middleRows(3 * n, h), Hab = p.bottomRows(h);

  const SubjectInfo& info = subject.info();
  const double amplitude = info.amplitude, d = c.dim;
  const Position largest = c.seq_len - 1;

  const auto qr = P.colPivHouseholderQr();
  const Matrix Xa = qr.solve(Pa), Xb = qr.solve(Pb);  // M_aᵀ, M_bᵀ

  // The fit: root mean square over positions of ‖p_{t+k} − M_k p_t‖.
  auto residual = [&](const Matrix& X, const Matrix& target, Position k) {
    Check check;
    check.name = "fit residual";
    check.error = (P * X - target).norm() / std::sqrt(static_cast<double>(n));
    check.bound = bound_of(row_work(info, c.dim, largest) * 2, amplitude,
                           "2·R(largest t), R(t) the work of p_t's components in quadrature · A");
    check.where.label = fmt::format("least-squares fit of p_(t+{}) = M p_t over {} positions", k, n);
    check.observed = number_to_json(check.error);
    check.expected = 0;
    check.note = "root mean square of ‖p_(t+k) − M_k p_t‖ over the fit positions";
    return check;
  };
  Check fit_a = residual(Xa, Pa, c.a), fit_b = residual(Xb, Pb, c.b);

  Check gram = gram_preservation(info, c, all, P, Pa);

  // Composition on held-out positions, its bound scaled by the fit's conditioning.
  const double sigma_min = smallest_singular_value(P);
  const double kappa = amplitude * std::sqrt(d / 2) / sigma_min;
  Check compose = compare_entries(
      "composition on held-out positions", H * Xb * Xa, Hab,
      bound_of(row_work(info, c.dim, largest) * (2 + 4 * std::sqrt(static_cast<double>(n)) * kappa), amplitude,
               fmt::format("R(largest t)·(2 + 4·√n·κ), R(t) the work of p_t's components in quadrature, "
                           "κ = A·√(d/2)/σ_min(P) = {:.3g} · A",
                           kappa)));
  const auto row = static_cast<size_t>(compose.where.row.value_or(0));
  compose.where.label = fmt::format("M_{} M_{} p_{} against p_{}", c.a, c.b, c.held[row], c.held[row] + c.a + c.b);
  compose.where.row.reset();
  compose.where.position = c.held[row] + c.a + c.b;
  compose.note = "M_a·M_b p_h against p_(h+a+b) on positions the fit did not see";

  Measurement m;
  m.note = fmt::format(
      "M_k fitted on {} positions (d = {}): rms residual {:.3g} (k = {}), {:.3g} (k = {}); Gram change {:.3g}; "
      "M_a·M_b against M_(a+b) on {} held-out positions {:.3g}",
      n, c.dim, fit_a.error, c.a, fit_b.error, c.b, gram.error, h, compose.error);
  m.checks = {std::move(fit_a), std::move(fit_b), std::move(gram), std::move(compose)};
  return m;
}

}  // namespace

PropertyImpl linear_shift() {
  return define<ShiftCase>("pe.linear_shift", {"fit residual", "Gram preservation", "composition on held-out positions"},
                           shift_gen, shift_measure);
}

std::vector<PropertyImpl> properties() { return {linear_shift()}; }

}  // namespace pecheck::pe::linear_shift
