#include "pecheck/subjects/builtin/bias.h"

#include <fmt/format.h>

#include <cstdlib>

#include "pecheck/core/subject_spec.h"
#include "pecheck/gen/fast_random.h"
#include "pecheck/reference/bias.h"

namespace pecheck {

namespace {
// The largest bias matrix answered: a request beyond it is refused rather
// than left to exhaust memory (16 Mi entries, 128 MiB of doubles).
constexpr long long kMaxEntries = 1LL << 24;
}  // namespace

SubjectInfo bias_info(std::string name, SubjectSpec spec, const BiasConvention& convention, std::string scheme) {
  SubjectInfo info;
  info.name = std::move(name);
  info.spec = std::move(spec);
  info.ops = static_cast<unsigned>(Op::bias);
  info.dtype = Dtype::float64;
  info.bias = convention;
  info.scheme = std::move(scheme);
  info.declared = {"params.bias.scheme", "params.bias.heads"};
  if (convention.scheme == BiasScheme::t5) {
    info.declared.insert(info.declared.end(), {"params.bias.num_buckets", "params.bias.max_distance",
                                               "params.bias.bidirectional"});
  }
  return info;
}

void check_bias_request(const SubjectInfo& info, int n, int m, int head) {
  if (n < 0 || m < 0 || static_cast<long long>(n) * m > kMaxEntries) {
    throw Refusal(fmt::format("{} answers biases of 0..{} entries, not {}×{}", info.name, kMaxEntries, n, m));
  }
  const int heads = info.bias ? info.bias->heads : 1;
  if (head < 0 || head >= heads) {
    throw Refusal(fmt::format("{} has heads 0..{}, not head {}", info.name, heads - 1, head));
  }
}

std::vector<double> AlibiSubject::slopes(int heads) const { return reference::alibi_slopes(heads); }

double AlibiSubject::entry(int i, int j, double slope) const { return -slope * std::abs(i - j); }

Matrix AlibiSubject::bias(int n, int m, int head) {
  check_bias_request(info_, n, m, head);
  const double slope = slopes(info_.bias->heads)[static_cast<size_t>(head)];
  Matrix b(n, m);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) b(i, j) = entry(i, j, slope);
  }
  return b;
}

T5BiasSubject::T5BiasSubject(SubjectInfo info, std::uint64_t seed) : info_(std::move(info)) {
  gen::FastRandom random(seed);
  table_.resize(info_.bias->num_buckets, info_.bias->heads);
  for (Eigen::Index r = 0; r < table_.rows(); ++r) {
    for (Eigen::Index c = 0; c < table_.cols(); ++c) table_(r, c) = random.uniform(-1, 1);
  }
}

int T5BiasSubject::bucket(Position relative) const {
  const auto& c = convention();
  return reference::t5_bucket(relative, c.num_buckets, c.max_distance, c.bidirectional);
}

Matrix T5BiasSubject::bias(int n, int m, int head) {
  check_bias_request(info_, n, m, head);
  Matrix b(n, m);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) {
      const int k = bucket(static_cast<Position>(j) - i);
      if (k < 0 || k >= table_.rows()) {
        throw std::logic_error(fmt::format("{}: bucket {} of relative position {} outside the table of {}",
                                           info_.name, k, j - i, table_.rows()));
      }
      b(i, j) = table_(k, head);
    }
  }
  return b;
}

namespace {

BiasConvention alibi(int heads) { return {BiasScheme::alibi, heads}; }

BiasConvention t5(bool bidirectional) {
  BiasConvention c;
  c.scheme = BiasScheme::t5;
  c.heads = 8;
  c.num_buckets = 32;
  c.max_distance = 128;
  c.bidirectional = bidirectional;
  return c;
}

SubjectEntry alibi_entry(std::string name, std::string description, int heads) {
  return {name, std::move(description),
          [name, heads] {
            return std::make_unique<AlibiSubject>(bias_info(name, builtin_spec(name), alibi(heads), "alibi"));
          },
          kBiasInDefaultMatrix};
}

SubjectEntry t5_entry(std::string name, std::string description, bool bidirectional) {
  return {name, std::move(description),
          [name, bidirectional] {
            return std::make_unique<T5BiasSubject>(bias_info(name, builtin_spec(name), t5(bidirectional), "t5"),
                                                   kT5TableSeed);
          },
          kBiasInDefaultMatrix};
}

}  // namespace

std::vector<SubjectEntry> bias_builtins() {
  return {
      alibi_entry("alibi", "ALiBi bias −slope_h·|i−j|, 8 heads, slopes 2^(−8(h+1)/8) (Press et al.)", 8),
      alibi_entry("alibi-12",
                  "ALiBi bias, 12 heads (not a power of two): the 8-head slopes, then every other 16-head slope", 12),
      t5_entry("t5", "T5 relative buckets, bidirectional, 32 buckets, max_distance 128, a fixed random table", true),
      t5_entry("t5-causal", "T5 relative buckets, unidirectional (decoder), 32 buckets, max_distance 128", false),
  };
}

}  // namespace pecheck
