#include "cli/subject_header.h"

#include <fmt/format.h>

#include <algorithm>

#include "pecheck/core/escape.h"
#include "pecheck/core/op_table.h"
#include "pecheck/property/identify.h"
#include "pecheck/subjects/copies.h"

namespace pecheck::cli {

namespace {

std::string ops_text(const SubjectInfo& info) {
  std::string out;
  for (Op op : all_ops()) {
    if (info.supports(op)) out += fmt::format("{}{}", out.empty() ? "" : ", ", name(op));
  }
  return out.empty() ? "none" : out;
}

std::string precision_text(const SubjectInfo& info) {
  std::string out = fmt::format("answers in {}", name(info.dtype));
  if (info.compute.angles) out += fmt::format(", angles in {}", name(*info.compute.angles));
  if (info.compute.accumulate) out += fmt::format(", accumulates in {}", name(*info.compute.accumulate));
  return out;
}

// The conventions of the ops it offers, as the claims read them.
std::string conventions_text(const SubjectInfo& info) {
  std::string out;
  auto add = [&out](const std::string& part) { out += (out.empty() ? "" : "; ") + part; };
  if (info.supports(Op::encode)) {
    EncodeConvention e = info.encode;
    e.layout = info.encode_layout() == Layout::unspecified ? Layout::interleaved : info.encode_layout();
    e.amplitude = info.amplitude != 1 ? info.amplitude : e.amplitude;
    add("encode: " + identify::describe(e));
  }
  if (info.supports(Op::rotate)) {
    RotateConvention r = info.rotate;
    r.layout = info.rotate_layout() == Layout::unspecified ? Layout::interleaved : info.rotate_layout();
    add("rotate: " + identify::describe(r));
  }
  if (info.bias) {
    add(fmt::format("bias: {}, {} head{}", name(info.bias->scheme), info.bias->heads, info.bias->heads == 1 ? "" : "s"));
  }
  if (info.forward) {
    add(fmt::format("forward: {}, {} positions{}", info.forward->causal ? "causal" : "bidirectional",
                    name(info.forward->positional),
                    info.forward->width > 0 ? fmt::format(", width {}", info.forward->width) : std::string()));
  }
  return out;
}

}  // namespace

std::string subject_header(const PlannedSubject& planned, const std::string& label) {
  if (!planned.subject) return {};
  const SubjectInfo& info = planned.subject->info();
  std::string out = fmt::format("subject {} = {}\n", escape_terminal(label), escape_terminal(format_spec(planned.spec)));
  // "fork" is a declared capability, not a convention: said with the ops, not counted below.
  const auto conventions_declared =
      static_cast<std::size_t>(std::count_if(info.declared.begin(), info.declared.end(),
                                             [](const std::string& field) { return field != "fork"; }));
  out += fmt::format("  {}; ops: {}{}{}\n", precision_text(info), ops_text(info), info.batch ? "; takes batches" : "",
                     makes_fresh_copies(*planned.subject) ? "; fresh copies forked (started once)" : "");
  const std::string conventions = conventions_text(info);
  if (!conventions.empty()) {
    out += conventions_declared == 0
               ? fmt::format("  declares no convention: judged by the defaults ({})\n", conventions)
               : fmt::format("  judged by what it declares ({} field{}): {}\n", conventions_declared,
                             conventions_declared == 1 ? "" : "s", conventions);
  }
  const std::string judged = planned.profile ? "profile " + planned.profile->name : "its scheme " + planned.scheme;
  out += fmt::format("  expectations of {}: {} propert{}\n", escape_terminal(judged), planned.properties.size(),
                     planned.properties.size() == 1 ? "y" : "ies");
  return out;
}

}  // namespace pecheck::cli
