// CLAIMS.md §11 — grad.causality: under a causal mask (and likewise outside a
// declared window or chunk), the gradient of output row i w.r.t. keys and
// values query i does not see is exactly zero. The upstream gradient is
// zero but on one probe row i, so every gradient reaching a key is row i's:
// a backward that recomputes its weights without the mask (leaking to
// future keys) gives those keys a gradient. Exact: a key outside the mask
// takes no part in row i's output, in any precision.
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
  AttentionCase attention;  // causal, n = m; g zero but on row probe
  int probe = 0;
  void validate() const {
    attention.validate();
    if (attention.mask != "causal") input::invalid("attention.mask", "expected \"causal\"");
    if (probe < 0 || probe >= attention.q.rows()) input::invalid("probe", "expected a query row");
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Case, attention, probe)

rc::Gen<Case> generate(const GenContext& ctx) {
  return rc::gen::mapcat(rc::gen::inRange(2, 13), [ctx](int n) {
    return rc::gen::apply(
        [](AttentionCase a, int probe) {
          for (Eigen::Index i = 0; i < a.g.rows(); ++i) {
            if (i != probe) a.g.row(i).setZero();
          }
          return Case{std::move(a), probe};
        },
        attention_case(ctx, n, n, "causal"), rc::gen::inRange(0, n - 1));
  });
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

Measurement measure(Subject& s, const Case& c, const BoundModel&) {
  const SubjectInfo& info = s.info();
  const Eigen::Index n = c.attention.q.rows();
  const BoolMatrix seen = reference::visible_keys(AttentionMask::causal(), n, n, info.attention);
  const Grads got = attention_vjp(s, c.attention);
  return {{unseen("dk", got.dk, seen, c.probe), unseen("dv", got.dv, seen, c.probe)}, {}};
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {define<Case>("grad.causality", {"dk", "dv"}, generate, measure)};
}

}  // namespace pecheck::grad::causality
