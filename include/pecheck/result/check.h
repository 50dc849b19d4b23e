#pragma once
// What a property measures for one input: a list of named sub-checks, each
// with its measured error, the size of the computation its bound comes from
// (work and scale per precision stage), whether the bound is an upper or a
// lower one, and where — as indices, not text. Measure, then judge (e3nn's
// discipline): nothing here knows a property id, a tolerance factor or a
// verdict; result/judge.h turns a Measurement into one.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pecheck/core/json.h"
#include "pecheck/core/matrix.h"

namespace pecheck {

// The precision stage a rounding term belongs to (SUBJECT-PROTOCOL v2's
// `compute`): values (the subject's dtype), angles (positions × frequencies
// and their sin/cos), accumulate (dot products and softmax sums).
enum class Stage { values, angles, accumulate };

// work · scale rounding units in one stage.
struct BoundTerm {
  Stage stage = Stage::values;
  double work = 0;
  double scale = 0;
  // Whether `work` counts independent roundings (the terms of a sum, the
  // stages of a layer), whose errors add like a random walk, so that the
  // probabilistic model (result/tight_bound.h) takes √work; false for an
  // error that grows deterministically with its work (an angle t·ω rounded
  // once carries u·t·ω whatever the order).
  bool independent = true;
  // What the tight bounds count (result/tight_bound.h) where `work` is a
  // worst case: for a sum, the roundings the computation does (a layer's
  // stages each at its own width, not all at the MLP's), which they root;
  // for an angle term, the errors of angles rounded apart (the pairs of an
  // encoding, the positions of a rotation) added in quadrature, where `work`
  // adds them up. 0: `work` is that count already.
  double typical_work = 0;
  // The size each counted rounding is relative to, for the tight bounds,
  // where `scale` is the worst case's: a sum's rounding errors are relative
  // to its partial sums (their root mean square, Σ|terms| only when every
  // term has one sign), a layer's to the rows it computes (not the largest
  // entry anywhere). 0: `scale`.
  double typical_scale = 0;
};

// The bound that follows the computation actually done (issue 36), judged
// instead of the worst case wherever it is smaller (result/tight_bound.h):
// what the same computation errs in the subject's dtype, measured on the
// case, or the probabilistic model of its rounding where that cannot be formed.
struct TightBound {
  enum class Kind {
    same_dtype,     // 2 × reference_error + a floor: pecheck's reference in the subject's dtype against float64
    probabilistic,  // factor · Σ u · √(paths · work) · scale (Higham & Mary 2019)
  };
  Kind kind = Kind::probabilistic;
  // same_dtype: max |reference in the subject's dtype − reference in float64|
  // over the compared entries, summed over the evaluations compared.
  double reference_error = 0;
  // How many independent evaluations the compared difference spans (two
  // paths of one subject: 2).
  double paths = 1;
  std::string what;  // what was measured, in words
};

// bound = factor · Σ_terms u(stage) · work · scale + fixed.
struct Bound {
  enum class Kind {
    upper,  // passes when error <= bound
    lower,  // passes when the measured value >= bound (a distance that must exceed rounding)
    exact,  // bound 0: the claim is exact in IEEE arithmetic (x + 0 = x)
  };
  Kind kind = Kind::upper;
  std::vector<BoundTerm> terms;
  std::string what;          // the work and scale in words: "(1+|t|) · A"
  double fixed = 0;          // a part that is no rounding (a published value's last decimal)
  std::string fixed_why;
  // The largest error physically possible for the compared quantity (e.g.
  // 2‖x‖ between two vectors of norm ‖x‖). A bound at or above it cannot
  // tell a correct answer from a wrong one: the check is not checkable at
  // that size, and is reported so instead of passing.
  std::optional<double> ceiling;
  // Where set, the judged bound is min(worst case above, tight).
  std::optional<TightBound> tight;

  static Bound upper(double work, double scale, std::string what, Stage stage = Stage::values);
  static Bound lower(double work, double scale, std::string what, Stage stage = Stage::values);
  static Bound exact(std::string why);
  // Adds a term in another stage (mixed precision): "(...) + u(angles) · ...".
  Bound& plus(Stage stage, double work, double scale, const std::string& what);
  Bound& plus_fixed(double value, std::string why);
  Bound& at_most(double largest_possible_error);
  // The tight bound from the same-dtype reference's own error (summed over
  // the evaluations compared), or from the probabilistic model.
  Bound& same_dtype(double reference_error, std::string what);
  Bound& probabilistic(double paths, std::string what);
};

// Where a check's error is largest, as indices into the compared result and
// in the claim's terms. Writers render it (describe) and highlight by it.
struct Location {
  std::optional<std::int64_t> row, column;         // of the compared result
  std::optional<Position> position, other_position; // positions t (and s) the claim names
  std::optional<std::int64_t> query, key, head, token, pair, component, batch;
  std::string label;                                 // what was compared, where no index says it
};
// "position 5, column 2", "query 0, key 3, head 1", "p_5·p_6 at d = 16 (published in 003)".
std::string describe(const Location& where);
json to_json(const Location& where);
Location location_from_json(const json& j);

struct Check {
  std::string name;     // stable within its property; declared when the property is defined
  double error = 0;     // upper/exact: the error; lower: the measured value. NaN never passes.
  Bound bound;
  Location where;
  json observed;        // what the subject produced there
  json expected;        // what the claim requires there
  std::string note;     // what was compared, in a sentence
};

struct Measurement {
  std::vector<Check> checks;
  std::string note;     // about the case as a whole (e.g. the published numbers)
};

}  // namespace pecheck
