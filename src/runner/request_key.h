#pragma once
// A request as bytes, to find the answer obtained for it: two requests get
// one key exactly when they are the same op with every argument the same,
// bit for bit (−0.0 and 0.0 are different requests, as they are on the wire
// in b64le).
#include <string>

#include "pecheck/subjects/calls.h"

namespace pecheck {

std::string key_of(const Call& call);

}  // namespace pecheck
