#pragma once
// The hello answer: what a subject says about itself (SUBJECT-PROTOCOL.md,
// versions 1 and 2). Reading it has two kinds of failure:
//   - its framing — an object with protocol 1 or 2, a name, a non-empty ops
//     list and a dtype — is the protocol: a Breach (a subject failure, exit 3);
//   - what its fields declare — the ops, dtype, layout, compute, params,
//     batch, arrays — is the user's declaration: a field pecheck does not
//     know, a value of the wrong type or out of range, or params for an op the
//     subject does not declare is a BadDeclaration naming the field (a usage
//     error, exit 2), never silently ignored.
// A protocol-1 hello may carry fields of its own beside v1's (v1 never said
// otherwise); protocol 2 names every top-level field it does not know.
// Writing a hello (for `pecheck serve`) is the inverse: reading what
// hello_result writes for a SubjectInfo gives back the same declarations.
// The compute and params objects are declarations.h's.
#include "pecheck/core/json.h"
#include "pecheck/core/vocabulary.h"
#include "pecheck/protocol/bad_declaration.h"

namespace pecheck::process {

struct Hello {
  int protocol = 1;
  // Protocol 2's "fork": true, the subject forks fresh copies of itself on
  // request (docs/SUBJECT-PROTOCOL.md, "Fresh copies by fork"); "fork" is then
  // among info.declared.
  bool fork = false;
  // name, ops (protocol ops only), dtype, layout, compute, amplitude, encode,
  // rotate, bias, forward, batch, b64le and declared (the dotted paths of
  // every compute and params field given, sorted); spec and scheme are the
  // caller's.
  SubjectInfo info;
};

Hello read_hello(const json& result);

// The hello result declaring `info`: name, the protocol's ops among info.ops,
// dtype, layout; for protocol 2 also compute (the stages set), params (the
// fields in info.declared, and bias/forward/scaling wherever set), and
// `batch`/`arrays`/`fork` as given.
json hello_result(const SubjectInfo& info, int protocol, bool batch, bool b64le, bool fork = false);

}  // namespace pecheck::process
