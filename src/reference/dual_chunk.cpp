#include "pecheck/reference/dual_chunk.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "pecheck/core/vocabulary.h"
#include "pecheck/reference/rotary.h"

namespace pecheck::reference {

std::string_view describe(DualChunkReading reading) {
  switch (reading) {
    case DualChunkReading::faithful: return "the published dual chunk positions";
    case DualChunkReading::successive_unclamped:
      return "the successive-chunk query position not clamped at chunk_size (p mod L + L where min(p mod L + L, "
             "chunk_size) is published)";
    case DualChunkReading::inter_off_by_one:
      return "the inter-chunk query position one less than published (min(2L − 1, chunk_size) − 1)";
    case DualChunkReading::plain_rope:
      return "plain RoPE at the absolute positions: queries and keys not remapped beyond the chunk";
    case DualChunkReading::keys_absolute: return "the keys rotated at j where j mod L is published";
  }
  return "";
}

int dual_chunk_range(const DualChunk& dc, Position query, Position key) {
  const Position len = dc.chunk_len();
  const Position back = query / len - key / len;
  return back <= 0 ? 0 : back == 1 ? 1 : 2;
}

std::pair<Position, Position> dual_chunk_positions(const DualChunk& dc, Position query, Position key,
                                                   DualChunkReading reading) {
  if (reading == DualChunkReading::plain_rope) return {query, key};
  const Position len = dc.chunk_len();
  const Position k = reading == DualChunkReading::keys_absolute ? key : key % len;
  const Position intra = query % len;
  switch (dual_chunk_range(dc, query, key)) {
    case 0: return {intra, k};
    case 1:
      return {reading == DualChunkReading::successive_unclamped ? intra + len : std::min(intra + len, dc.chunk_size), k};
    default: {
      const Position inter = std::min(2 * len - 1, dc.chunk_size);
      return {reading == DualChunkReading::inter_off_by_one ? inter - 1 : inter, k};
    }
  }
}

void check_dual_chunk(const DualChunk& dc, int head_dim) {
  if (dc.local_size < 0 || dc.chunk_size <= dc.local_size) {
    throw Refusal(fmt::format("dual chunk attention needs chunk_size > local_size ≥ 0, got {} and {}", dc.chunk_size,
                              dc.local_size));
  }
  if (dc.rotate.layout != Layout::halves && dc.rotate.layout != Layout::interleaved) {
    throw Refusal("dual chunk attention's rotary must be halves (neox) or interleaved (gptj)");
  }
  if (dc.rotate.scaling.type != ScalingType::none || !dc.rotate.freq_factors.empty() || dc.rotate.multi_axis() ||
      dc.rotate.decoupled() || dc.rotate.rope_2d) {
    throw Refusal("dual chunk attention's rotary is unscaled (DualChunkRotaryEmbedding has base and rotary_dim only)");
  }
  rotary_block(head_dim, dc.rotate);  // refuses a width it cannot rotate
}

}  // namespace pecheck::reference
