#pragma once
// Which convention explains a subject's answers: the diagnosis of a
// `*.reference_values` witness and `pecheck identify`.
//
// Both probe the subject (a few widths and positions, the witness's among
// them) and fit hypotheses to its answers: conventions (a base from a grid of
// common ones and a 1-D fit, a schedule, a layout, a rotary width, a scaling
// family, a position offset, an amplitude) and the defects real code has (the
// identity map, the inverse rotation, sine and cosine exchanged, angles in a
// lower precision than declared, a zeroed row). A hypothesis explains the
// answers when every probed entry lies within the same error model the claim
// judges with (tolerance factor · u per stage · work · scale); the one with
// the smallest worst ratio (error / bound) wins.
#include <optional>
#include <string>
#include <vector>

#include "pecheck/core/json.h"
#include "pecheck/core/tolerance.h"
#include "pecheck/result/judge.h"
#include "pecheck/subjects/subject.h"

namespace pecheck::identify {

// A convention in words: "base 10000, halves layout, rotary_dim 64, llama3
// scaling (factor 8, low 1, high 4, original 8192)".
std::string describe(const RotateConvention& convention);
std::string describe(const EncodeConvention& convention);
// params.rotate / params.encode as a version-2 hello writes them (every
// field, defaults included: what is declared is what was identified).
json rotate_params(const RotateConvention& convention);
json encode_params(const EncodeConvention& convention);

// The diagnosis of a failed rope.reference_values case (width `dim`, the
// witness's positions, the length its request carried): which one change to
// the declared convention — or which defect — explains the subject's answers,
// re-queried at the witness and at a few more positions and widths. One
// sentence ("matches base 1000, not 10000: …"), or why nothing fits.
std::string diagnose_rotary(Subject& subject, const BoundModel& model, int dim, const Positions& positions,
                            Position seq_len);
// The same for pe.reference_values ("matches positions offset by 2", …).
std::string diagnose_encoder(Subject& subject, const BoundModel& model, int dim, const Positions& positions,
                             Position seq_len);

// What `pecheck identify` found for one op.
struct Identification {
  std::string op;           // "rotate", "encode" or "attention"
  bool fits = false;        // the best hypothesis explains every probe within the error model
  std::string convention;   // the best hypothesis in words
  double ratio = 0;         // its worst error / bound over the probes
  std::string details;      // what was probed, and why the runner-up lost (or what does not fit)
  json params;              // params.<op> that would declare it (when it is a convention)
};

// Probes an encoder or a rotary (every op of the two it offers) with no
// declared convention assumed beyond its dtype and compute, and names the
// convention that best explains it. `max_position` bounds the probes.
std::vector<Identification> identify(Subject& subject, const ErrorModel& model, Position max_position);
// The version-2 hello that would declare what `found` identified for `subject`.
json hello_for(const SubjectInfo& subject, const std::vector<Identification>& found);

}  // namespace pecheck::identify
