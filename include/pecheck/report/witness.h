#pragma once
// A counterexample in one line a person reads at a glance — where it broke,
// what came out, what was due, by how much:
//
//   at position 1, column 2 (dim 4, positions [1]): observed 0.84, expected 0.91 (error 0.07 > bound 1e-06)
//
// The console prints it under an expected violation, and JUnit's `message`
// attribute carries it, so a CI summary shows the witness, not a generic text.
#include <string>

#include "pecheck/result/result.h"

namespace pecheck {

std::string witness_line(const Counterexample& counterexample);

// A value as JSON text for people: every run of at least 4 zeros in a list of
// numbers written "0 ×N" (a module's witness at its fixed width is rows of
// mostly zeros once shrunk). Not JSON: the reports keep the exact value.
std::string readable(const json& value);

}  // namespace pecheck
