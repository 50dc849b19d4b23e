// CLAIMS.md §11 — grad.causality: under a causal mask (and likewise outside a
// declared window or chunk), the gradient of output row i w.r.t. keys and
// values query i does not see is exactly zero. The upstream gradient is
// zero but on one probe row i, so every gradient reaching a key is row i's:
// a backward that recomputes its weights without the mask (leaking to
// future keys) gives those keys a gradient. Exact: a key outside the mask
// takes no part in row i's output, in any precision.
// A causal module (`of: forward`, params.forward.causal): output row i of a
// sequence depends on its tokens 0..i alone, so with the upstream gradient
// zero but on row i, dx of every token j > i is exactly zero — a backward
// whose attention weights are recomputed without the causal mask gives the
// later tokens a gradient through their keys and values.
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "grad/support.h"
#include "input_checks.h"
#include "pecheck/property/compare.h"
#include "pecheck/property/registry.h"
#include "pecheck/reference/attention.h"

namespace pecheck::grad::causality {

namespace {

struct Case {
  std::string of = "attention";
  AttentionCase attention;  // causal, n = m; g zero but on row probe
  ForwardCase forward;      // of forward: g zero but on row probe of sequence `sequence`
  int probe = 0, sequence = 0;
  void validate() const {
    if (of == "forward") {
      forward.validate();
      if (sequence < 0 || sequence >= static_cast<int>(forward.x.size())) input::invalid("sequence", "expected a sequence");
      if (probe < 0 || probe + 1 >= forward.x.front().rows()) input::invalid("probe", "expected a token with one after it");
      return;
    }
    if (of != "attention") input::invalid("of", "expected \"attention\" or \"forward\"");
    attention.validate();
    if (attention.mask != "causal") input::invalid("attention.mask", "expected \"causal\"");
    if (probe < 0 || probe >= attention.q.rows()) input::invalid("probe", "expected a query row");
  }
};
void to_json(json& j, const Case& c) {
  if (c.of == "forward") j = json{{"of", c.of}, {"forward", c.forward}, {"probe", c.probe}, {"sequence", c.sequence}};
  else j = json{{"attention", c.attention}, {"probe", c.probe}};
}
void from_json(const json& j, Case& c) {
  c.of = j.value("of", std::string("attention"));
  j.at("probe").get_to(c.probe);
  if (c.of == "forward") {
    j.at("forward").get_to(c.forward);
    j.at("sequence").get_to(c.sequence);
  } else {
    j.at("attention").get_to(c.attention);
  }
}

// A causal module's case: at least 2 tokens, one sequence's row `probe` (not the last) carrying the gradient.
rc::Gen<Case> module_cases(const GenContext& ctx) {
  return rc::gen::mapcat(forward_case(ctx, 2), [](ForwardCase f) {
    const int n = static_cast<int>(f.x.front().rows()), batch = static_cast<int>(f.x.size());
    return rc::gen::apply(
        [f](int probe, int sequence) {
          Case c;
          c.of = "forward";
          c.forward = f;
          for (size_t b = 0; b < c.forward.g.size(); ++b) {
            for (Eigen::Index i = 0; i < c.forward.g[b].rows(); ++i) {
              if (static_cast<int>(b) != sequence || i != probe) c.forward.g[b].row(i).setZero();
            }
          }
          c.probe = probe;
          c.sequence = sequence;
          return c;
        },
        rc::gen::inRange(0, n - 1), rc::gen::inRange(0, batch));
  });
}

rc::Gen<Case> attention_cases(const GenContext& ctx) {
  return rc::gen::mapcat(rc::gen::inRange(2, 13), [ctx](int n) {
    return rc::gen::apply(
        [](AttentionCase a, int probe) {
          for (Eigen::Index i = 0; i < a.g.rows(); ++i) {
            if (i != probe) a.g.row(i).setZero();
          }
          Case c;
          c.attention = std::move(a);
          c.probe = probe;
          return c;
        },
        attention_case(ctx, n, n, "causal"), rc::gen::inRange(0, n - 1));
  });
}

rc::Gen<Case> generate(const GenContext& ctx) {
  const unsigned of = ctx.subject.backward_of;
  const bool modules = (of & static_cast<unsigned>(Op::forward)) != 0 && ctx.subject.forward &&
                       ctx.subject.forward->causal;
  const bool attend = (of & static_cast<unsigned>(Op::attention)) != 0;
  if (modules && attend) return rc::gen::oneOf(module_cases(ctx), attention_cases(ctx));
  if (modules) return module_cases(ctx);
  return attention_cases(ctx);
}

// The largest |entry| over the rows of `grad` whose key query `probe` does not see.
Check unseen(const char* name, const Matrix& grad, const BoolMatrix& seen, int probe) {
  Check check{name};
  check.bound = Bound::exact("a key query i does not see takes no part in its output: its gradient is 0");
  bool any = false;
  for (Eigen::Index j = 0; j < grad.rows(); ++j) {
    if (seen(probe, j)) continue;
    any = true;
    for (Eigen::Index col = 0; col < grad.cols(); ++col) {
      double e = std::fabs(grad(j, col));
      if (std::isnan(e)) e = INFINITY;
      if (e <= check.error && !(check.error == 0 && !check.where.key)) continue;
      check.error = e;
      check.where.query = probe;
      check.where.key = j;
      check.where.column = col;
      check.observed = number_to_json(grad(j, col));
      check.expected = 0;
    }
  }
  if (!any) throw std::logic_error("grad.causality: the probe query sees every key");
  check.note = fmt::format("{} of the keys query {} does not see (upstream gradient zero but on row {})", name, probe,
                           probe);
  return check;
}

// dx of the tokens after the probe in its sequence (none may reach them).
Check later_tokens(const Batch& dx, const Case& c) {
  Check check{"dx"};
  check.bound = Bound::exact("a causal module's output row i depends on tokens 0..i alone: dx of a later token is 0");
  const Matrix& grad = dx[static_cast<size_t>(c.sequence)];
  for (Eigen::Index j = c.probe + 1; j < grad.rows(); ++j) {
    for (Eigen::Index col = 0; col < grad.cols(); ++col) {
      double e = std::fabs(grad(j, col));
      if (std::isnan(e)) e = INFINITY;
      if (e <= check.error && !(check.error == 0 && !check.where.key)) continue;
      check.error = e;
      check.where.batch = c.sequence;
      check.where.query = c.probe;
      check.where.key = j;
      check.where.column = col;
      check.observed = number_to_json(grad(j, col));
      check.expected = 0;
    }
  }
  check.note = fmt::format("dx of the tokens after token {} of sequence {} (upstream gradient zero but on that token's "
                           "output row)",
                           c.probe, c.sequence);
  return check;
}

Measurement measure(Subject& s, const Case& c, const BoundModel&) {
  if (c.of == "forward") return {{later_tokens(forward_vjp(s, c.forward), c)}, {}};
  const SubjectInfo& info = s.info();
  const Eigen::Index n = c.attention.q.rows();
  const BoolMatrix seen = reference::visible_keys(AttentionMask::causal(), n, n, info.attention);
  const Grads got = attention_vjp(s, c.attention);
  return {{unseen("dk", got.dk, seen, c.probe), unseen("dv", got.dv, seen, c.probe)}, {}};
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {define<Case>("grad.causality", {"dk", "dv", "dx"}, generate, measure)};
}

}  // namespace pecheck::grad::causality
