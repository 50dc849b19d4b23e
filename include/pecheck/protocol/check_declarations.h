#pragma once
// A hello's declarations judged as pecheck judges them when a subject says
// hello (src/protocol/hello.h), without a subject: what the Python
// package asks before it serves (`pecheck check-declarations`), so that both
// languages give one verdict in one wording — the rules live in the
// protocol's schema (python/pecheck/protocol.schema.json) and in the C++
// readers alone.
#include <string_view>

#include "pecheck/core/json.h"

namespace pecheck {

// {"ok": true}, or {"ok": false, "kind": "declaration", "field": dotted path,
// "message": …} for a BadDeclaration (a usage error, exit 2), or
// {"ok": false, "kind": "protocol", "message": …} for a hello that breaks the
// protocol's framing or is not JSON as the protocol reads it (a subject
// failure when a subject sends it). `hello_text` is one line, read as a
// subject's line is read (NaN tokens, no key twice).
json check_declarations(std::string_view hello_text);

}  // namespace pecheck
