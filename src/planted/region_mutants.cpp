// Region adversaries: correct built-ins that are exact everywhere except in
// one region of the input space, where they add 1e-3 to their answers — the
// way size-dependent code paths go wrong (a tiled kernel past its first tile,
// a vector tail at a head dim of 128 or 256, a prefill of hundreds of rows,
// a rolling cache once it wraps, state that drifts after some requests).
// Each region lies beyond what the search's small cases reach; the shape
// ladder (property/sizes.h) must reach it at default settings.
// tests/test_region_adversaries.cpp runs each through a whole default run.
#include <fmt/format.h>

#include <functional>
#include <map>

#include "pecheck/planted/mutants.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/typed_subject.h"

namespace pecheck {

namespace planted::region_mutants {  // the file's own names (the planted bugs compile in unity batches)

constexpr double kOff = 1e-3;

// What a request looks like, for a region to decide on.
struct Request {
  Op op = Op::encode;
  std::int64_t width = 0;     // d (per head for attention)
  std::int64_t rows = 0;      // encode, rotate: rows
  std::int64_t queries = 0;   // attention, bias: n
  std::int64_t keys = 0;      // attention, bias: m
  std::int64_t tokens = 0;    // forward: N; decode: tokens since the session's reset, this one included
  std::int64_t answered = 0;  // requests this object answered before this one
};
using Region = std::function<bool(const Request&)>;

// A built-in, forwarded, with kOff added to every answer in `region` (for a
// bias: to the entries of keys from `from_key` on).
class OffInRegion final : public TypedSubject {
 public:
  OffInRegion(const std::string& name, const std::string& builtin, Region region, Eigen::Index from_key = 0)
      : inner_(make_subject(builtin_spec(builtin))), region_(std::move(region)), from_key_(from_key) {
    info_ = inner_->info();
    info_.name = name;
    info_.spec = mutant_spec(name);
  }
  const SubjectInfo& info() const override { return info_; }

  Matrix encode(int dim, const Positions& positions, Position seq_len) override {
    return off(ask::encode(*inner_, dim, positions, seq_len),
               {Op::encode, dim, static_cast<std::int64_t>(positions.size()), 0, 0, 0, answered_});
  }
  Matrix attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask, int heads) override {
    return off(ask::attention(*inner_, q, k, v, mask, heads),
               {Op::attention, q.cols() / std::max(heads, 1), 0, q.rows(), k.rows(), 0, answered_});
  }
  Matrix logits(const Matrix& q, const Matrix& k, const AttentionMask& mask) override {
    return ask::logits(*inner_, q, k, mask);
  }
  Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override {
    return off(ask::rotate(*inner_, positions, x, seq_len), {Op::rotate, x.cols(), x.rows(), 0, 0, 0, answered_});
  }
  Matrix bias(int n, int m, int head) override {
    Matrix b = ask::bias(*inner_, n, m, head);
    const bool in = region_({Op::bias, 0, 0, n, m, 0, answered_++});
    if (in && b.cols() > from_key_) b.rightCols(b.cols() - from_key_).array() += kOff;
    return b;
  }
  Batch forward(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding) override {
    Batch y = ask::forward(*inner_, x, positions, padding);
    const std::int64_t tokens = x.empty() ? 0 : x.front().rows();
    if (region_({Op::forward, x.empty() ? 0 : x.front().cols(), 0, 0, 0, tokens, answered_++})) {
      for (auto& m : y) m.array() += kOff;
    }
    return y;
  }
  Vector decode(const std::string& session, const Vector& x, Position position) override {
    Vector y = ask::decode(*inner_, session, x, position);
    const std::int64_t tokens = ++decoded_[session];
    if (region_({Op::decode, x.size(), 0, 0, 0, tokens, answered_++})) y.array() += kOff;
    return y;
  }
  void reset(const std::string& session) override {
    ask::reset(*inner_, session);
    decoded_.erase(session);
    ++answered_;
  }

 private:
  Matrix off(Matrix y, const Request& request) {
    ++answered_;
    if (region_(request)) y.array() += kOff;
    return y;
  }

  SubjectPtr inner_;
  SubjectInfo info_;
  Region region_;
  Eigen::Index from_key_;
  std::int64_t answered_ = 0;
  std::map<std::string, std::int64_t> decoded_;
};

SubjectEntry region(std::string name, std::string builtin, std::string description, Region in,
                    Eigen::Index from_key = 0) {
  return {name, std::move(description),
          [name, builtin, in, from_key] { return std::make_unique<OffInRegion>(name, builtin, in, from_key); }};
}

}  // namespace planted::region_mutants

