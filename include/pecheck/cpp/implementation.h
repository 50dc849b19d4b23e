#pragma once
// Friendlier bases for an in-process C++ implementation under test: say what
// you are, override one function, and the adapter does the Subject plumbing.
// (Subclassing pecheck::Subject directly works too; see subjects/subject.h.)
//
//   struct MyEncoder : pecheck::cpp::Encoder {
//     MyEncoder() : Encoder({.name = "my-encoder", .dtype = pecheck::Dtype::float32}) {}
//     void encode_row(int dim, pecheck::Position t, pecheck::Position seq_len,
//                     std::span<double> row) override { ... }
//   };
//
// Throw pecheck::Refusal for an input you do not support (counted as a
// discard); any other exception is a subject failure.
//
// A rotary or an attention head with a backward pass of its own (CLAIMS.md
// §11) says .backward = true and overrides rotate_row_backward or
// attend_backward: the grad.* claims judge it.
#include <span>
#include <string>

#include "pecheck/subjects/subject.h"
#include "pecheck/subjects/typed_subject.h"

namespace pecheck::cpp {

struct Description {
  std::string name;                      // how reports name the implementation
  Dtype dtype = Dtype::float64;          // the precision it computes in: tolerances scale with it
  Layout layout = Layout::unspecified;   // encoders, rotaries: interleaved or halves pairs
  std::string scheme;                    // a profile name; empty: the profile its op implies
  bool backward = false;                 // rotaries, attention heads: it answers its op's backward
};

namespace detail {
inline SubjectInfo info_for(const Description& d, Op op) {
  SubjectInfo info;
  info.name = d.name;
  info.spec = cpp_spec(d.name);
  info.ops = static_cast<unsigned>(op);
  info.dtype = d.dtype;
  info.layout = d.layout;
  info.scheme = d.scheme;
  if (d.backward && (op == Op::rotate || op == Op::attention)) {
    info.ops |= static_cast<unsigned>(Op::backward);
    info.backward_of = static_cast<unsigned>(op);
    info.declared.push_back("params.backward.of");
  }
  return info;
}
}  // namespace detail

// An absolute positional encoding, one row at a time.
class Encoder : public TypedSubject {
 public:
  explicit Encoder(const Description& d) : info_(detail::info_for(d, Op::encode)) {}
  // Writes the encoding of `position` in a sequence of seq_len tokens (row.size() == dim).
  virtual void encode_row(int dim, Position position, Position seq_len, std::span<double> row) = 0;

  const SubjectInfo& info() const override { return info_; }
  Matrix encode(int dim, const Positions& positions, Position seq_len) override {
    Matrix out(static_cast<Eigen::Index>(positions.size()), dim);
    for (Eigen::Index r = 0; r < out.rows(); ++r) {
      encode_row(dim, positions[static_cast<size_t>(r)], seq_len, {out.row(r).data(), static_cast<size_t>(dim)});
    }
    return out;
  }

 private:
  SubjectInfo info_;
};

// A rotary encoding, one vector at a time: out = R_position x.
class Rotary : public TypedSubject {
 public:
  explicit Rotary(const Description& d) : info_(detail::info_for(d, Op::rotate)) {}
  virtual void rotate_row(Position position, std::span<const double> x, std::span<double> out) = 0;
  // With .backward: dx = (∂ out/∂x)ᵀ grad for the row at `position` (for a rotation, R(−θ)·grad).
  virtual void rotate_row_backward(Position, std::span<const double>, std::span<double>) {
    throw Refusal(info_.name + " declares .backward but does not override rotate_row_backward");
  }

  const SubjectInfo& info() const override { return info_; }
  Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position>) override {
    Matrix out(x.rows(), x.cols());
    const auto d = static_cast<size_t>(x.cols());
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
      rotate_row(positions[static_cast<size_t>(r)], {x.row(r).data(), d}, {out.row(r).data(), d});
    }
    return out;
  }
  Batch rotate_backward(const RotateCall& call, const Matrix& grad) override {
    if ((info_.backward_of & static_cast<unsigned>(Op::rotate)) == 0) return TypedSubject::rotate_backward(call, grad);
    Matrix dx(grad.rows(), grad.cols());
    const auto d = static_cast<size_t>(grad.cols());
    for (Eigen::Index r = 0; r < grad.rows(); ++r) {
      rotate_row_backward(call.positions[static_cast<size_t>(r)], {grad.row(r).data(), d}, {dx.row(r).data(), d});
    }
    return {dx};
  }

 private:
  SubjectInfo info_;
};

// The VJPs of one attention head: w.r.t. q, k and v.
struct AttentionGrads {
  Matrix dq, dk, dv;
};

// One head of scaled dot-product attention.
class AttentionHead : public TypedSubject {
 public:
  explicit AttentionHead(const Description& d) : info_(detail::info_for(d, Op::attention)) {}
  // softmax(q kᵀ/√d_k + mask) v for q n×d_k, k m×d_k, v m×d_v; returns n×d_v.
  virtual Matrix attend(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask) = 0;
  // With .backward: the VJPs of attend at (q, k, v, mask) for the upstream gradient grad (n×d_v).
  virtual AttentionGrads attend_backward(const Matrix&, const Matrix&, const Matrix&, const AttentionMask&,
                                         const Matrix&) {
    throw Refusal(info_.name + " declares .backward but does not override attend_backward");
  }

  const SubjectInfo& info() const override { return info_; }
  Matrix attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask,
                   int heads) override {
    if (heads != 1) throw Refusal("an AttentionHead computes one head");
    return attend(q, k, v, mask);
  }
  Batch attention_backward(const AttentionCall& call, const Matrix& grad) override {
    if ((info_.backward_of & static_cast<unsigned>(Op::attention)) == 0) {
      return TypedSubject::attention_backward(call, grad);
    }
    if (call.heads != 1) throw Refusal("an AttentionHead computes one head");
    AttentionGrads g = attend_backward(call.q, call.k, call.v, call.mask, grad);
    return {std::move(g.dq), std::move(g.dk), std::move(g.dv)};
  }

 private:
  SubjectInfo info_;
};

}  // namespace pecheck::cpp
