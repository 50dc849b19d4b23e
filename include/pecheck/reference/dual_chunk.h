#pragma once
// Dual chunk attention's positions and rotation (core/conventions.h
// DualChunk), written from the published code: vLLM's
// vllm/model_executor/layers/rotary_embedding/dual_chunk_rope.py
// (DualChunkRotaryEmbedding._compute_cos_sin_cache and forward_native: keys
// at k_t = j mod L; queries intra q_t = p mod L, successive qc_t = min(q_t +
// L, chunk_size), inter the qc cache's last row, min(2L − 1, chunk_size)) and
// vllm/attention/backends/dual_chunk_flash_attn.py
// (DualChunkFlashAttentionImpl._dual_chunk_flash_attn_prefill_func: a
// query's chunk is ⌊p/L⌋; it reads its own chunk's keys with the intra
// query, the chunk before with the successive one, every earlier chunk with
// the inter one); HKUNLP/ChunkLlama (chunkllama_attn_replace.py) the same
// three ranges. L = chunk_size − local_size.
#include <utility>
#include <vector>

#include "pecheck/core/conventions.h"
#include "pecheck/core/dtype.h"
#include "pecheck/core/matrix.h"

namespace pecheck::reference {

// How the positions are read: as published, or the way a port gets one
// range wrong (the planted bugs and the diagnosis compare answers with each).
enum class DualChunkReading {
  faithful,
  successive_unclamped,  // the chunk before: p mod L + L, the clamp at chunk_size missing
  inter_off_by_one,      // earlier chunks: min(2L − 1, chunk_size) − 1
  plain_rope,            // no remapping: the query at p, the key at j (ordinary RoPE)
  keys_absolute,         // queries remapped, keys left at j (k_t not reduced mod L)
};
std::string_view describe(DualChunkReading reading);

// Which of the three ranges key j is for the query at p: 0 its own chunk,
// 1 the chunk before, 2 earlier.
int dual_chunk_range(const DualChunk& dc, Position query, Position key);
// The rotary positions (query's, key's) of the pair.
std::pair<Position, Position> dual_chunk_positions(const DualChunk& dc, Position query, Position key,
                                                   DualChunkReading reading = DualChunkReading::faithful);

// Refuses a DCA declaration pecheck cannot compute: chunk_size > local_size ≥ 0,
// a rotary that is neither halves nor interleaved, or one that is scaled.
void check_dual_chunk(const DualChunk& dc, int head_dim);

}  // namespace pecheck::reference
