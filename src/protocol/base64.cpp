#include "protocol/base64.h"

#include <fmt/format.h>

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

namespace pecheck::process {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<std::int8_t, 256> decoding_table() {
  std::array<std::int8_t, 256> table{};
  for (auto& v : table) v = -1;
  for (int i = 0; i < 64; ++i) table[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::int8_t>(i);
  return table;
}
constexpr auto kDecoding = decoding_table();

// Every 12-bit group as its two characters: half the lookups of one per character.
constexpr std::array<std::array<char, 2>, 4096> pair_table() {
  std::array<std::array<char, 2>, 4096> table{};
  for (int v = 0; v < 4096; ++v) table[static_cast<std::size_t>(v)] = {kAlphabet[v >> 6], kAlphabet[v & 63]};
  return table;
}
constexpr auto kPairs = pair_table();

// std::byteswap is C++23.
inline std::uint64_t swap_bytes(std::uint64_t v) { return __builtin_bswap64(v); }
inline std::uint32_t swap_bytes(std::uint32_t v) { return __builtin_bswap32(v); }

template <class Int>
Int load_le(const char* p) {
  Int v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::big) v = swap_bytes(v);
  return v;
}

}  // namespace

void base64_encode_to(std::string_view bytes, char* o) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3, o += 4) {
    const std::uint32_t v = (std::uint32_t{p[i]} << 16) | (std::uint32_t{p[i + 1]} << 8) | p[i + 2];
    std::memcpy(o, kPairs[v >> 12].data(), 2);
    std::memcpy(o + 2, kPairs[v & 4095].data(), 2);
  }
  if (const std::size_t rest = bytes.size() - i; rest > 0) {
    const std::uint32_t v = (std::uint32_t{p[i]} << 16) | (rest == 2 ? std::uint32_t{p[i + 1]} << 8 : 0);
    o[0] = kAlphabet[v >> 18];
    o[1] = kAlphabet[(v >> 12) & 63];
    o[2] = rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    o[3] = '=';
  }
}

std::string base64_encode(std::string_view bytes) {
  std::string out(base64_size(bytes.size()), '\0');
  base64_encode_to(bytes, out.data());
  return out;
}

namespace {

// Character by character, to say where `text` stops being base64.
bool decode_slowly(std::string_view text, std::size_t padding, std::string& bytes, std::string& why) {
  bytes.clear();
  bytes.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const std::size_t at = i + k;
      const bool pad = at >= text.size() - padding;
      const std::int8_t d = pad ? 0 : kDecoding[static_cast<unsigned char>(text[at])];
      if (d < 0) {
        why = fmt::format("character {} is not base64", at);
        return false;
      }
      v = (v << 6) | static_cast<std::uint32_t>(d);
    }
    bytes += static_cast<char>(v >> 16);
    bytes += static_cast<char>((v >> 8) & 0xFF);
    bytes += static_cast<char>(v & 0xFF);
  }
  bytes.resize(bytes.size() - padding);
  return true;
}

}  // namespace

bool base64_decode(std::string_view text, std::string& bytes, std::string& why) {
  if (text.size() % 4 != 0) {
    why = fmt::format("its length {} is not a multiple of 4", text.size());
    return false;
  }
  std::size_t padding = 0;
  if (!text.empty() && text.back() == '=') padding = text.size() >= 2 && text[text.size() - 2] == '=' ? 2 : 1;
  // The hot path (b64le answers): every quad without padding decoded with no
  // branch, the lookups' sign bits gathered; any character outside the
  // alphabet sends the whole text to the slow path, which says where.
  const std::size_t quads = text.size() / 4, whole = padding > 0 ? quads - 1 : quads;
  bytes.resize(quads * 3);
  const auto* in = reinterpret_cast<const unsigned char*>(text.data());
  auto* out = reinterpret_cast<unsigned char*>(bytes.data());
  std::int32_t bad = 0;
  for (std::size_t q = 0; q < whole; ++q, in += 4, out += 3) {
    const std::int32_t a = kDecoding[in[0]], b = kDecoding[in[1]], c = kDecoding[in[2]], d = kDecoding[in[3]];
    bad |= a | b | c | d;
    const std::uint32_t v = (std::uint32_t(a) << 18) | (std::uint32_t(b) << 12) | (std::uint32_t(c) << 6) | std::uint32_t(d);
    out[0] = static_cast<unsigned char>(v >> 16);
    out[1] = static_cast<unsigned char>(v >> 8);
    out[2] = static_cast<unsigned char>(v);
  }
  if (padding > 0) {
    const std::int32_t a = kDecoding[in[0]], b = kDecoding[in[1]];
    const std::int32_t c = padding == 2 ? 0 : kDecoding[in[2]];
    bad |= a | b | c;
    const std::uint32_t v = (std::uint32_t(a) << 18) | (std::uint32_t(b) << 12) | (std::uint32_t(c) << 6);
    out[0] = static_cast<unsigned char>(v >> 16);
    out[1] = static_cast<unsigned char>(v >> 8);
  }
  if (bad < 0) return decode_slowly(text, padding, bytes, why);
  bytes.resize(quads * 3 - padding);
  return true;
}

std::string le_float64_bytes(const double* values, std::size_t count) {
  std::string out(count * 8, '\0');
  if constexpr (std::endian::native == std::endian::little) {
    if (count > 0) std::memcpy(out.data(), values, count * 8);
  } else {
    for (std::size_t i = 0; i < count; ++i) {
      const auto v = swap_bytes(std::bit_cast<std::uint64_t>(values[i]));
      std::memcpy(out.data() + 8 * i, &v, 8);
    }
  }
  return out;
}

void read_le_float64(std::string_view bytes, double* out) {
  for (std::size_t i = 0; i < bytes.size() / 8; ++i) out[i] = std::bit_cast<double>(load_le<std::uint64_t>(bytes.data() + 8 * i));
}

void read_le_float32(std::string_view bytes, double* out) {
  for (std::size_t i = 0; i < bytes.size() / 4; ++i) out[i] = std::bit_cast<float>(load_le<std::uint32_t>(bytes.data() + 4 * i));
}

}  // namespace pecheck::process
