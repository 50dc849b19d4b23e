#pragma once
// The full claims matrix at --jobs 1 against --jobs 2 (seconds, and whether
// the two reports are the same).
namespace pecheck::bench {

void print_matrix(double scale);

}  // namespace pecheck::bench