std::vector<SubjectEntry> region_mutants() {
  using namespace planted::region_mutants;
  return {
      region("region-rope-d128", "rope", "rope exact except +1e-3 at head_dim ≥ 128 (Llama, Mistral, Qwen)",
             [](const Request& r) { return r.op == Op::rotate && r.width >= 128; }),
      region("region-rope-d256", "rope", "rope exact except +1e-3 at head_dim ≥ 256 (Gemma)",
             [](const Request& r) { return r.op == Op::rotate && r.width >= 256; }),
      region("region-rope-rows256", "rope", "rope exact except +1e-3 in a request of ≥ 256 rows (a prefill)",
             [](const Request& r) { return r.op == Op::rotate && r.rows >= 256; }),
      region("region-sinusoidal-rows256", "sinusoidal",
             "sinusoidal encoder exact except +1e-3 in a request of ≥ 256 positions",
             [](const Request& r) { return r.op == Op::encode && r.rows >= 256; }),
      region("region-attention-tokens32", "attention",
             "attention exact except +1e-3 with ≥ 32 queries or keys (a tiled kernel's second tile)",
             [](const Request& r) { return r.op == Op::attention && (r.queries >= 32 || r.keys >= 32); }),
      region("region-attention-tokens64", "attention", "attention exact except +1e-3 with ≥ 64 queries or keys",
             [](const Request& r) { return r.op == Op::attention && (r.queries >= 64 || r.keys >= 64); }),
      region("region-attention-d64", "attention", "attention exact except +1e-3 at head dim ≥ 64",
             [](const Request& r) { return r.op == Op::attention && r.width >= 64; }),
      region("region-attention-d128", "attention", "attention exact except +1e-3 at head dim ≥ 128",
             [](const Request& r) { return r.op == Op::attention && r.width >= 128; }),
      region("region-alibi-keys64", "alibi", "ALiBi exact except +1e-3 over ≥ 64 keys",
             [](const Request& r) { return r.op == Op::bias && r.keys >= 64; }),
      region("region-t5-keys1024", "t5",
             "T5 buckets exact except +1e-3 on keys 1024 and later (a kernel past its first tile of 1024 keys)",
             [](const Request& r) { return r.op == Op::bias && r.keys > 1024; }, 1024),
      region("region-module-tokens16", "llama-block", "Llama block whose forward is +1e-3 over ≥ 16 tokens",
             [](const Request& r) { return r.op == Op::forward && r.tokens >= 16; }),
      region("region-module-tokens32", "llama-block", "Llama block whose forward is +1e-3 over ≥ 32 tokens",
             [](const Request& r) { return r.op == Op::forward && r.tokens >= 32; }),
      region("region-module-tokens64", "llama-block", "Llama block whose forward is +1e-3 over ≥ 64 tokens",
             [](const Request& r) { return r.op == Op::forward && r.tokens >= 64; }),
      region("region-module-drift10", "encoder-layer",
             "forward-only encoder layer whose answers drift by +1e-3 after 10 requests (state kept across calls)",
             [](const Request& r) { return r.answered >= 10; }),
      region("region-module-drift50", "encoder-layer",
             "forward-only encoder layer whose answers drift by +1e-3 after 50 requests (state kept across calls)",
             [](const Request& r) { return r.answered >= 50; }),
      region("region-decode-wrap32", "llama-block",
             "Llama block whose decode is +1e-3 once a session passes 32 tokens (a rolling cache that wraps)",
             [](const Request& r) { return r.op == Op::decode && r.tokens > 32; }),
  };
}

std::vector<PlantedCatch> region_catches() {
  using namespace planted::region_mutants;
  return {
      {"region-rope-d128", "rope.reference_values", "entries"},
      {"region-rope-d256", "rope.reference_values", "entries"},
      {"region-rope-rows256", "rope.reference_values", "entries"},
      {"region-sinusoidal-rows256", "pe.reference_values", "entries"},
      {"region-attention-tokens32", "attention.convex_combination", "columns within the values' range"},
      {"region-attention-tokens64", "attention.convex_combination", "columns within the values' range"},
      {"region-attention-d64", "attention.convex_combination", "columns within the values' range"},
      {"region-attention-d128", "attention.convex_combination", "columns within the values' range"},
      {"region-alibi-keys64", "bias.reference_values", "alibi values"},
      {"region-t5-keys1024", "bias.reference_values", "same bucket, same value"},
      {"region-module-tokens16", "module.incremental_decoding", "decoded rows"},
      {"region-module-tokens32", "module.incremental_decoding", "decoded rows"},
      {"region-module-tokens64", "module.incremental_decoding", "decoded rows"},
      {"region-module-drift10", "history_independence", "same answer as a fresh subject"},
      {"region-module-drift50", "history_independence", "same answer as a fresh subject"},
      {"region-decode-wrap32", "module.incremental_decoding", "decoded rows"},
  };
}

}  // namespace pecheck
