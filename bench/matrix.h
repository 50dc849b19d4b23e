#pragma once
// Where users pay: the full claims matrix at --jobs 1 against --jobs 2, and
// a Python subject through the process protocol (cases per second).
namespace pecheck::bench {

void print_scaling(double scale);

}  // namespace pecheck::bench
