#pragma once
// Base64 (RFC 4648, standard alphabet, padded) for b64le arrays, and the
// little-endian IEEE bytes they carry.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pecheck::process {

std::string base64_encode(std::string_view bytes);
// The same, written to `out`, which holds base64_size(bytes.size()) characters.
constexpr std::size_t base64_size(std::size_t bytes) { return (bytes + 2) / 3 * 4; }
void base64_encode_to(std::string_view bytes, char* out);

// Strict: length a multiple of 4, padding only at the end, the standard
// alphabet only (no whitespace). Returns false and says why (with the
// offending character's index) when `text` is not such base64.
bool base64_decode(std::string_view text, std::string& bytes, std::string& why);

// `count` doubles as little-endian float64 bytes, and back; float32 bytes read
// as their exact double values.
std::string le_float64_bytes(const double* values, std::size_t count);
void read_le_float64(std::string_view bytes, double* out);
void read_le_float32(std::string_view bytes, double* out);

}  // namespace pecheck::process
