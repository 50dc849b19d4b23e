// CLAIMS.md §11 — grad.reference_values: the VJPs a subject's backward
// answers equal the float64 reference's (reference/vjp.h) under its declared
// conventions — rotate's dx (every scheme and layout the rotary reference
// knows, scaled schemes with their attention factor), attention's dq, dk and
// dv (masks, window, chunk, softcap, sinks, scale, grouped kv heads, whose dk
// and dv sum over the query heads of their group) — within the error model
// of grad/support.h. A backward that turns g by +θ, pairs the other halves,
// drops the softmax scale from dq or adds a group's heads into the wrong kv
// head fails here. A module's dx (`of: forward`) is judged where pecheck
// has the module's reference (subjects/builtin/modules_llama.h
// reference_module: the subject's scheme is a built-in reference block):
// against that block's float64 reverse pass (reference/vjp.h block_vjp),
// within the module error model (module/support.h) taken twice, for the
// forward the backward recomputes and its reverse pass. A backward that lets
// a token's gradient reach the keys after it fails here as in grad.causality.
#include <fmt/format.h>

#include <cmath>

#include "grad/support.h"
#include "input_checks.h"
#include "module/support.h"
#include "pecheck/property/compare.h"
#include "pecheck/property/registry.h"
#include "pecheck/reference/vjp.h"
#include "pecheck/subjects/builtin/modules_llama.h"
#include "rope/common.h"

