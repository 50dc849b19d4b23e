#pragma once
// The implementation under test: a user's sinusoidal positional encoding,
// p_t[2i] = sin(t·ω_i), p_t[2i+1] = cos(t·ω_i), ω_i = 10000^(-2i/d).
#include <pecheck/cpp/implementation.h>

#include <cmath>

class SinusoidalEncoder : public pecheck::cpp::Encoder {
 public:
  SinusoidalEncoder() : Encoder({.name = "cpp-sinusoidal", .layout = pecheck::Layout::interleaved}) {}

  void encode_row(int dim, pecheck::Position t, pecheck::Position, std::span<double> row) override {
    if (dim % 2 != 0) throw pecheck::Refusal("dim must be even");
    for (int i = 0; i < dim / 2; ++i) {
      const double omega = std::pow(10000.0, -2.0 * i / dim);
      row[2 * i] = std::sin(static_cast<double>(t) * omega);
      row[2 * i + 1] = std::cos(static_cast<double>(t) * omega);
    }
  }
};
