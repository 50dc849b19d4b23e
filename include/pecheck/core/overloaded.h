#pragma once
// The visitor idiom for std::visit: Overloaded{[](const A&) {…}, [](const B&) {…}}.
// The deduction guide is spelled out: aggregate deduction (C++20, P1816) is
// not in every compiler the project builds with (clang 14, the fuzz build).

namespace pecheck {

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

}  // namespace pecheck
