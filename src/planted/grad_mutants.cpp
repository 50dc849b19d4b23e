// Planted bugs in a backward pass (CLAIMS.md §11), each with a correct
// forward, so that every forward claim holds and only the gradient claims
// can tell: the kinds published kernels have had (Liger-Kernel #1373's fused
// RoPE backward; PyTorch #196678's NaN in grad_q; GQA kernels reducing dK/dV
// over the wrong heads).
#include <fmt/format.h>

#include <cmath>

#include "pecheck/core/subject_spec.h"
#include "pecheck/planted/mutants.h"
#include "pecheck/reference/attention.h"
#include "pecheck/reference/vjp.h"
#include "pecheck/subjects/builtin/attention.h"
#include "pecheck/subjects/builtin/modules_llama.h"
#include "pecheck/subjects/builtin/rope.h"

namespace pecheck {

namespace planted::grad_mutants {  // the file's own names (the planted bugs compile in unity batches)

SubjectInfo rope_backward_info(std::string name, Layout layout) {
  SubjectInfo info = rope_info(name, mutant_spec(name), layout, Dtype::float64, layout == Layout::halves ? "rope-halves" : "rope");
  info.ops |= static_cast<unsigned>(Op::backward);
  info.backward_of = static_cast<unsigned>(Op::rotate);
  return info;
}

// The backward turns g by +θ, as the forward turns x: the cos/sin table
// reused without transposing (a sign lost on the sin term of the backward).
class RopeBackwardForwardTurn : public RopeSubject {
 public:
  RopeBackwardForwardTurn() : RopeSubject(rope_backward_info("rope-backward-plus-theta", Layout::interleaved)) {}

 protected:
  bool backward_transposes() const override { return false; }
};

// The forward pairs (2i, 2i+1); the backward pairs (i, i + r/2) (a
// rotate_half backward beside an interleaved forward kernel).
class RopeBackwardHalves : public RopeSubject {
 public:
  RopeBackwardHalves() : RopeSubject(rope_backward_info("rope-backward-halves-layout", Layout::interleaved)) {}

 protected:
  Layout backward_layout() const override { return Layout::halves; }
};

// Which of the VJPs a bug touches (the others are the reference's): each
// sub-check of a claim has a bug of its own that only it decides.
enum Part : unsigned { kDq = 1, kDk = 2, kDv = 4 };

SubjectInfo attention_backward_info(std::string name) {
  return with_backward(attention_info(name, mutant_spec(name), Dtype::float64));
}

// Attention whose forward is the built-in's, whose backward is the reference
// VJP with `parts` taken from the bug's own computation.
class AttentionBackwardBug : public AttentionSubject {
 public:
  AttentionBackwardBug(SubjectInfo info, unsigned parts) : AttentionSubject(std::move(info)), parts_(parts) {}
  Batch attention_backward(const AttentionCall& c, const Matrix& g) override {
    const AttentionConvention& conv = info().attention;
    reference::AttentionVjp out = reference::attention_vjp(c.q, c.k, c.v, c.mask, c.heads, conv, g);
    const reference::AttentionVjp bad = wrong(c, g, conv, out);
    if (parts_ & kDq) out.dq = bad.dq;
    if (parts_ & kDk) out.dk = bad.dk;
    if (parts_ & kDv) out.dv = bad.dv;
    return {out.dq, out.dk, out.dv};
  }

 protected:
  // The bug's VJPs, given the right ones.
  virtual reference::AttentionVjp wrong(const AttentionCall& c, const Matrix& g, const AttentionConvention& conv,
                                        reference::AttentionVjp right) const = 0;

 private:
  unsigned parts_;
};

// dq = ds·k without the softmax scale λ (it was folded into the forward's q
// and forgotten on the way back).
class MissingScaleInDq : public AttentionBackwardBug {
 public:
  MissingScaleInDq() : AttentionBackwardBug(attention_backward_info("attention-backward-dq-unscaled"), kDq) {}

 protected:
  reference::AttentionVjp wrong(const AttentionCall& c, const Matrix&, const AttentionConvention& conv,
                                reference::AttentionVjp right) const override {
    right.dq /= conv.scale_for(c.q.cols() / std::max(1, c.heads));
    return right;
  }
};

// Grouped-query attention, 4 query heads over 2 kv heads grouped
// repeat_interleave (torch's repeat_kv, kv head ⌊h/2⌋), whose backward
// computes dK (or dV) as though query head h read kv head h mod 2 and sums it there.
SubjectInfo gqa_info(std::string name) {
  SubjectInfo info = attention_backward_info(std::move(name));
  info.attention.heads = 4;
  info.attention.kv_heads = 2;
  info.declared = {"params.attention.heads", "params.attention.kv_heads"};
  return info;
}

class GqaWrongKvHead : public AttentionBackwardBug {
 public:
  GqaWrongKvHead(std::string name, unsigned part) : AttentionBackwardBug(gqa_info(std::move(name)), part) {}

