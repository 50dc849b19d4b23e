#pragma once
// Where users pay: subjects in Python through the process protocol, one
// request per case (--batch 1) against look-ahead batches, in cases per
// second over the cells a profile expects to hold.
namespace pecheck::bench {

void print_protocol(double scale);

}  // namespace pecheck::bench
