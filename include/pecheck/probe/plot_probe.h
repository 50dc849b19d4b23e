#pragma once
// The probe step of a run: a few requests to each encoder and rotary subject
// on a fixed grid of positions, kept as plot data for report.html (the report
// writers are pure and cannot ask a subject anything).
//   encoder: the Gram matrix p_t·p_s, the per-dimension step size, and the
//            step-size error (and distance from the reference formula) against position;
//   rotary:  the same for R_t q with q = (1, …, 1);
//   both:    the reference claim's (pe./rope.reference_values) own error at
//            each position against the bound its verdict uses.
#include <optional>

#include <memory>

#include "pecheck/core/matrix.h"
#include "pecheck/core/tolerance.h"
#include "pecheck/result/plots.h"
#include "pecheck/runner/session.h"
#include "pecheck/subjects/subject.h"
#include "pecheck/subjects/typed_subject.h"

namespace pecheck {

// Positions 0..kGramPositions-1 make the Gram matrix.
inline constexpr int kGramPositions = 48;

// Plot data of one subject, or nullopt when it neither encodes nor rotates.
// Never throws: a refusal or a failure becomes the result's note. The dashed
// resolution line is model.factor · u(dtype); the reference plot's bound is
// the claim's, under `model` (factors and fixed bounds included).
std::optional<SubjectPlots> probe_plots(Subject& subject, Position max_position, const ErrorModel& model = {});

// The step of a plan: plot data from every encoder and rotary subject that did not fail.
std::shared_ptr<FinishStep> plot_step();

}  // namespace pecheck
