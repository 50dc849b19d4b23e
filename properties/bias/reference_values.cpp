// CLAIMS.md §6 — bias.reference_values: the bias the subject declares
// (params.bias). ALiBi's values are a formula: −slope_h·|i − j| with the
// published slopes (reference/bias.h). T5's values are a learned table, so
// what the scheme fixes is its partition of relative positions into buckets
// (SUBJECT-PROTOCOL v2): b[i][j] = b[i'][j'] exactly when j − i and j' − i'
// fall in the same bucket — equal within a bucket, and different across
// buckets (a bucket function that sends far keys into a near bucket merges
// two buckets without changing any value).
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>

#include "bias/support.h"
#include "pecheck/property/compare.h"
#include "pecheck/property/registry.h"
#include "pecheck/reference/bias.h"

namespace pecheck::bias::reference_values {

namespace {

Measurement alibi_values(const Matrix& b, const bias::Shape& c, int heads, const SubjectInfo& info) {
  const auto shift = static_cast<int>(bias::query_shift(info, c.n, c.m));
  const Matrix expected = reference::alibi_bias(c.n, c.m, c.head, heads, shift);
  // The published code builds slope h as start·ratio^h, a product of up to
  // H roundings; the entry is that slope times an exact distance.
  Check check = compare_entries("alibi values", b, expected,
                                Bound::upper(4.0 + heads, bias::scale_of(expected),
                                             "(4 + H roundings of the slope and its product) · max(1, |b|)"));
  const Eigen::Index i = check.where.row.value_or(0), j = check.where.column.value_or(0);
  check.where = bias::entry(i, j, c.head);
  check.where.label = fmt::format("b[{}][{}] of head {} of {} (slope {:.6g}){}", i, j, c.head, heads,
                                  reference::alibi_slopes(heads)[static_cast<size_t>(c.head)],
                                  bias::alignment_words(info, c.n, c.m));
  check.note = shift == 0 && c.n != c.m
                   ? "ALiBi's −slope_h·|i − j| with the published slopes (the closest-power-of-two rule for H not a "
                     "power of two), query i at key i (top-left alignment; a bias whose queries are the last n keys "
                     "declares params.bias.alignment = \"bottom_right\")"
                   : "ALiBi's −slope_h·|i + s − j| with the published slopes (the closest-power-of-two rule for H "
                     "not a power of two), s = m − n under the declared bottom-right alignment, else 0";
  return {{std::move(check)}, {}};
}

struct Representative {
  Eigen::Index i = 0, j = 0;
  double value = 0;
};

Measurement t5_partition(const Matrix& b, const bias::Shape& c, const BiasConvention& t5, Eigen::Index shift) {
  const double scale = bias::scale_of(b);
  std::map<int, Representative> buckets;  // bucket -> its first entry
  Check same{"same bucket, same value"};
  same.bound = Bound::exact("a learned bias is a table entry looked up, not computed: one bucket, one value");
  for (Eigen::Index i = 0; i < b.rows(); ++i) {
    for (Eigen::Index j = 0; j < b.cols(); ++j) {
      const int k = reference::t5_bucket(j - i - shift, t5.num_buckets, t5.max_distance, t5.bidirectional);
      const auto [first, inserted] = buckets.try_emplace(k, Representative{i, j, b(i, j)});
      if (inserted) continue;
      double error = std::fabs(b(i, j) - first->second.value);
      if (std::isnan(error)) error = std::numeric_limits<double>::infinity();
      if (error <= same.error) continue;
      same.error = error;
      same.where = bias::entry(i, j, c.head);
      same.where.label = fmt::format("b[{}][{}] (j − i = {}) vs b[{}][{}] (j − i = {}): both in bucket {}", i, j,
                                     j - i, first->second.i, first->second.j, first->second.j - first->second.i, k);
      same.observed = number_to_json(b(i, j));
      same.expected = number_to_json(first->second.value);
    }
  }
  same.note = "entries whose relative positions share a bucket of the declared T5 partition";
  Measurement out{{std::move(same)}, {}};
  if (buckets.size() < 2) return out;
  Check different{"different buckets, different values"};
  different.error = std::numeric_limits<double>::infinity();
  different.bound = Bound::lower(1, scale, "one rounding of max(1, |b|): two table entries that differ by less "
                                           "cannot be told apart");
  for (auto a = buckets.begin(); a != buckets.end(); ++a) {
    for (auto z = std::next(a); z != buckets.end(); ++z) {
      const double gap = std::fabs(a->second.value - z->second.value);
      if (!(gap < different.error)) continue;
      different.error = gap;
      different.where = bias::entry(z->second.i, z->second.j, c.head);
      different.where.label = fmt::format("b[{}][{}] (j − i = {}, bucket {}) vs b[{}][{}] (j − i = {}, bucket {})",
                                          z->second.i, z->second.j, z->second.j - z->second.i, z->first, a->second.i,
                                          a->second.j, a->second.j - a->second.i, a->first);
      different.observed = number_to_json(z->second.value);
      different.expected = fmt::format("not {}", a->second.value);
    }
  }
  different.note = "the smallest gap between the values of two different buckets (it must not be 0)";
  out.checks.push_back(std::move(different));
  return out;
}

Measurement reference_measure(Subject& s, const bias::Shape& c, const BoundModel&) {
  const SubjectInfo& info = s.info();
  if (!info.bias) throw Refusal("bias.reference_values needs a declared params.bias.scheme");
  const int heads = bias::declared_heads(info);
  // Generated heads are always declared ones; a recorded one may not be.
  if (c.head >= heads) throw InvalidInput(fmt::format("head {} is not one of the {} declared heads", c.head, heads));
  const Matrix b = bias::bias_checked(s, c);
  if (info.bias->scheme == BiasScheme::alibi) return alibi_values(b, c, heads, info);
  return t5_partition(b, c, *info.bias, bias::query_shift(info, c.n, c.m));
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {scaling({Axis::queries, Axis::keys},
                  define<bias::Shape>("bias.reference_values",
                                      {"alibi values", "same bucket, same value", "different buckets, different values"},
                                      bias::shape, reference_measure,
                                      DiagnoseFn<bias::Shape>([](Subject& s, const bias::Shape& c, const BoundModel&) {
                                        return bias::alignment_diagnosis(s, c);
                                      })))};
}

}  // namespace pecheck::bias::reference_values