 protected:
  reference::AttentionVjp wrong(const AttentionCall& c, const Matrix& g, const AttentionConvention& conv,
                                reference::AttentionVjp) const override {
    AttentionConvention tiled = conv;
    tiled.grouping = Grouping::tile;
    return reference::attention_vjp(c.q, c.k, c.v, c.mask, c.heads, tiled, g);
  }
};

// fully_masked = zeros: the forward's zero row is right, but the backward
// divides by the empty softmax sum and answers NaN in that row's dq.
SubjectInfo zeros_info(std::string name) {
  SubjectInfo info = attention_backward_info(std::move(name));
  info.attention.fully_masked = FullyMasked::zeros;
  info.declared = {"params.attention.fully_masked"};
  return info;
}

class MaskedRowNan : public AttentionBackwardBug {
 public:
  MaskedRowNan() : AttentionBackwardBug(zeros_info("attention-backward-masked-row-nan"), kDq) {}

 protected:
  reference::AttentionVjp wrong(const AttentionCall& c, const Matrix&, const AttentionConvention& conv,
                                reference::AttentionVjp right) const override {
    const BoolMatrix seen = reference::visible_keys(c.mask, c.q.rows(), c.k.rows(), conv);
    for (Eigen::Index i = 0; i < seen.rows(); ++i) {
      if (!seen.row(i).any()) right.dq.row(i).setConstant(std::nan(""));
    }
    return right;
  }
};

// A tiled kernel's tail tile read past the end under a mask (PyTorch
// #196678's kind): NaN in dK's last 64 rows when n mod 128 = 64, or in dV's
// last row when n mod 64 = 1 (a one-row tail).
class TileRemainderNan : public AttentionBackwardBug {
 public:
  TileRemainderNan(std::string name, unsigned part) : AttentionBackwardBug(attention_backward_info(std::move(name)), part) {}

 protected:
  reference::AttentionVjp wrong(const AttentionCall& c, const Matrix&, const AttentionConvention&,
                                reference::AttentionVjp right) const override {
    const Eigen::Index m = c.k.rows();
    const bool masked = c.mask.kind != AttentionMask::Kind::none;
    if (masked && m % 128 == 64) right.dk.bottomRows(64).setConstant(std::nan(""));
    if (m % 64 == 1 && m > 1) right.dv.bottomRows(1).setConstant(std::nan(""));
    return right;
  }
};

// A causal forward whose backward recomputes the weights without the mask:
// dK (or dV) of future keys receives gradient.
class CausalBackwardLeaks : public AttentionBackwardBug {
 public:
  CausalBackwardLeaks(std::string name, unsigned part) : AttentionBackwardBug(attention_backward_info(std::move(name)), part) {}

 protected:
  reference::AttentionVjp wrong(const AttentionCall& c, const Matrix& g, const AttentionConvention& conv,
                                reference::AttentionVjp right) const override {
    if (c.mask.kind != AttentionMask::Kind::causal) return right;
    return reference::attention_vjp(c.q, c.k, c.v, AttentionMask::none(), c.heads, conv, g);
  }
};

// The backward applies a causal mask the forward was not asked for (a
// kernel's is_causal flag left on in its backward launch).
class BackwardCausalUnasked : public AttentionBackwardBug {
 public:
  BackwardCausalUnasked(std::string name, unsigned part) : AttentionBackwardBug(attention_backward_info(std::move(name)), part) {}

 protected:
  reference::AttentionVjp wrong(const AttentionCall& c, const Matrix& g, const AttentionConvention& conv,
                                reference::AttentionVjp right) const override {
    if (c.mask.kind != AttentionMask::Kind::none || c.q.rows() != c.k.rows()) return right;
    return reference::attention_vjp(c.q, c.k, c.v, AttentionMask::causal(), c.heads, conv, g);
  }
};

// A backward that assumes a unique maximum logit, as Liger-Kernel #1373's TVD
// gradient assumed p ≠ q (a two-way split of a three-way case): dq is
// rescaled by the margin between the row's two largest visible logits and
// scaled back, an identity while the margin is not 0 and 0/0 = NaN where
// logits tie (equal keys, a zero query) — which random inputs never draw.
class TiedLogitsNan : public AttentionBackwardBug {
 public:
  TiedLogitsNan() : AttentionBackwardBug(attention_backward_info("attention-backward-tied-logits-nan"), kDq) {}

