#include "runner/preview_recorder.h"

#include <fmt/format.h>

#include "pecheck/core/op_table.h"

namespace pecheck {

Answer PreviewRecorder::perform(const Call& call) {
  const Op op = op_of(call);
  if (op_row(op).stateful) throw Stateful{};
  if (op_row(op).in_process()) {
    return Refused{fmt::format("{} does not implement {}", info_.name, name(op))};
  }
  if (const auto* c = std::get_if<AttentionCall>(&call); c && c->heads != info_.attention.query_heads()) {
    return Refused{"the protocol carries the declared heads"};
  }
  if (!info_.supports(op)) return Refused{"not declared"};
  const std::size_t hash = hash_of(call);
  if (next_ < answered_.size() && answered_[next_].first->hash == hash &&
      same_request(answered_[next_].first->call, call)) {
    return answered_[next_++].second;
  }
  throw Pending{call, hash};
}

}  // namespace pecheck
