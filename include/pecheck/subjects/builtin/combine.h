#pragma once
// The built-in combine subject (CLAIMS.md §4): adding and concatenating token
// and position embeddings, a row-wise linear projection, and a correct scaled
// dot-product attention to carry the combinations through.
#include <vector>

#include "pecheck/subjects/builtin/builtins.h"
#include "pecheck/subjects/typed_subject.h"

namespace pecheck {

// add(X, P) = X + P row-wise, concat(X, P) = [X | P], project(W, Z) = rows W z_r,
// attention = the reference scaled dot-product attention (reference/attention.h);
// all in float64. Planted bugs override one op.
class CombineSubject : public TypedSubject {
 public:
  explicit CombineSubject(SubjectInfo info) : info_(std::move(info)) {}
  const SubjectInfo& info() const override { return info_; }
  Matrix add(const Matrix& x, const Matrix& p) override;
  Matrix concat(const Matrix& x, const Matrix& p) override;
  Matrix project(const Matrix& w, const Matrix& z) override;
  Matrix attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask,
                   int heads = 1) override;

 private:
  SubjectInfo info_;
};

// info for a combine subject: ops combine and attention, float64, scheme "combine".
SubjectInfo combine_info(std::string name, SubjectSpec spec);

// Refusals shared with the planted bugs: the shapes each op accepts.
void require_same_rows(const Matrix& x, const Matrix& p, std::string_view op);
void require_same_shape(const Matrix& x, const Matrix& p, std::string_view op);

std::vector<SubjectEntry> combine_builtins();

}  // namespace pecheck
