// Planted sinusoidal-encoder bugs behind a declared convention (v2
// params.encode): each declares what a correct encoder of that convention
// would, and gets one thing wrong the way published code has.
#include <cmath>
#include <stdexcept>

#include "pecheck/planted/mutants.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/subjects/builtin/encoders.h"
#include "pecheck/subjects/builtin/published.h"

namespace pecheck {

namespace planted::encoder_convention_mutants {  // the file's own names (the planted bugs compile in unity batches)

// The declared info of the published built-in `twin`, renamed as the mutant `name`.
SubjectInfo twin_info(const std::string& twin, const std::string& name) {
  for (const auto& entry : published_builtins()) {
    if (entry.name != twin) continue;
    SubjectInfo info = entry.make()->info();
    info.name = name;
    info.spec = mutant_spec(name);
    return info;
  }
  throw std::logic_error("no published built-in " + twin);
}

// The tensor2tensor / fairseq table: ω_i = 10000^(−i/(h−1)), [sin… | cos…].
EncodeConvention timing_signal() {
  EncodeConvention c;
  c.schedule = Schedule::i_over_h_minus_1;
  c.layout = Layout::halves;
  return c;
}

// fairseq's padding_idx: its table row is zeroed.
constexpr Position kPaddingIdx = 1;

SubjectEntry mutant(const std::string& name, const std::string& description, SubjectInfo info,
                    EncoderSubject::Row row) {
  return {name, description, [=] { return std::make_unique<EncoderSubject>(info, row); }};
}

}  // namespace planted::encoder_convention_mutants

std::vector<SubjectEntry> encoder_convention_mutants() {
  using namespace planted::encoder_convention_mutants;
  const auto table_row = sinusoidal_row(timing_signal(), Dtype::float64, Dtype::float64);

  // fairseq's get_embedding(num, d, padding_idx=1) zeroes row 1 for the
  // padding token; read with 0-based positions (no padding_idx + 1 offset)
  // under a tensor2tensor declaration, real position 1 gets that zero row.
  auto padding_row_leak = [table_row](int dim, Position t, Position n, double* out) {
    table_row(dim, t, n, out);
    if (t == kPaddingIdx) std::fill(out, out + dim, 0.0);
  };

  // Declares the paper's schedule 2i/d (in the halves layout) but computes
  // tensor2tensor's i/(h−1): every pair i ≥ 1 has the wrong frequency.
  EncodeConvention paper_halves;
  paper_halves.layout = Layout::halves;
  SubjectInfo misdeclared = encoder_info("sinusoidal-schedule-misdeclared", mutant_spec("sinusoidal-schedule-misdeclared"),
                                         paper_halves, Dtype::float64, std::nullopt, declared_fields(paper_halves),
                                         "sinusoidal");

  // The paper's interleaved table with the cosine's exponent taken from its
  // own column: pe[:, 2i] = sin(t·10000^(−2i/d)) but pe[:, 2i+1] =
  // cos(t·10000^(−(2i+1)/d)) (the exponent from the column index j, as in
  // angle_rates = 10000^(−j/d) written without j//2 for the cosines only).
  EncodeConvention paper;
  paper.layout = Layout::interleaved;
  SubjectInfo odd_cosine = encoder_info("sinusoidal-cos-odd-exponent", mutant_spec("sinusoidal-cos-odd-exponent"), paper,
                                        Dtype::float64, std::nullopt, declared_fields(paper), "sinusoidal");
  auto cos_odd_exponent = [](int dim, Position t, Position, double* out) {
    for (int j = 0; j < dim; ++j) {
      const double angle = static_cast<double>(t) * std::pow(10000.0, -static_cast<double>(j) / dim);
      out[j] = j % 2 == 0 ? std::sin(angle) : std::cos(angle);
    }
  };

  return {
      mutant("sinusoidal-cos-odd-exponent",
             "the paper's table whose cosines use the exponent (2i+1)/d of their own column: sine and cosine at "
             "different frequencies",
             odd_cosine, cos_odd_exponent),
      mutant("sinusoidal-padding-row-leak",
             "tensor2tensor table with fairseq's zeroed padding row: real position 1 encodes as zeros",
             twin_info("sinusoidal@t2t", "sinusoidal-padding-row-leak"), padding_row_leak),
      mutant("sinusoidal-schedule-misdeclared",
             "declares schedule 2i/d (halves) but computes tensor2tensor's i/(h-1)", misdeclared, table_row),
      mutant("sinusoidal-offset-ignored",
             "declares fairseq's position_offset 2 but encodes position t itself (the offset never added)",
             twin_info("sinusoidal@fairseq", "sinusoidal-offset-ignored"), table_row),
  };
}

}  // namespace pecheck
