// Planted attention bugs: each imitates builtin:attention (scheme "attention",
// ops attention | logits, multi-head) but gets one stage wrong in a way real
// implementations do. The correct stages come from reference/attention.h.
#include <fmt/format.h>

#include <cmath>

#include "pecheck/reference/attention.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/reference/sinusoidal.h"
#include "pecheck/subjects/builtin/attention.h"
#include "pecheck/planted/mutants.h"
#include "pecheck/subjects/typed_subject.h"

namespace pecheck {

namespace planted::attention_mutants {  // the file's own names (the planted bugs compile in unity batches)

enum class Flaw {
  softmax_no_max,       // exp(h) / Σ exp(h): overflows to inf/inf = NaN on large logits
  softmax_columns,      // normalises over the queries (axis 0) instead of the keys
  softmax_singleton,    // softmax over an axis of length 1 (the heads axis of a 1-head tensor): every weight 1
  mask_inverted,        // a boolean mask read as "true = masked" (the other library's convention)
  causal_always,        // the causal mask applied when none was asked
  causal_ignored,       // a causal request dropped (an is_causal flag not passed on): bidirectional
  causal_lookahead,     // the causal mask built with tril(ones, diagonal=1): each query sees one future key
  mask_multiplied,      // weights multiplied by the mask after the softmax, not renormalised
  mask_added_as_float,  // the boolean mask converted to 0/1 and added to the logits (masked: + 0, not − ∞)
  scale_by_d,           // logits divided by d_k instead of √d_k
  rotary_inside,        // rotary position rotation applied to q and k inside the op
  softmax_cubic_exp,    // exp replaced by 1 + x + x²/2 + x³/6 without range reduction: negative below x ≈ −1.6
  values_relu,          // ReLU applied to V before mixing (an activation epilogue on the value path)
  value_tile_stale_row, // P·V tiled over value features; tiles after the first use the previous query's row of P
};

// The width of a value tile in the tiled P·V product of value_tile_stale_row.
constexpr Eigen::Index kValueTile = 16;

class FlawedAttention : public TypedSubject {
 public:
  FlawedAttention(SubjectInfo info, Flaw flaw) : info_(std::move(info)), flaw_(flaw) {}
  const SubjectInfo& info() const override { return info_; }

  Matrix attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask,
                   int heads) override {
    reference::check_attention_inputs(q, k, &v, mask, heads);
    const Dtype dt = info_.dtype;
    return reference::split_heads(
        reference::round_entries(q, dt), reference::round_entries(k, dt), reference::round_entries(v, dt), heads,
        [&](const Matrix& qh, const Matrix& kh, const Matrix& vh) {
          return mix(weights(logits_of(qh, kh, mask), mask), vh);
        });
  }

  Matrix logits(const Matrix& q, const Matrix& k, const AttentionMask& mask) override {
    reference::check_attention_inputs(q, k, nullptr, mask, 1);
    const Dtype dt = info_.dtype;
    return logits_of(reference::round_entries(q, dt), reference::round_entries(k, dt), mask);
  }

 private:
  // The mask this subject actually applies with −∞.
  AttentionMask applied_mask(const AttentionMask& mask, Eigen::Index n, Eigen::Index m) const {
    switch (flaw_) {
      case Flaw::causal_always:
        if (mask.kind == AttentionMask::Kind::none) {
          BoolMatrix lower(n, m);
          for (Eigen::Index i = 0; i < n; ++i)
            for (Eigen::Index j = 0; j < m; ++j) lower(i, j) = j <= i;  // torch.tril(ones(n, m))
          return AttentionMask::boolean(std::move(lower));
        }
        return mask;
      case Flaw::causal_ignored:
        return mask.kind == AttentionMask::Kind::causal ? AttentionMask::none() : mask;
      case Flaw::causal_lookahead:
        if (mask.kind == AttentionMask::Kind::causal) {
          BoolMatrix band(n, m);
          for (Eigen::Index i = 0; i < n; ++i)
            for (Eigen::Index j = 0; j < m; ++j) band(i, j) = j <= i + 1;  // torch.tril(ones(n, m), diagonal=1)
          return AttentionMask::boolean(std::move(band));
        }
        return mask;
      case Flaw::mask_inverted:
        if (mask.kind == AttentionMask::Kind::boolean) return AttentionMask::boolean(mask.allowed.array() == false);
        return mask;
      case Flaw::mask_multiplied:
      case Flaw::mask_added_as_float:
        return mask.kind == AttentionMask::Kind::boolean ? AttentionMask::none() : mask;
      default: return mask;
    }
  }

