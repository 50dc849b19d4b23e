#include "pecheck/core/strict_json.h"

#include <fmt/format.h>

#include <cstring>
#include <unordered_set>
#include <vector>

namespace pecheck {

namespace {

// nlohmann's DOM builder, with each object's keys and the depth checked as
// they are read (sax_parse calls these by name: they hide the base's).
class CheckedDomParser : public nlohmann::detail::json_sax_dom_parser<json> {
  using Base = nlohmann::detail::json_sax_dom_parser<json>;

 public:
  CheckedDomParser(json& root, int max_depth, const JsonShapeCheck& fault)
      : Base(root, true), max_depth_(max_depth), fault_(fault) {}

  bool start_object(std::size_t length) {
    enter();
    keys_.emplace_back();
    return Base::start_object(length);
  }
  bool key(json::string_t& name) {
    if (!keys_.back().insert(name).second) fault_(JsonShapeFault{false, name});
    return Base::key(name);
  }
  bool end_object() {
    keys_.pop_back();
    --depth_;
    return Base::end_object();
  }
  bool start_array(std::size_t length) {
    enter();
    return Base::start_array(length);
  }
  bool end_array() {
    --depth_;
    return Base::end_array();
  }

 private:
  void enter() {
    if (max_depth_ > 0 && depth_ >= max_depth_) fault_(JsonShapeFault{true, {}});
    ++depth_;
  }

  int max_depth_;
  int depth_ = 0;
  const JsonShapeCheck& fault_;
  std::vector<std::unordered_set<std::string>> keys_;  // the keys of each object being read
};

// nlohmann's message without its "[json.exception.parse_error.101] " prefix.
std::string without_id(std::string what) {
  if (const auto at = what.find("] "); what.starts_with("[json.exception") && at != std::string::npos) {
    what.erase(0, at + 2);
  }
  return what.substr(0, 300);
}

}  // namespace

std::string framing_problem(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) {
    return "a UTF-8 byte-order mark before the JSON value (JSON text has none)";
  }
  if (const void* nul = std::memchr(text.data(), '\0', text.size()); nul != nullptr) {
    const auto at = static_cast<const char*>(nul) - text.data();
    return fmt::format("a NUL byte at byte {} (JSON has none; a reader that stops there would ignore what follows)",
                       at);
  }
  return {};
}

json parse_strict_json(std::string_view text, const JsonHook& hook) {
  if (const std::string problem = framing_problem(text); !problem.empty()) throw StrictJsonError(problem);
  // The keys of each object being read (a set each: an object may have a million keys).
  std::vector<std::unordered_set<std::string>> open;
  auto check = [&](int depth, json::parse_event_t event, json& value) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (depth >= kMaxJsonDepth) {
          throw StrictJsonError(fmt::format("values nested more than {} levels deep", kMaxJsonDepth));
        }
        if (event == json::parse_event_t::object_start) open.emplace_back();
        break;
      case json::parse_event_t::object_end: open.pop_back(); break;
      case json::parse_event_t::key:
        if (!open.back().insert(value.get_ref<const std::string&>()).second) {
          throw StrictJsonError(fmt::format("the key \"{}\" twice in one object (which value would count?)",
                                            value.get_ref<const std::string&>().substr(0, 80)));
        }
        break;
      default: break;
    }
    return hook ? hook(depth, event, value) : true;
  };
  try {
    if (!hook) {
      return parse_json_checked(text, kMaxJsonDepth, [](const JsonShapeFault& fault) {
        if (fault.too_deep) throw StrictJsonError(fmt::format("values nested more than {} levels deep", kMaxJsonDepth));
        throw StrictJsonError(
            fmt::format("the key \"{}\" twice in one object (which value would count?)", fault.key.substr(0, 80)));
      });
    }
    return json::parse(text, check);
  } catch (const json::parse_error& e) {
    throw StrictJsonError(fmt::format("not JSON: {}", without_id(e.what())));
  } catch (const json::out_of_range& e) {
    throw StrictJsonError(fmt::format("a number out of the range of a double ({})", without_id(e.what())));
  } catch (const json::exception& e) {
    throw StrictJsonError(fmt::format("not readable as JSON: {}", without_id(e.what())));
  }
}

json parse_json_checked(std::string_view text, int max_depth, const JsonShapeCheck& fault) {
  json root;
  CheckedDomParser parser(root, max_depth, fault);
  json::sax_parse(text, &parser);
  return root;
}

}  // namespace pecheck