namespace pecheck::grad::reference_values {

namespace {

// One request whose backward is judged: of rotate, or of attention.
struct Case {
  std::string of = "rotate";
  RotateCase rotate;
  AttentionCase attention;
  ForwardCase forward;
  void validate() const {
    if (of == "rotate") rotate.validate();
    else if (of == "attention") attention.validate();
    else if (of == "forward") forward.validate();
    else input::invalid("of", "expected \"rotate\", \"attention\" or \"forward\"");
  }
};
void to_json(json& j, const Case& c) {
  j = json{{"of", c.of}};
  if (c.of == "rotate") j["rotate"] = c.rotate;
  else if (c.of == "forward") j["forward"] = c.forward;
  else j["attention"] = c.attention;
}
void from_json(const json& j, Case& c) {
  j.at("of").get_to(c.of);
  if (c.of == "rotate") j.at("rotate").get_to(c.rotate);
  else if (c.of == "forward") j.at("forward").get_to(c.forward);
  else j.at("attention").get_to(c.attention);
}

rc::Gen<Case> attention_cases(const GenContext& ctx) {
  return rc::gen::mapcat(rc::gen::pair(lengths(false), rc::gen::element<std::string>("none", "causal")),
                         [ctx](const std::pair<int, std::string>& shape) {
                           const auto& [n, mask] = shape;
                           return rc::gen::map(attention_case(ctx, n, n, mask), [](AttentionCase a) {
                             Case c;
                             c.of = "attention";
                             c.attention = std::move(a);
                             return c;
                           });
                         });
}

rc::Gen<Case> generate(const GenContext& ctx) {
  const unsigned of = ctx.subject.backward_of;
  auto rotations = rc::gen::map(rotate_case(ctx), [](RotateCase r) {
    Case c;
    c.rotate = std::move(r);
    return c;
  });
  const bool rotate = (of & static_cast<unsigned>(Op::rotate)) != 0, attend = (of & static_cast<unsigned>(Op::attention)) != 0;
  // A module's backward only where pecheck has its reference (applies_when: backward.referenced).
  if ((of & static_cast<unsigned>(Op::forward)) != 0 && has_reference_module(ctx.subject.scheme)) {
    auto modules = rc::gen::map(forward_case(ctx, 1), [](ForwardCase f) {
      Case c;
      c.of = "forward";
      c.forward = std::move(f);
      return c;
    });
    if (rotate || attend) return rc::gen::oneOf(modules, rotate ? rotations : attention_cases(ctx));
    return modules;
  }
  if (rotate && attend) return rc::gen::oneOf(rotations, attention_cases(ctx));
  if (attend) return attention_cases(ctx);
  return rotations;
}

Measurement rotate_measure(Subject& s, const RotateCase& c, const BoundModel& model) {
  const SubjectInfo& info = s.info();
  const Matrix dx = rotate_vjp(s, c);
  const Matrix expected = reference::rotary_vjp(rope::on_every_axis(info, c.positions), c.g, rope::declared(info),
                                                rope::sent_length(info, c.seq_len));
  // Each row against its own rotation's bound; the row closest to (or past) its bound is reported.
  Check worst = worst_rotation_row(info, c, model, "dx", dx, expected, 1, "2·m·max|g| of the row",
                                   same_dtype_vjp_rows(info, c));
  worst.note = fmt::format("dx = m·R(−θ)·g against the reference VJP of the declared rotation, row by row (the "
                           "row's own angle bound)");
  return {{std::move(worst)}, {}};
}

Measurement attention_measure(Subject& s, const AttentionCase& c, const BoundModel&) {
  const SubjectInfo& info = s.info();
  const attention::Grouped in = c.inputs();
  const AttentionMask mask = c.attention_mask();
  const reference::AttentionVjp ref = reference::attention_vjp(in.q, in.k, in.v, mask, in.heads, info.attention, c.g);
  const Grads got = attention_vjp(s, c);
  const AttentionBounds b = vjp_bounds(info, in, c.g, 1);
  Measurement out;
  const char* words[] = {"dq (the VJP w.r.t. q)", "dk (w.r.t. k, summed over the query heads of each kv head)",
                         "dv (w.r.t. v, summed over the query heads of each kv head)"};
  const std::pair<const Matrix*, const Matrix*> pairs[] = {{&got.dq, &ref.dq}, {&got.dk, &ref.dk}, {&got.dv, &ref.dv}};
  const Bound* bounds[] = {&b.dq, &b.dk, &b.dv};
  const char* names[] = {"dq", "dk", "dv"};
  for (int i = 0; i < 3; ++i) {
    Check check = compare_entries(names[i], *pairs[i].first, *pairs[i].second, *bounds[i]);
    check.note = fmt::format("{} against the float64 reference VJP under the declared attention ({} mask, {} "
                             "head(s) over {} kv head(s))",
                             words[i], c.mask, in.heads, in.kv_heads());
    out.checks.push_back(std::move(check));
  }
  return out;
}

// Sequences stacked: row b·N + r is token r of sequence b.
Matrix stacked(const Batch& batch) {
  Eigen::Index rows = 0;
  for (const auto& m : batch) rows += m.rows();
  Matrix out(rows, batch.empty() ? 0 : batch.front().cols());
  Eigen::Index at = 0;
  for (const auto& m : batch) {
    out.middleRows(at, m.rows()) = m;
    at += m.rows();
  }
  return out;
}

Measurement forward_measure(Subject& s, const ForwardCase& c) {
  const SubjectInfo& info = s.info();
  const auto reference = reference_module(info.scheme);
  if (!reference) throw std::logic_error("grad.reference_values: no reference module for " + info.scheme);
  const ForwardCall call{c.x, {}, {}, std::nullopt, {}};
  const Matrix expected = stacked(reference->reference_backward(call, c.g));
  const Matrix observed = stacked(forward_vjp(s, c));
  const auto n = c.x.front().rows();
  const int width = static_cast<int>(c.x.front().cols());
  double scale = std::max(1.0, expected.cwiseAbs().maxCoeff());
  for (const auto& g : c.g) scale = std::max(scale, g.cwiseAbs().maxCoeff());
  Bound bound = module::comparison_bound(info, width, n, n - 1, 2 * scale, 0, 1, 0);
  Check check = compare_entries("dx", observed, expected, bound);
  check.note = fmt::format("dx (the VJP of forward w.r.t. x, {} sequence(s) of {} tokens stacked: row b·N + r) against "
                           "the float64 reverse pass of the reference module {} (the module bound with a scale of 2·max(1, "
                           "|g|, |dx|): the forward recomputed and its reverse pass)",
                           c.x.size(), n, info.scheme);
  return {{std::move(check)}, {}};
}

Measurement measure(Subject& s, const Case& c, const BoundModel& model) {
  if (c.of == "rotate") return rotate_measure(s, c.rotate, model);
  if (c.of == "forward") return forward_measure(s, c.forward);
  return attention_measure(s, c.attention, model);
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {define<Case>("grad.reference_values", {"dx", "dq", "dk", "dv"}, generate, measure)};
}

}  // namespace pecheck::grad::reference_values