  Matrix logits_of(const Matrix& q, const Matrix& k, const AttentionMask& mask) const {
    const Dtype dt = info_.dtype;
    const AttentionMask applied = applied_mask(mask, q.rows(), k.rows());
    Matrix h;
    if (flaw_ == Flaw::rotary_inside) {
      h = reference::scaled_logits(rotate_rows(q), rotate_rows(k), applied, dt);
    } else {
      h = reference::scaled_logits(q, k, applied, dt);
    }
    if (flaw_ == Flaw::scale_by_d) {
      // √d_k · (q·k/√d_k) / d_k: the logits divided by d_k rather than √d_k.
      const double d = static_cast<double>(q.cols());
      h = h.unaryExpr([&](double x) { return round_to(dt, x / std::sqrt(d)); });
    }
    if (flaw_ == Flaw::mask_added_as_float && mask.kind == AttentionMask::Kind::boolean) {
      h = h + mask.allowed.cast<double>();
    }
    return h;
  }

  Matrix mix(const Matrix& w, const Matrix& v) const {
    const Dtype dt = info_.dtype;
    if (flaw_ == Flaw::values_relu) return reference::mix_values(w, v.cwiseMax(0.0), dt);
    Matrix y = reference::mix_values(w, v, dt);
    if (flaw_ == Flaw::value_tile_stale_row && v.cols() > kValueTile) {
      // Row i of the later tiles is computed from row i − 1 of P (wrapping to
      // the last row for the first query).
      Matrix stale(w.rows(), w.cols());
      for (Eigen::Index i = 0; i < w.rows(); ++i) stale.row(i) = w.row((i + w.rows() - 1) % w.rows());
      const Eigen::Index rest = v.cols() - kValueTile;
      y.rightCols(rest) = reference::mix_values(stale, v.rightCols(rest), dt);
    }
    return y;
  }

  Matrix weights(const Matrix& h, const AttentionMask& mask) const {
    const Dtype dt = info_.dtype;
    switch (flaw_) {
      case Flaw::softmax_no_max: {
        Matrix w = h.unaryExpr([dt](double x) { return round_to(dt, std::exp(x)); });
        for (Eigen::Index i = 0; i < w.rows(); ++i) w.row(i) /= w.row(i).sum();
        return w;
      }
      case Flaw::softmax_columns: {
        Matrix w = h.unaryExpr([dt](double x) { return round_to(dt, std::exp(x)); });
        for (Eigen::Index j = 0; j < w.cols(); ++j) {
          const double top = h.col(j).maxCoeff();
          for (Eigen::Index i = 0; i < w.rows(); ++i) w(i, j) = round_to(dt, std::exp(h(i, j) - top));
          w.col(j) /= w.col(j).sum();
        }
        return w;
      }
      case Flaw::softmax_singleton:
        // Each entry is its own row: exp(h − h)/exp(h − h) = 1 for a finite
        // logit, and (−∞) − (−∞) = NaN for a masked one (as torch gives).
        return h.unaryExpr([](double x) { return std::exp(x - x) / std::exp(x - x); });
      case Flaw::softmax_cubic_exp: {
        // The row max is subtracted, so every argument is <= 0, where the
        // polynomial turns negative; masked (−∞) logits are skipped (weight 0).
        Matrix w = Matrix::Zero(h.rows(), h.cols());
        for (Eigen::Index i = 0; i < h.rows(); ++i) {
          const double top = h.row(i).maxCoeff();
          for (Eigen::Index j = 0; j < h.cols(); ++j) {
            if (!std::isfinite(h(i, j))) continue;
            const double x = round_to(dt, h(i, j) - top);
            w(i, j) = round_to(dt, 1 + x + x * x / 2 + x * x * x / 6);
          }
          const double total = round_to(dt, w.row(i).sum());
          w.row(i) = w.row(i).unaryExpr([&](double e) { return round_to(dt, e / total); });
        }
        return w;
      }
      case Flaw::mask_multiplied: {
        Matrix w = reference::softmax_rows(h, dt);
        if (mask.kind == AttentionMask::Kind::boolean) w = w.cwiseProduct(mask.allowed.cast<double>());
        return w;
      }
      default: return reference::softmax_rows(h, dt);
    }
  }

