#include "subjects/plugin/plugin_library.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <filesystem>
#include <type_traits>

#include "pecheck_plugin.h"

namespace pecheck::plugin {

static_assert(std::is_same_v<EncodeFn, pecheck_encode_fn>, "EncodeFn must match the public header");
static_assert(std::is_same_v<RotateFn, pecheck_rotate_fn>, "RotateFn must match the public header");
static_assert(std::is_same_v<AttentionFn, pecheck_attention_fn>, "AttentionFn must match the public header");
static_assert(std::is_same_v<RotateBackwardFn, pecheck_rotate_backward_fn>, "RotateBackwardFn must match the header");
static_assert(std::is_same_v<AttentionBackwardFn, pecheck_attention_backward_fn>,
              "AttentionBackwardFn must match the header");
static_assert(std::is_same_v<RotateShiftFn, pecheck_rotate_shift_fn>, "RotateShiftFn must match the header");
static_assert(std::is_same_v<RotateAxesFn, pecheck_rotate_axes_fn>, "RotateAxesFn must match the header");

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw SubjectFailure(fmt::format("cannot load plugin {}: {}", path, why));
}

void* symbol(void* handle, const char* name) {
  dlerror();
  return dlsym(handle, name);
}

template <class Fn>
Fn require(void* handle, const std::string& path, const char* symbol_name, Op op) {
  void* address = symbol(handle, symbol_name);
  if (address == nullptr) {
    fail(path, fmt::format("it declares op '{}' but exports no {} (see adapters/c/pecheck_plugin.h)",
                           name(op), symbol_name));
  }
  return reinterpret_cast<Fn>(address);
}

// A feature bit of rotate (a rotary convention's entry point): only beside
// PECHECK_OP_ROTATE, and its symbol is required as an op's is.
template <class Fn>
Fn require_feature(void* handle, const std::string& path, unsigned ops, const char* bit, const char* symbol_name) {
  if ((ops & PECHECK_OP_ROTATE) == 0) {
    fail(path, fmt::format("it declares {} without PECHECK_OP_ROTATE (see adapters/c/pecheck_plugin.h)", bit));
  }
  void* address = symbol(handle, symbol_name);
  if (address == nullptr) {
    fail(path, fmt::format("it declares {} but exports no {} (see adapters/c/pecheck_plugin.h)", bit, symbol_name));
  }
  return reinterpret_cast<Fn>(address);
}

}  // namespace

Library::Library(const std::string& path) : path_(path) {
  if (path.empty()) fail(path, "empty path");
  // dlopen searches the library path for a name without a slash; a plugin
  // spec names a file, so make it absolute.
  const std::string file = std::filesystem::absolute(path).string();
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) fail(path, "no such file");
  handle_ = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* why = dlerror();
    fail(path, fmt::format("dlopen failed: {}", why != nullptr ? why : "unknown error"));
  }
  try {
    using InfoFn = const struct pecheck_plugin_info* (*)();
    auto info_fn = reinterpret_cast<InfoFn>(symbol(handle_, "pecheck_plugin_info"));
    if (info_fn == nullptr) {
      fail(path, "not a pecheck plugin: it exports no pecheck_plugin_info (see adapters/c/pecheck_plugin.h)");
    }
    const struct pecheck_plugin_info* info = info_fn();
    if (info == nullptr) fail(path, "pecheck_plugin_info() returned NULL");
    if (info->abi_version != PECHECK_PLUGIN_ABI_VERSION) {
      fail(path, fmt::format("built for plugin ABI version {}, this pecheck loads version {}; rebuild it "
                             "against this pecheck's adapters/c/pecheck_plugin.h",
                             info->abi_version, PECHECK_PLUGIN_ABI_VERSION));
    }
    declared_.name = info->name != nullptr && *info->name != '\0'
                         ? std::string(info->name)
                         : std::filesystem::path(path).stem().string();
    const std::string dtype = info->dtype != nullptr ? info->dtype : "";
    const auto parsed_dtype = parse_dtype(dtype);
    if (!parsed_dtype) {
      fail(path, fmt::format("unknown dtype '{}'; declare float64, float32, bfloat16 or float16", dtype));
    }
    declared_.dtype = *parsed_dtype;
    if (info->layout != nullptr) {
      const auto layout = parse_layout(info->layout);
      if (!layout) fail(path, fmt::format("unknown layout '{}'; declare interleaved, halves or NULL", info->layout));
      declared_.layout = *layout;
    }
    bind_ops(info->ops);
  } catch (...) {
    dlclose(handle_);
    throw;
  }
}

