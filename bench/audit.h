#pragma once
// The audit of every bound (issue 36): per claim, how loose its bound is on
// the correct built-ins of the claims matrix (bound over the largest error
// judged, the shape ladder's sizes included), and by how much each planted
// precision bug exceeds the bound that judged it.
namespace pecheck::bench {

void print_audit(double scale);

}  // namespace pecheck::bench
