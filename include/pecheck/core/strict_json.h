#pragma once
// JSON read strictly: one JSON value and nothing else. nlohmann's reader is
// lenient in ways that let bytes lie — it stops at a NUL byte and ignores
// whatever follows, skips a UTF-8 byte-order mark, and keeps the last value
// of a key given twice ({"status":"failed",…,"status":"passed"} reads as
// passed, while another reader may keep the first). Reports, counterexample
// files and regression entries are read here; the subject protocol's lines
// are refused for the same bytes (protocol/responses.h).
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "pecheck/core/json.h"

namespace pecheck {

// What is wrong, as a sentence ("a NUL byte at byte 12: …").
struct StrictJsonError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Why `text` cannot be one JSON value framed as the protocol and pecheck's
// files frame it — a byte-order mark before it, a NUL byte anywhere (JSON
// has no raw NUL, even inside strings) — or empty when it can.
std::string framing_problem(std::string_view text);

// Deeper than this is no file pecheck writes (a report nests 6 levels), and
// writing it back would recurse that deep.
inline constexpr int kMaxJsonDepth = 64;

// Called for every value as nlohmann's parser callback is (depth, event,
// value); return false to drop the value from the tree (a reader that
// consumes large arrays element by element keeps only one at a time).
using JsonHook = std::function<bool(int depth, json::parse_event_t event, json& value)>;

// Parses `text` strictly: framing_problem, then JSON with no key twice in
// one object and at most kMaxJsonDepth levels. Throws StrictJsonError.
json parse_strict_json(std::string_view text, const JsonHook& hook = nullptr);

// What parse_json_checked found: a key given twice in one object (`key`), or
// a value nested deeper than its max_depth (`key` empty).
struct JsonShapeFault {
  bool too_deep = false;
  std::string key;
};
using JsonShapeCheck = std::function<void(const JsonShapeFault&)>;

// `text` as JSON (nlohmann's own errors thrown as they are), calling `fault`
// — which throws — on a key twice in one object or more than `max_depth`
// levels (0: no limit), in time linear in the text. nlohmann's callback
// parser (json::parse with a callback) rescans an array or object at the end
// of each object in it, quadratic in the objects of one array: a hello of 10⁶
// layer objects (3 MB) took minutes (issue 39's hostile pass).
json parse_json_checked(std::string_view text, int max_depth, const JsonShapeCheck& fault);

}  // namespace pecheck
