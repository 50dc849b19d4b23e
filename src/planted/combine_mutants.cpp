// Planted combine bugs: each a CombineSubject with one op overridden, judged
// by the "combine" scheme (declared float64).
#include <algorithm>
#include <cmath>

#include "pecheck/subjects/builtin/combine.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/planted/mutants.h"

namespace pecheck {

namespace planted::combine_mutants {  // the file's own names (the planted bugs compile in unity batches)

SubjectInfo mutant_info(const std::string& name) { return combine_info(name, mutant_spec(name)); }

// [P | X] instead of [X | P]: the position block first.
class ConcatPositionFirst : public CombineSubject {
 public:
  ConcatPositionFirst() : CombineSubject(mutant_info("combine-concat-position-first")) {}
  Matrix concat(const Matrix& x, const Matrix& p) override { return CombineSubject::concat(p, x); }
};

// Writes the position block one column early: it overwrites the token's last
// entry and leaves the last column zero (an off-by-one offset into a buffer).
class ConcatOffsetByOne : public CombineSubject {
 public:
  ConcatOffsetByOne() : CombineSubject(mutant_info("combine-concat-offset-by-one")) {}
  Matrix concat(const Matrix& x, const Matrix& p) override {
    require_same_rows(x, p, "concat");
    Matrix out = Matrix::Zero(x.rows(), x.cols() + p.cols());
    out.leftCols(x.cols()) = x;
    out.middleCols(x.cols() - 1, p.cols()) = p;
    return out;
  }
};

// Declares float64 but adds in float32 (the inputs and the sum rounded).
class AddFloat32 : public CombineSubject {
 public:
  AddFloat32() : CombineSubject(mutant_info("combine-add-float32")) {}
  Matrix add(const Matrix& x, const Matrix& p) override {
    require_same_shape(x, p, "add");
    return (x.cast<float>() + p.cast<float>()).cast<double>();
  }
};

// Re-lays the position out from interleaved to halves order (even entries
// first, then odd) before adding: the position leaks into other coordinates.
class AddPositionRelayout : public CombineSubject {
 public:
  AddPositionRelayout() : CombineSubject(mutant_info("combine-add-position-relayout")) {}
  Matrix add(const Matrix& x, const Matrix& p) override {
    require_same_shape(x, p, "add");
    Matrix relaid(p.rows(), p.cols());
    Eigen::Index to = 0;
    for (Eigen::Index from = 0; from < p.cols(); from += 2) relaid.col(to++) = p.col(from);
    for (Eigen::Index from = 1; from < p.cols(); from += 2) relaid.col(to++) = p.col(from);
    return x + relaid;
  }
};

// Scales the position by A = 0.1 before adding (001's suggestion, applied
// where plain addition was promised): no longer x + p.
class AddScaledPosition : public CombineSubject {
 public:
  AddScaledPosition() : CombineSubject(mutant_info("combine-add-scaled-position")) {}
  Matrix add(const Matrix& x, const Matrix& p) override {
    require_same_shape(x, p, "add");
    return x + 0.1 * p;
  }
};

// Reads W's row-major buffer as column-major (a BLAS call with the wrong
// storage order): the shape is right, the entries are transposed-and-reshaped.
class ProjectColumnMajor : public CombineSubject {
 public:
  ProjectColumnMajor() : CombineSubject(mutant_info("combine-project-column-major")) {}
  Matrix project(const Matrix& w, const Matrix& z) override {
    const Eigen::Map<const Eigen::MatrixXd> misread(w.data(), w.rows(), w.cols());
    return CombineSubject::project(Matrix(misread), z);
  }
};

// softmax(q kᵀ) v: the 1/√d_k scale forgotten (the logits grow with the
// width). Still order-blind, so only a comparison of values can see it.
class AttentionUnscaled : public CombineSubject {
 public:
  AttentionUnscaled() : CombineSubject(mutant_info("combine-attention-unscaled")) {}
  Matrix attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask, int heads) override {
    const double head_width = static_cast<double>(q.cols()) / std::max(heads, 1);
    return CombineSubject::attention(q * std::sqrt(head_width), k, v, mask, heads);
  }
};

template <class Bug>
SubjectEntry entry(std::string name, std::string description) {
  return {std::move(name), std::move(description), [] { return std::make_unique<Bug>(); }};
}

}  // namespace planted::combine_mutants

std::vector<SubjectEntry> combine_mutants() {
  using namespace planted::combine_mutants;
  return {
      entry<ConcatPositionFirst>("combine-concat-position-first", "concat returning [P | X] instead of [X | P]"),
      entry<ConcatOffsetByOne>("combine-concat-offset-by-one",
                               "concat writing P one column early, over the token's last entry"),
      entry<AddFloat32>("combine-add-float32", "add computed in float32 while declaring float64"),
      entry<AddPositionRelayout>("combine-add-position-relayout",
                                 "add that re-lays P out from interleaved to halves order first"),
      entry<AddScaledPosition>("combine-add-scaled-position", "add computing X + 0.1·P"),
      entry<ProjectColumnMajor>("combine-project-column-major", "project reading W's buffer as column-major"),
      entry<AttentionUnscaled>("combine-attention-unscaled", "attention computing softmax(q kᵀ) v, without 1/√d_k"),
  };
}

}  // namespace pecheck
