#include "pecheck/result/tight_bound.h"

#include <fmt/format.h>

#include <cmath>

#include "pecheck/core/dtype.h"
#include "pecheck/result/judge.h"

namespace pecheck {

namespace {

// Σ u · w · scale with w as the model takes it (see the header).
struct Sum {
  double value = 0;
  std::string words;
};

Sum rounding_sum(const BoundModel& model, const Bound& b, double paths, bool root_everything, bool in_words) {
  Sum out;
  for (const auto& t : b.terms) {
    const double u = model.u(t.stage);
    // An angle stage's work is the size of an angle's error, which grows with the position whatever the
    // order (angle_error.h), not a count of roundings: never rooted, in the floor either.
    const bool counts = t.independent && t.stage != Stage::angles;
    const bool root = counts && (root_everything || u <= unit_roundoff(Dtype::float32));
    // A rooted sum counts the roundings done, each relative to what it rounds (BoundTerm::typical_scale); one
    // kept whole (a 16-bit sum, whose errors stagnate, sharing a sign as the partial sums reach Σ|t|) keeps
    // the worst case's work and scale. Angles rounded apart add their errors in quadrature (typical_work).
    const bool as_done = root || t.stage == Stage::angles;
    const bool typical = t.typical_work > 0 && as_done;
    const double count = typical ? t.typical_work : t.work;
    const double work = root ? std::sqrt(paths * count) : count;
    const double scale = as_done && t.typical_scale > 0 ? t.typical_scale : t.scale;
    out.value += u * work * scale;
    if (!in_words) continue;  // the judge asks the value of every case, the words only of those it reports
    const std::string shown = typical && !root ? fmt::format("{:.4g} (in quadrature)", count)
                              : !root               ? fmt::format("{:.4g}", count)
                              : paths != 1 ? fmt::format("√({:g}·{:.4g})", paths, count)
                                           : fmt::format("√{:.4g}", count);
    out.words += fmt::format("{}u({}) · {} · {:.4g}", out.words.empty() ? "" : " + ", name(model.dtype(t.stage)), shown,
                             scale);
  }
  return out;
}

}  // namespace

namespace {

// The tight bound's value and its roundings' sum (worded where asked): the
// one place its arithmetic is written.
struct Tight {
  double value = 0;
  Sum sum;
};
Tight tight_of(const BoundModel& model, const Bound& b, bool in_words) {
  const TightBound& t = *b.tight;
  if (t.kind == TightBound::Kind::same_dtype) {
    Sum floor = rounding_sum(model, b, 1, true, in_words);
    return {kSameDtypeMultiple * t.reference_error + kFloorLambda * floor.value + b.fixed, std::move(floor)};
  }
  Sum sum = rounding_sum(model, b, t.paths, false, in_words);
  return {model.factor() * sum.value + b.fixed, std::move(sum)};
}

}  // namespace

std::optional<double> tight_bound_value(const BoundModel& model, const Bound& b) {
  if (!b.tight || b.kind != Bound::Kind::upper) return std::nullopt;
  return tight_of(model, b, false).value;
}

std::optional<TightValue> tight_value(const BoundModel& model, const Bound& b) {
  if (!b.tight || b.kind != Bound::Kind::upper) return std::nullopt;
  const TightBound& t = *b.tight;
  const Tight tight = tight_of(model, b, true);
  const std::string fixed =
      b.fixed != 0 ? fmt::format(" + {:.3g} ({})", b.fixed, b.fixed_why) : std::string();
  if (t.kind == TightBound::Kind::same_dtype) {
    return TightValue{tight.value,
                      fmt::format("{:g} × {:.3g} ({}) + {:g} · [{}]{} = {:.3g}", kSameDtypeMultiple, t.reference_error,
                                  t.what, kFloorLambda, tight.sum.words, fixed, tight.value),
                      "same-dtype reference"};
  }
  return TightValue{tight.value,
                    fmt::format("{:g} · [{}] ({}){} = {:.3g}", model.factor(), tight.sum.words, t.what, fixed,
                                tight.value),
                    "probabilistic"};
}

}  // namespace pecheck
