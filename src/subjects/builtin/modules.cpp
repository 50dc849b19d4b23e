#include "pecheck/subjects/builtin/modules.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "pecheck/subjects/builtin/modules_encoder.h"
#include "pecheck/subjects/builtin/modules_config.h"
#include "pecheck/subjects/builtin/modules_layered.h"
#include "pecheck/subjects/builtin/modules_llama.h"

namespace pecheck {

ForwardRequest forward_request(const SubjectInfo& info, const Batch& x, const std::vector<Positions>& positions,
                               const BoolMatrix& padding) {
  ForwardRequest request;
  const auto batch = static_cast<Eigen::Index>(x.size());
  request.tokens = x.empty() ? 0 : x.front().rows();
  const int width = info.forward ? info.forward->width : 0;
  for (const auto& sequence : x) {
    if (width > 0 && sequence.cols() != width) {
      throw Refusal(fmt::format("{} takes tokens of width {}, not {}", info.name, width, sequence.cols()));
    }
    if (sequence.rows() != request.tokens) {
      throw std::invalid_argument(fmt::format("forward: sequences of {} and {} tokens in one batch", request.tokens,
                                              sequence.rows()));
    }
  }
  if (positions.empty()) {
    Positions counting(static_cast<size_t>(request.tokens));
    for (Eigen::Index r = 0; r < request.tokens; ++r) counting[static_cast<size_t>(r)] = r;
    request.positions.assign(x.size(), counting);
  } else {
    if (static_cast<Eigen::Index>(positions.size()) != batch) {
      throw std::invalid_argument(fmt::format("forward: {} rows of positions for {} sequences", positions.size(), batch));
    }
    for (const auto& row : positions) {
      if (static_cast<Eigen::Index>(row.size()) != request.tokens) {
        throw std::invalid_argument(
            fmt::format("forward: {} positions for a sequence of {} tokens", row.size(), request.tokens));
      }
    }
    request.positions = positions;
  }
  if (padding.size() == 0) {
    request.padding = BoolMatrix::Constant(batch, request.tokens, true);
  } else {
    if (padding.rows() != batch || padding.cols() != request.tokens) {
      throw std::invalid_argument(fmt::format("forward: a {}×{} padding for {} sequences of {} tokens", padding.rows(),
                                              padding.cols(), batch, request.tokens));
    }
    request.padding = padding;
  }
  return request;
}

void check_decode_input(const SubjectInfo& info, const Vector& x) {
  const int width = info.forward ? info.forward->width : 0;
  if (width > 0 && x.size() != width) {
    throw Refusal(fmt::format("{} decodes tokens of width {}, not {}", info.name, width, x.size()));
  }
}

SubjectInfo module_info(std::string name, SubjectSpec spec, const ForwardConvention& convention, bool decodes,
                        std::string scheme) {
  SubjectInfo info;
  info.name = std::move(name);
  info.spec = std::move(spec);
  info.ops = static_cast<unsigned>(Op::forward) | (decodes ? static_cast<unsigned>(Op::decode) : 0u);
  info.dtype = Dtype::float64;
  info.forward = convention;
  info.scheme = std::move(scheme);
  info.declared = {"params.forward.causal", "params.forward.positional", "params.forward.width"};
  return info;
}

Matrix draw_matrix(gen::FastRandom& random, Eigen::Index rows, Eigen::Index cols, double spread, double center) {
  Matrix m(rows, cols);
  for (Eigen::Index r = 0; r < rows; ++r) {
    for (Eigen::Index c = 0; c < cols; ++c) m(r, c) = random.uniform(center - spread, center + spread);
  }
  return m;
}

Vector draw_vector(gen::FastRandom& random, Eigen::Index size, double spread, double center) {
  Vector v(size);
  for (Eigen::Index i = 0; i < size; ++i) v(i) = random.uniform(center - spread, center + spread);
  return v;
}

Matrix draw_projection(gen::FastRandom& random, Eigen::Index fan_in, Eigen::Index fan_out) {
  return draw_matrix(random, fan_in, fan_out, std::sqrt(3.0 / static_cast<double>(fan_in)));
}

std::vector<SubjectEntry> module_builtins() {
  auto table = encoder_layer_builtins();
  const auto llama = llama_block_builtins();
  table.insert(table.end(), llama.begin(), llama.end());
  const auto layered = layered_block_builtins();
  table.insert(table.end(), layered.begin(), layered.end());
  const auto from_config = config_block_builtins();
  table.insert(table.end(), from_config.begin(), from_config.end());
  return table;
}

}  // namespace pecheck
