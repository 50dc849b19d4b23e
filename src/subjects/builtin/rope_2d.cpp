#include "pecheck/subjects/builtin/rope_2d.h"

#include "pecheck/core/subject_spec.h"

namespace pecheck {

RotateConvention pixtral_2d() {
  RotateConvention c;
  c.base = 10000;
  c.layout = Layout::halves;
  c.rope_2d = Rope2d{Frequencies2d::even_odd, false};
  return c;
}

SubjectInfo rope_2d_info(std::string name, SubjectSpec spec, const RotateConvention& convention, std::string scheme) {
  return rope_info(std::move(name), std::move(spec), convention, Dtype::float32, std::nullopt,
                   {"params.rotate.base", "params.rotate.layout", "params.rotate.rope_2d"}, std::move(scheme));
}

std::vector<SubjectEntry> rope_2d_builtins() {
  return {{"rope@pixtral",
           "Pixtral's vision 2-D rotary: 64-feature heads, pairs 0–15 turned by the patch's row at the even "
           "frequencies of base 10⁴, pairs 16–31 by its column at the odd ones (rotate_half layout); float32",
           [] {
             return std::make_unique<RopeSubject>(
                 rope_2d_info("rope@pixtral", builtin_spec("rope@pixtral"), pixtral_2d(), "rope@pixtral"));
           }}};  // a column of the claims matrix (issue 35): only rope.axes_2d applies, at a few ms
}

}  // namespace pecheck
