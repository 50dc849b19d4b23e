#pragma once
// Absolute positional encoders: the sinusoidal reference and the
// counter-schemes of CLAIMS.md §2.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pecheck/subjects/builtin/builtins.h"
#include "pecheck/subjects/typed_subject.h"

namespace pecheck {

// An encoder defined by a function of (dim, position, seq_len) -> row.
class EncoderSubject : public TypedSubject {
 public:
  using Row = std::function<void(int dim, Position t, Position seq_len, double* out)>;
  EncoderSubject(SubjectInfo info, Row row, bool even_dims_only = false)
      : info_(std::move(info)), row_(std::move(row)), even_only_(even_dims_only) {}
  const SubjectInfo& info() const override { return info_; }
  Matrix encode(int dim, const Positions& positions, Position seq_len) override;

 private:
  SubjectInfo info_;
  Row row_;
  bool even_only_;
};

// The info every built-in encoder starts from: float64, op encode. Built-ins
// declare no layout: the claims matrix judges them against the interleaved
// reference (CLAIMS.md §2); only external subjects declare one.
SubjectInfo encoder_info(std::string name, Layout layout = Layout::unspecified);
// info for an encoder declaring a v2 convention: params.encode = `convention`
// (its amplitude mirrored into the v1 field; the top-level layout stays
// unspecified, the layout is params.encode.layout), `declared` the v2 field
// paths it states, compute.angles when given.
SubjectInfo encoder_info(std::string name, SubjectSpec spec, const EncodeConvention& convention, Dtype dtype,
                         std::optional<Dtype> angles, std::vector<std::string> declared, std::string scheme);

// The sinusoidal encoding computed as an implementation in `dtype` would:
// the position, ω_i, the angle t·ω_i, its sine and cosine and the product
// with the amplitude each rounded to `dtype` (float64: the reference itself).
EncoderSubject::Row sinusoidal_row(Layout layout, double amplitude, Dtype dtype = Dtype::float64);
// The same under a declared EncodeConvention (base, schedule, position
// offset, amplitude, layout), in mixed precision as real code computes it: the
// angle stage (t + offset, ω_i, their product, its sine and cosine) rounds to
// `angles`, the amplitude and the product with it to `values` (both float64:
// the reference itself). Refuses (Refusal) the widths the convention leaves
// undefined (reference/sinusoidal.h).
EncoderSubject::Row sinusoidal_row(const EncodeConvention& convention, Dtype values, Dtype angles);

std::vector<SubjectEntry> encoder_builtins();

}  // namespace pecheck
