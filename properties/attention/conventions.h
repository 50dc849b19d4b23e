#pragma once
// What the claims of CLAIMS.md §8 share (attention/grouping.cpp,
// attention/masks.cpp, attention/logit_caps.cpp): grouped inputs under the
// subject's declared attention (params.attention), answers checked for shape,
// how far an answer moved per head, the key change that makes one key
// dominant for one query, and the bound of two evaluations.
//
// Error model: each comparison is of two evaluations of one attention (or one
// against the float64 reference), so the bound is attention/support.h's
// output_bound with the declared scale in the logit bound H (capped at the
// softcap where one is declared: a capped logit is at most c). A check that a
// change is seen is a lower bound — the move must exceed that rounding — and
// not checkable where the reference's own move (the declared convention in
// float64) is no larger than the rounding.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "attention/support.h"
#include "pecheck/property/compare.h"

namespace pecheck::attention {

// The subject's declared attention.
inline const AttentionConvention& declared(const SubjectInfo& subject) { return subject.attention; }

// Query, key and value matrices of one request: q n×(H·d_h), k m×(G·d_h), v m×(G·d_v).
struct Grouped {
  Matrix q, k, v;
  int heads = 1;
  int kv_heads() const { return static_cast<int>(k.cols() / (q.cols() / heads)); }
  Eigen::Index d_head() const { return q.cols() / heads; }
  Eigen::Index d_value() const { return v.cols() / kv_heads(); }
};

// Shapes drawn for a subject: its declared H and G (or 1 and 1), d_h and d_v
// in [1, 8] (shrinking toward 1), entries uniform in [−1, 1].
struct GroupedDims {
  int heads = 1, kv_heads = 1, d_head = 1, d_value = 1;
};
rc::Gen<GroupedDims> grouped_dims(const GenContext& ctx);
rc::Gen<Grouped> grouped(const GroupedDims& dims, Eigen::Index n, Eigen::Index m);
void validate_grouped(const Matrix& q, const Matrix& k, const Matrix& v, int heads);

// The subject's answer, its shape checked (n × H·d_v).
Matrix answer(Subject& s, const Grouped& g, const AttentionMask& mask);
// The reference's answer under the subject's declared convention in float64,
// or nothing where the reference refuses the request.
std::optional<Matrix> reference_answer(const SubjectInfo& subject, const Grouped& g, const AttentionMask& mask);

// The logit bound H of a request under the declared scale and cap (under
// dual chunk attention, scale·max ‖q_i‖·‖k_j‖ per head: a rotation keeps the
// norms, and the rotated features' partial sums stay within them).
double logit_bound(const SubjectInfo& subject, const Grouped& g);
// The d_h that output_bound counts a logit's roundings with: d_h, and under
// dual chunk attention d_h + P + 3, P the largest rotary position a visible
// pair is turned at (a rotation at angle P·ω_0 ≤ P rounds each rotated row
// within (P + 3)·u of its norm, and a logit has two of them).
double rounding_width(const SubjectInfo& subject, const Grouped& g);
// The bound of `evaluations` attention outputs of these inputs, values up to `value_scale`.
Bound evaluations_bound(const SubjectInfo& subject, const Grouped& g, int evaluations, double value_scale);

// max |a − b| over query head h's output block, for rows where `row` holds.
double head_move(const Matrix& a, const Matrix& b, int heads, int h, const std::function<bool(Eigen::Index)>& row);

// The key/value rows j of `g` changed so that key j dominates query i: for
// each kv head, its key row is q_i of the first query head reading it (under
// the declared grouping) scaled to a logit of `target`; its value row moves
// by `shift` (1 × G·d_v). Where q_i is zero the key row is left.
Grouped with_dominant_key(const SubjectInfo& subject, const Grouped& g, Eigen::Index i, Eigen::Index j,
                          const Matrix& shift, double target = 8);

// A visibility claim's case: causal attention of n queries over m keys, key
// j (with its value) changed to dominate probe query i; `shift` moves its value.
struct KeyChangeCase {
  Matrix q, k, v;
  int heads = 1;
  int changed = 0;
  Matrix shift;  // 1 × G·d_v, entries ±[1, 2]
  void validate() const;
  Grouped inputs() const { return {q, k, v, heads}; }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(KeyChangeCase, q, k, v, heads, changed, shift)

// Draws a KeyChangeCase of n queries and m keys (from `sizes`) and a changed key.
rc::Gen<KeyChangeCase> key_change_case(const GenContext& ctx,
                                       std::function<rc::Gen<std::pair<int, int>>()> sizes,
                                       std::function<rc::Gen<int>(int n, int m)> changed);

// The two checks of a visibility claim: `unseen` rows (those the convention
// hides key j from) unchanged exactly; the probe row, which must see key j,
// moved by more than rounding (not checkable where the reference's move is
// no larger). `probe` < 0: no probe row in this case (the seen check is then
// measured on the reference's own terms: see the note).
Measurement visibility(Subject& s, const KeyChangeCase& c, Eigen::Index probe,
                       const std::function<bool(Eigen::Index)>& unseen, const std::string& unseen_name,
                       const std::string& seen_name, const std::string& what);

// The keys a causal query r of n over m keys sees, probed on the subject: key
// j is seen when making it dominant moves row r. Keys from `from` to `to`.
std::vector<bool> probe_row(Subject& s, const SubjectInfo& subject, Eigen::Index n, Eigen::Index m, int heads,
                            Eigen::Index d_head, Eigen::Index r, Eigen::Index from, Eigen::Index to);

}  // namespace pecheck::attention
