// The same test with a planted bug of a kind real C++ code has: the exponent
// -2 * i / dim is computed in integer arithmetic, so it is 0 for every pair
// and every frequency is 1. The structure survives (each pair still rotates),
// but the encoding is not the sinusoid: this test executable must fail, and
// its failure names the property and shows the counterexample.
#define BOOST_TEST_MODULE buggy_encoder
#include <boost/test/unit_test.hpp>
#include <pecheck/boost_test.h>

#include <cmath>

class IntegerExponentEncoder : public pecheck::cpp::Encoder {
 public:
  IntegerExponentEncoder() : Encoder({.name = "cpp-integer-exponent", .layout = pecheck::Layout::interleaved}) {}

  void encode_row(int dim, pecheck::Position t, pecheck::Position, std::span<double> row) override {
    if (dim % 2 != 0) throw pecheck::Refusal("dim must be even");
    for (int i = 0; i < dim / 2; ++i) {
      const double omega = std::pow(10000.0, -2 * i / dim);  // BUG: integer division
      row[2 * i] = std::sin(static_cast<double>(t) * omega);
      row[2 * i + 1] = std::cos(static_cast<double>(t) * omega);
    }
  }
};

PECHECK_BOOST_TEST_SUBJECT(buggy_encoder, std::make_unique<IntegerExponentEncoder>())