// The entry points the declared op bits and feature bits need (a missing one
// fails the load, naming it), and what they declare.
void Library::bind_ops(unsigned ops) {
  constexpr unsigned known = PECHECK_OP_ENCODE | PECHECK_OP_ATTENTION | PECHECK_OP_ROTATE | PECHECK_OP_BACKWARD |
                             PECHECK_OP_ROTATE_SHIFT | PECHECK_OP_ROTATE_AXES;
  if (ops == 0) fail(path_, "it declares no ops");
  if ((ops & ~known) != 0) {
    fail(path_, fmt::format("it declares unknown op bits {:#x} (this pecheck knows {:#x})", ops & ~known, known));
  }
  if (ops & PECHECK_OP_ENCODE) {
    encode = require<EncodeFn>(handle_, path_, "pecheck_encode", Op::encode);
    declared_.ops |= static_cast<unsigned>(Op::encode);
  }
  if (ops & PECHECK_OP_ROTATE) {
    rotate = require<RotateFn>(handle_, path_, "pecheck_rotate", Op::rotate);
    declared_.ops |= static_cast<unsigned>(Op::rotate);
  }
  if (ops & PECHECK_OP_ATTENTION) {
    attention = require<AttentionFn>(handle_, path_, "pecheck_attention", Op::attention);
    declared_.ops |= static_cast<unsigned>(Op::attention);
  }
  if (ops & PECHECK_OP_BACKWARD) {
    // The backward of each forward op it declares, where it exports one; at least one.
    if (rotate) rotate_backward = reinterpret_cast<RotateBackwardFn>(symbol(handle_, "pecheck_rotate_backward"));
    if (attention) {
      attention_backward = reinterpret_cast<AttentionBackwardFn>(symbol(handle_, "pecheck_attention_backward"));
    }
    if (!rotate_backward && !attention_backward) {
      fail(path_, "it declares PECHECK_OP_BACKWARD but exports no pecheck_rotate_backward (beside rotate) nor "
                  "pecheck_attention_backward (beside attention)");
    }
    declared_.ops |= static_cast<unsigned>(Op::backward);
    if (rotate_backward) declared_.backward_of |= static_cast<unsigned>(Op::rotate);
    if (attention_backward) declared_.backward_of |= static_cast<unsigned>(Op::attention);
    declared_.declared.push_back("params.backward.of");
  }
  if (ops & PECHECK_OP_ROTATE_SHIFT) {
    // Exporting the shift is the promise context_shift makes (module.context_shift judges it).
    rotate_shift = require_feature<RotateShiftFn>(handle_, path_, ops, "PECHECK_OP_ROTATE_SHIFT",
                                                  "pecheck_rotate_shift");
    declared_.context_shift = true;
    declared_.declared.push_back("params.rotate.context_shift");
  }
  if (ops & PECHECK_OP_ROTATE_AXES) {
    // Which axes (rope_2d, mrope_section) the plugin declares in pecheck.toml, as it does its base.
    rotate_axes = require_feature<RotateAxesFn>(handle_, path_, ops, "PECHECK_OP_ROTATE_AXES",
                                                "pecheck_rotate_axes");
  }
}

Library::~Library() {
  if (handle_ != nullptr) dlclose(handle_);
}

}  // namespace pecheck::plugin