 protected:
  reference::AttentionVjp wrong(const AttentionCall& c, const Matrix&, const AttentionConvention& conv,
                                reference::AttentionVjp right) const override {
    const BoolMatrix seen = reference::visible_keys(c.mask, c.q.rows(), c.k.rows(), conv);
    const int heads = std::max(1, c.heads);
    const Eigen::Index d = c.q.cols() / heads;
    const int groups = std::max<int>(1, static_cast<int>(c.k.cols() / std::max<Eigen::Index>(1, d)));
    for (int h = 0; h < heads; ++h) {
      const int kv = AttentionConvention::kv_head_of(h, heads, groups, conv.grouping);
      for (Eigen::Index i = 0; i < c.q.rows(); ++i) {
        double first = -INFINITY, second = -INFINITY;
        for (Eigen::Index j = 0; j < c.k.rows(); ++j) {
          if (!seen(i, j)) continue;
          const double s = c.q.row(i).segment(h * d, d).dot(c.k.row(j).segment(kv * d, d));
          if (s > first) {
            second = first;
            first = s;
          } else if (s > second) {  // a tie with the maximum lands here: margin 0
            second = s;
          }
        }
        if (second == -INFINITY) continue;  // one key: nothing to tie with
        const double margin = first - second;
        right.dq.row(i).segment(h * d, d) *= margin / margin;
      }
    }
    return right;
  }
};

template <class Bug>
SubjectEntry entry(std::string name, std::string description) {
  return {std::move(name), std::move(description), [] { return std::make_unique<Bug>(); }};
}

}  // namespace planted::grad_mutants

// The reference Llama block whose backward of forward recomputes the
// attention weights without the causal mask (a fused kernel's backward that
// drops is_causal): its forward is the block's, exact, so every module claim
// holds, and output row i's gradient reaches the keys and values — so the
// tokens — after it.
class BlockBackwardCausalLeak : public LlamaBlockSubject {
 public:
  BlockBackwardCausalLeak() : LlamaBlockSubject(info_of(), options()) {}

 protected:
  bool backward_may_attend(Eigen::Index, Eigen::Index) const override { return true; }

 private:
  static LlamaBlockOptions options() {
    LlamaBlockOptions o;
    o.answers_backward = true;
    return o;
  }
  static SubjectInfo info_of() {
    const std::string name = "llama-block-backward-causal-leak";
    return llama_block_info(name, mutant_spec(name), options(), "llama-block");
  }
};

std::vector<SubjectEntry> grad_mutants() {
  using namespace planted::grad_mutants;
  auto with = [](std::string name, std::string description, auto make) {
    return SubjectEntry{std::move(name), std::move(description), std::move(make)};
  };
  return {
      entry<RopeBackwardForwardTurn>("rope-backward-plus-theta",
                                     "RoPE whose backward turns the gradient by +θ (the forward's table, not "
                                     "transposed): the forward is exact"),
      entry<RopeBackwardHalves>("rope-backward-halves-layout",
                                "RoPE pairing (2i, 2i+1) in the forward and (i, i + d/2) in the backward"),
      entry<MissingScaleInDq>("attention-backward-dq-unscaled", "attention whose dq misses the softmax scale 1/√d_h"),
      with("attention-backward-gqa-dk-wrong-kv-head",
           "GQA (4 query heads over 2 kv heads, repeat_interleave) whose dK is computed and summed as though query "
           "head h read kv head h mod 2",
           [] { return std::make_unique<GqaWrongKvHead>("attention-backward-gqa-dk-wrong-kv-head", kDk); }),
      with("attention-backward-gqa-dv-wrong-kv-head", "the same GQA bug in dV alone",
           [] { return std::make_unique<GqaWrongKvHead>("attention-backward-gqa-dv-wrong-kv-head", kDv); }),
      entry<MaskedRowNan>("attention-backward-masked-row-nan",
                          "fully_masked = zeros: a zero forward row, NaN in that row's dq"),
      with("attention-backward-tile-nan-dk", "NaN in dK's last 64 rows when m mod 128 = 64 under a mask",
           [] { return std::make_unique<TileRemainderNan>("attention-backward-tile-nan-dk", kDk); }),
      with("attention-backward-tile-nan-dv", "NaN in dV's last row when m mod 64 = 1",
           [] { return std::make_unique<TileRemainderNan>("attention-backward-tile-nan-dv", kDv); }),
      with("attention-backward-causal-leak-dk",
           "causal attention whose backward recomputes the weights unmasked for dK: gradient reaches future keys",
           [] { return std::make_unique<CausalBackwardLeaks>("attention-backward-causal-leak-dk", kDk); }),
      with("attention-backward-causal-leak-dv", "the same leak in dV alone",
           [] { return std::make_unique<CausalBackwardLeaks>("attention-backward-causal-leak-dv", kDv); }),
      with("attention-backward-causal-unasked-dq",
           "attention whose backward computes dq under a causal mask the forward was not asked for",
           [] { return std::make_unique<BackwardCausalUnasked>("attention-backward-causal-unasked-dq", kDq); }),
      with("attention-backward-causal-unasked-dk", "the same unasked causal mask in dK alone",
           [] { return std::make_unique<BackwardCausalUnasked>("attention-backward-causal-unasked-dk", kDk); }),
      with("attention-backward-causal-unasked-dv", "the same unasked causal mask in dV alone",
           [] { return std::make_unique<BackwardCausalUnasked>("attention-backward-causal-unasked-dv", kDv); }),
      entry<TiedLogitsNan>("attention-backward-tied-logits-nan",
                           "attention whose dq is rescaled by the margin between a row's two largest logits: NaN "
                           "where logits tie (Liger-Kernel #1373's kind: a unique maximum assumed)"),
      entry<BlockBackwardCausalLeak>("llama-block-backward-causal-leak",
                                     "the Llama block whose backward of forward recomputes attention without the "
                                     "causal mask: later tokens get gradient from earlier rows; the forward is exact"),
  };
}

}  // namespace pecheck
