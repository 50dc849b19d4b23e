#pragma once
// What the attention-bias properties share (CLAIMS.md §6): the requests
// they generate (an n×m bias of one head), the subject's answer checked for
// shape, and the scale its rounding is relative to.
#include <rapidcheck.h>

#include <optional>
#include <string>

#include "pecheck/core/json.h"
#include "pecheck/core/shapes.h"
#include "pecheck/property/property.h"

namespace pecheck::bias {

// One bias request: n queries, m keys, head (0-based).
struct Shape {
  int n = 1, m = 1, head = 0;
  // Throws InvalidInput for a recorded shape that is empty, negative or absurdly large.
  void validate() const;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Shape, n, m, head)

// The heads a subject declares (params.bias.heads; 1 when it declares none).
int declared_heads(const SubjectInfo& subject);
// The longest side generated: past T5's max_distance, so that every bucket,
// the last included, is reached; 64 for ALiBi or an undeclared scheme.
int longest_side(const SubjectInfo& subject);

// n and m in [1, longest_side], mostly at most 16 (each shrinks toward 1), a
// head below the declared count (shrinking toward head 0).
rc::Gen<Shape> shape(const GenContext& ctx);
// `s` with its smaller side brought down (to the nearest size its declared
// extent allows) until the request fits kMostNumbersPerRequest; unchanged
// where it fits already.
Shape fitted_to_budget(Shape s, const std::optional<Extent>& queries, const std::optional<Extent>& keys);

// The subject's n×m bias of `head`; a wrong shape is a SubjectFailure.
Matrix bias_checked(Subject& subject, const Shape& shape);

// The key position of query 0 under the subject's declared alignment
// (params.bias.alignment): 0 top-left (query i at key i), m − n bottom-right
// (the last query at the last key, as a decoder after a KV cache). The
// relative position of entry (i, j) is j − (i + shift).
Eigen::Index query_shift(const SubjectInfo& subject, Eigen::Index n, Eigen::Index m);
// "" for top-left; " (bottom-right: query i at key i + 3)" otherwise, for labels.
std::string alignment_words(const SubjectInfo& subject, Eigen::Index n, Eigen::Index m);
// When a bias fails its claims, whether the other alignment explains it:
// the sentence naming params.bias.alignment, or "" (ALiBi only: its values are a formula).
std::string alignment_diagnosis(Subject& subject, const Shape& shape);

// max |b| and 1: what a bias entry's rounding is relative to.
double scale_of(const Matrix& b);

// "b[2][5]" (query 2, key 5) as a location with head.
Location entry(Eigen::Index query, Eigen::Index key, int head);

}  // namespace pecheck::bias