  // Row r rotated by position r: pairs (2i, 2i+1) by the angle r·ω_i.
  static Matrix rotate_rows(const Matrix& x) {
    Matrix out = x;
    const int d = static_cast<int>(x.cols());
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
      for (int i = 0; 2 * i + 1 < d; ++i) {
        const double a = static_cast<double>(r) * reference::frequency(i, d);
        const double c = std::cos(a), s = std::sin(a), x0 = x(r, 2 * i), x1 = x(r, 2 * i + 1);
        out(r, 2 * i) = c * x0 - s * x1;
        out(r, 2 * i + 1) = s * x0 + c * x1;
      }
    }
    return out;
  }

  SubjectInfo info_;
  Flaw flaw_;
};

SubjectEntry mutant(const std::string& name, const std::string& description, Flaw flaw,
                    Dtype dtype = Dtype::float64) {
  return {name, description, [name, flaw, dtype] {
            return std::make_unique<FlawedAttention>(attention_info(name, mutant_spec(name), dtype), flaw);
          }};
}

}  // namespace planted::attention_mutants

std::vector<SubjectEntry> attention_mutants() {
  using namespace planted::attention_mutants;
  return {
      mutant("attention-softmax-no-max", "softmax without the row max subtracted: NaN once a logit passes exp's range",
             Flaw::softmax_no_max),
      mutant("attention-softmax-no-max@float32", "the same in float32, where exp overflows past 88.7",
             Flaw::softmax_no_max, Dtype::float32),
      mutant("attention-softmax-columns", "softmax over the wrong axis: each key's column sums to 1, not each row",
             Flaw::softmax_columns),
      mutant("attention-softmax-singleton-axis",
             "softmax over an axis of length 1 (dim=1 of a one-head [B, H, N, M] tensor): every weight is 1",
             Flaw::softmax_singleton),
      mutant("attention-mask-inverted", "boolean mask polarity inverted: true read as 'masked'", Flaw::mask_inverted),
      mutant("attention-causal-always", "causal mask applied even when no mask was asked", Flaw::causal_always),
      mutant("attention-causal-ignored", "a causal request dropped: attends to every key", Flaw::causal_ignored),
      mutant("attention-causal-lookahead",
             "causal mask built with tril(ones, diagonal=1): each query also sees the next key (one future token)",
             Flaw::causal_lookahead),
      mutant("attention-mask-multiplied", "padding mask applied by zeroing weights after the softmax, without renormalising",
             Flaw::mask_multiplied),
      mutant("attention-mask-added-as-float", "boolean mask added to the logits as 0/1: masked keys get + 0, not −∞",
             Flaw::mask_added_as_float),
      mutant("attention-scale-by-d", "logits scaled by 1/d_k instead of 1/√d_k", Flaw::scale_by_d),
      mutant("attention-scale-by-d@float32", "the same in float32", Flaw::scale_by_d, Dtype::float32),
      mutant("attention-rotary-inside", "rotary rotation by row index applied to q and k inside attention",
             Flaw::rotary_inside),
      mutant("attention-softmax-cubic-exp",
             "softmax whose exp is the cubic 1 + x + x²/2 + x³/6 without range reduction (a hand-rolled fast exp): "
             "keys more than ~1.6 below the row max get negative weights",
             Flaw::softmax_cubic_exp),
      mutant("attention-values-relu",
             "ReLU applied to V before the weighted sum (an MLP's activation epilogue reused on the value path)",
             Flaw::values_relu),
      mutant("attention-value-tile-stale-row",
             "P·V tiled over 16 value features whose row pointer into P is off by one query in every tile after the first",
             Flaw::value_tile_stale_row),
  };
}

}  // namespace pecheck
