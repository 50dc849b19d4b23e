#pragma once
// What the hello reader says of a declaration it refuses (BadDeclaration's
// message), or "" when it accepts it: the declaration tests of one
// convention each (test_rope_decoupled, test_rope_axes_2d,
// test_temperature_tuning) assert on it.
#include <string>

#include "pecheck/subjects/factory.h"
#include "protocol/hello.h"

namespace pecheck::testing {

inline std::string hello_refusal(const json& hello) {
  try {
    process::read_hello(hello);
  } catch (const BadDeclaration& d) {
    return d.what();
  }
  return {};
}

}  // namespace pecheck::testing
