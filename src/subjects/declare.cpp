#include "pecheck/subjects/declare.h"

#include <fmt/format.h>

#include <algorithm>

#include "pecheck/core/op_table.h"
#include "pecheck/subjects/copies.h"
#include "pecheck/subjects/factory.h"
#include "protocol/declarations.h"

namespace pecheck {

namespace {

// Every call forwarded to the subject underneath; only info() differs.
class DeclaredSubject : public SubjectDecorator {
 public:
  DeclaredSubject(SubjectPtr inner, SubjectInfo info)
      : SubjectDecorator(*inner), inner_(std::move(inner)), info_(std::move(info)) {}
  const SubjectInfo& info() const override { return info_; }

 protected:
  SubjectPtr inner_;
  SubjectInfo info_;
};

// The same over a subject that makes fresh copies: each copy is declared alike.
class DeclaredCopyingSubject final : public DeclaredSubject, public CopyingSubject {
 public:
  using DeclaredSubject::DeclaredSubject;
  SubjectPtr fresh_copy() override {
    SubjectPtr copy = fresh_copy_of(*inner_);
    return copy ? std::make_unique<DeclaredCopyingSubject>(std::move(copy), info_) : nullptr;
  }
};

const process::Keys kFields = {"dtype", "layout", "compute", "params"};

}  // namespace

json declared_params(const SubjectInfo& info) { return process::params_json(info); }

void apply_declarations(const json& declared, SubjectInfo& info) {
  if (!declared.is_object()) process::bad("subject", "a subject's declarations must be a table");
  for (const auto& [key, value] : declared.items()) {
    if (!process::among(key, kFields)) {
      process::bad(key, fmt::format("{} is not a field a subject declares (it may declare: {})", key,
                                    process::list(kFields)));
    }
  }
  SubjectInfo out = info;
  if (declared.contains("dtype")) {
    const json& v = declared.at("dtype");
    const auto dtype = v.is_string() ? parse_dtype(v.get<std::string>()) : std::nullopt;
    if (!dtype) process::bad("dtype", fmt::format("dtype must be one of {}", process::list(process::dtype_names())));
    out.dtype = *dtype;
    out.declared.push_back("dtype");
  }
  if (declared.contains("layout")) {
    const json& v = declared.at("layout");
    const auto layout = v.is_string() ? parse_layout(v.get<std::string>()) : std::nullopt;
    if (!layout) process::bad("layout", fmt::format("layout must be one of {}", process::list(process::layout_names())));
    out.layout = *layout;
    out.declared.push_back("layout");
  }
  // compute and params are read as a hello's are, over what the subject said:
  // a stage or an op's params given here replace the subject's own.
  if (declared.contains("compute")) {
    SubjectInfo read = out;
    read.compute = {};
    process::read_compute(declared.at("compute"), read);
    if (read.compute.angles) out.compute.angles = read.compute.angles;
    if (read.compute.accumulate) out.compute.accumulate = read.compute.accumulate;
    out.declared = read.declared;
  }
  if (declared.contains("params")) {
    const json& params = declared.at("params");
    SubjectInfo read = out;
    // An op's params replace the subject's own for that op, whole (a partial
    // override would mix two declarations into one nobody wrote).
    if (params.is_object() && params.contains("encode")) read.encode = {};
    if (params.is_object() && params.contains("rotate")) read.rotate = {};
    if (params.is_object() && params.contains("attention")) read.attention = {};
    // ... and so do its declared shapes.
    for (Op op : all_ops()) {
      if (params.is_object() && params.contains(std::string(name(op)))) read.shapes.ops.erase(op);
    }
    process::read_params(params, read);
    if (params.is_object() && params.contains("encode")) read.amplitude = read.encode.amplitude;
    out = std::move(read);
  }
  // Each field once, in the order first declared: a plugin's child has laid
  // the same table over its hello already (SubjectOptions::declarations).
  std::vector<std::string> once;
  for (auto& field : out.declared) {
    if (std::find(once.begin(), once.end(), field) == once.end()) once.push_back(std::move(field));
  }
  out.declared = std::move(once);
  info = std::move(out);
}

SubjectPtr with_declarations(SubjectPtr subject, const json& declared) {
  SubjectInfo info = subject->info();
  apply_declarations(declared, info);
  if (makes_fresh_copies(*subject)) return std::make_unique<DeclaredCopyingSubject>(std::move(subject), std::move(info));
  return std::make_unique<DeclaredSubject>(std::move(subject), std::move(info));
}

}  // namespace pecheck
