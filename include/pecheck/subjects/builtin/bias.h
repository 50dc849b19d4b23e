#pragma once
// Built-in attention-bias subjects (CLAIMS.md §6): ALiBi with the published
// slopes, and T5 relative-position buckets over a fixed random (learned)
// table. Each declares params.bias; planted bugs override one step.
#include <cstdint>
#include <vector>

#include "pecheck/subjects/builtin/builtins.h"
#include "pecheck/subjects/typed_subject.h"

namespace pecheck {

// info for a bias subject: op bias, float64, params.bias = `convention`
// (declared: scheme and heads; for t5 also num_buckets, max_distance and
// bidirectional), judged by `scheme`.
SubjectInfo bias_info(std::string name, SubjectSpec spec, const BiasConvention& convention, std::string scheme);

// Refuses what no bias subject answers: a negative or huge shape, a head
// outside 0..heads−1.
void check_bias_request(const SubjectInfo& info, int n, int m, int head);

// b[i][j] = −slope_h·|i−j| with reference::alibi_slopes(heads).
class AlibiSubject : public TypedSubject {
 public:
  explicit AlibiSubject(SubjectInfo info) : info_(std::move(info)) {}
  const SubjectInfo& info() const override { return info_; }
  Matrix bias(int n, int m, int head) override;

 protected:
  // The slope of every head.
  virtual std::vector<double> slopes(int heads) const;
  // The bias of query i, key j for a head of slope `slope`.
  virtual double entry(int i, int j, double slope) const;

 private:
  SubjectInfo info_;
};

// b[i][j] = table[bucket(j − i)][head]: the table is num_buckets × heads of
// values drawn uniformly from [−1, 1] with a fixed seed (a learned table: its
// values mean nothing, its partition into buckets is the scheme).
class T5BiasSubject : public TypedSubject {
 public:
  T5BiasSubject(SubjectInfo info, std::uint64_t seed);
  const SubjectInfo& info() const override { return info_; }
  Matrix bias(int n, int m, int head) override;

 protected:
  // The bucket of relative position j − i (reference::t5_bucket by default).
  virtual int bucket(Position relative) const;
  const BiasConvention& convention() const { return *info_.bias; }

 private:
  SubjectInfo info_;
  Matrix table_;
};

// The seed of the built-in T5 tables (mutants draw the same table).
inline constexpr std::uint64_t kT5TableSeed = 0x75B1A5;

// Whether alibi, alibi-12, t5 and t5-causal are columns of the default
// claims matrix (the bias.* claims).
inline constexpr bool kBiasInDefaultMatrix = true;

std::vector<SubjectEntry> bias_builtins();

}  // namespace pecheck
