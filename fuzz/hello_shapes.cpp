// Fuzz target: a hello whose params declare shapes (SUBJECT-PROTOCOL.md,
// "Declared shapes"; issue 39), read by read_hello and then sized as a run
// sizes it: the shape ladder's rungs on every axis of every op
// (property/sizes.h). A hello is untrusted: it must end as declarations or a
// BadDeclaration, and what is accepted must be within what pecheck can send
// (core/size_limits.h) — every rung of an axis a declared dimension sizes at
// most that dimension's limit, and the accepted declaration free of a
// size_problem. A crash, a sanitizer report, a hang (a size scanned instead of
// bounded: n of 2^32 once spun here) or an abort on a broken invariant is a
// finding.
//
// Input: the hello's result object as JSON text (corpus/hello_shapes/).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "pecheck/core/axis.h"
#include "pecheck/core/op_table.h"
#include "pecheck/core/size_limits.h"
#include "pecheck/property/sizes.h"
#include "pecheck/subjects/factory.h"
#include "protocol/hello.h"
#include "protocol/responses.h"

using namespace pecheck;

namespace {

[[noreturn]] void broken(const char* what, Op op, Axis axis, std::int64_t size) {
  std::fprintf(stderr, "accepted declared shapes break an invariant: %s (op %.*s, axis %.*s, size %lld)\n", what,
               static_cast<int>(name(op).size()), name(op).data(), static_cast<int>(name(axis).size()),
               name(axis).data(), static_cast<long long>(size));
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const json hello = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (hello.is_discarded()) return 0;
  SubjectInfo info;
  try {
    info = process::read_hello(hello).info;
  } catch (const BadDeclaration&) {
    return 0;
  } catch (const process::Breach&) {
    return 0;
  }
  for (const auto& [op, dims] : info.shapes.ops) {
    if (size_problem(op, dims, "params.shapes")) broken("a size problem was accepted", op, Axis::width, 0);
  }
  for (Op op : all_ops()) {
    for (Axis axis : kAxes) {
      const Rungs rungs = ladder_rungs(info, 10000, 0, op, axis);
      const auto dim = declared_dim(op, axis);
      for (std::int64_t r : rungs.sizes) {
        if (r < 1) broken("a rung below 1", op, axis, r);
        if (dim && r > largest_sendable(*dim)) broken("a rung above the dimension's limit", op, axis, r);
      }
    }
  }
  return 0;
}
