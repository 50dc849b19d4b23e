#pragma once
// Which requests are the same, to find the answer obtained for one: the same
// op with every argument the same, bit for bit (−0.0 and 0.0 are different
// requests, as they are on the wire in b64le). Compared in place, never
// written out: a request's arrays are kilobytes, and the look-ahead compares
// each request it serves.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "pecheck/protocol/calls.h"

namespace pecheck {

// From the op, the shapes and a sample of each array's values: equal
// requests hash alike; unequal ones seldom do (same_request decides).
std::size_t hash_of(const Call& call);
bool same_request(const Call& a, const Call& b);

// About how many numbers a request carries with its answer: the entries of
// every array among its arguments (matrices, vectors, masks, positions) and
// of the answer its codec expects (a batch answer counted as its sequences ×
// tokens, the widths already counted in x). What the look-ahead sizes a batch
// line by (lookahead.h, BatchLimits): a subject's time grows with it.
std::int64_t numbers_of(const Call& call);

// A request asked, kept to be matched against the ones that follow.
struct Asked {
  Call call;
  std::size_t hash = 0;
};
using AskedPtr = std::shared_ptr<const Asked>;

}  // namespace pecheck
