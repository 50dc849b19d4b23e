#include "pecheck/subjects/builtin/combine.h"

#include <fmt/format.h>

#include "pecheck/reference/attention.h"

namespace pecheck {

SubjectInfo combine_info(std::string name, SubjectSpec spec) {
  SubjectInfo info;
  info.name = std::move(name);
  info.spec = std::move(spec);
  info.ops = static_cast<unsigned>(Op::combine) | static_cast<unsigned>(Op::attention);
  info.dtype = Dtype::float64;
  info.multi_head = true;
  info.scheme = "combine";
  return info;
}

void require_same_rows(const Matrix& x, const Matrix& p, std::string_view op) {
  if (x.rows() != p.rows()) {
    throw Refusal(fmt::format("{}: {} token rows but {} position rows", op, x.rows(), p.rows()));
  }
}

void require_same_shape(const Matrix& x, const Matrix& p, std::string_view op) {
  require_same_rows(x, p, op);
  if (x.cols() != p.cols()) {
    throw Refusal(fmt::format("{}: token width {} differs from position width {}", op, x.cols(), p.cols()));
  }
}

Matrix CombineSubject::add(const Matrix& x, const Matrix& p) {
  require_same_shape(x, p, "add");
  return x + p;
}

Matrix CombineSubject::concat(const Matrix& x, const Matrix& p) {
  require_same_rows(x, p, "concat");
  Matrix out(x.rows(), x.cols() + p.cols());
  out << x, p;
  return out;
}

Matrix CombineSubject::project(const Matrix& w, const Matrix& z) {
  if (w.cols() != z.cols()) {
    throw Refusal(fmt::format("project: W has {} columns but z has {} entries", w.cols(), z.cols()));
  }
  return z * w.transpose();
}

Matrix CombineSubject::attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask,
                                 int heads) {
  return reference::attention(q, k, v, mask, heads);
}

std::vector<SubjectEntry> combine_builtins() {
  return {{"combine", "add, concatenate and project token and position embeddings; scaled dot-product attention",
           [] { return std::make_unique<CombineSubject>(combine_info("combine", builtin_spec("combine"))); }}};
}

}  // namespace pecheck
