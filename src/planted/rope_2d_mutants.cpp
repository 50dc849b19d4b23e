// Planted bugs of the vision 2-D rotary (CLAIMS.md §10, rope.axes_2d): each
// declares what rope@pixtral declares and turns its pairs otherwise.
#include "pecheck/planted/mutants.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/reference/rotary.h"
#include "pecheck/subjects/builtin/rope_2d.h"

namespace pecheck {

namespace planted::rope_2d_mutants {  // the file's own names (the planted bugs compile in unity batches)

SubjectInfo twin(const std::string& name) {
  return rope_2d_info(name, mutant_spec(name), pixtral_2d(), "rope@pixtral");
}

// The row's pairs turned by the column and the other way round: position ids
// built as (w, h) where the table is indexed (h, w).
class RowsColumnsSwapped : public RopeSubject {
 public:
  using RopeSubject::RopeSubject;

 protected:
  int axis_of(int pair, int rotary_width) const override { return 1 - RopeSubject::axis_of(pair, rotary_width); }
};

// Qwen2-VL's split where Pixtral's is declared: the column's pairs at the
// row's (even) frequencies, freqs[::2] for both axes.
class HalvesFrequencies : public RopeSubject {
 public:
  using RopeSubject::RopeSubject;

 protected:
  int frequency_of(int pair, int rotary_width) const override {
    RotateConvention as = info().rotate;
    as.rope_2d->frequencies = Frequencies2d::halves;
    return reference::rotary_frequency_index(pair, rotary_width, as);
  }
};

// A (row, column) table precomputed for max_patches_per_side = 64 and indexed
// modulo its side: an image of more than 64 patches a side (a tiled or
// larger image) turns its far patches as near ones.
class TableWraps : public RopeSubject {
 public:
  using RopeSubject::RopeSubject;

 protected:
  double position_used(Position t) const override { return static_cast<double>(t % 64); }
};

}  // namespace planted::rope_2d_mutants

std::vector<SubjectEntry> rope_2d_mutants() {
  using namespace planted::rope_2d_mutants;
  return {
      {"rope-2d-rows-columns-swapped",
       "Pixtral's 2-D rotary with rows and columns swapped: the row's pairs turn by the column and the other way round",
       [] { return std::make_unique<RowsColumnsSwapped>(twin("rope-2d-rows-columns-swapped")); }},
      {"rope-2d-halves-frequencies",
       "Pixtral's 2-D rotary with Qwen2-VL's frequency split: the column's pairs at the even frequencies (freqs[::2]) "
       "where Pixtral takes the odd ones (freqs[1::2])",
       [] { return std::make_unique<HalvesFrequencies>(twin("rope-2d-halves-frequencies")); }},
      {"rope-2d-table-wraps",
       "Pixtral's 2-D rotary from a table of 64 × 64 patches indexed modulo 64: rows and columns past 63 turn as "
       "near ones",
       [] { return std::make_unique<TableWraps>(twin("rope-2d-table-wraps")); }},
  };
}

}  // namespace pecheck
